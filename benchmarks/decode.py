"""The parse against BKE's controller's decoding: how much agrees, and what it costs.

    python benchmarks/decode.py [--seeds N] [--scalars N] [--repeat N]

1. Every distinct rendered file of every scenario of every bundled version, of BKE's
   real versions (``tests/fixtures/bke-real*``) and of the test trees, and upstream
   Calico's release manifests, decoded by the parse and by ``tests/go/decode``
   (apimachinery v0.28.0, the controller's): files, objects compared, differences.
2. The scalar fuzz: ``--scalars`` plain scalars per seed (``--seeds`` seeds), each as a
   value, a sequence item and a key: streams compared, differences.
3. The decode of the real v3.31.3's 601-node render (7,600 lines) in process, against
   Go's decode of the same stream (a batch of ``--repeat`` copies in one process, less
   a batch of one: the process start-up out).

Prints the figures; no assertion (the tests hold the differences at 0).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from renderer import api  # noqa: E402
from renderer.k8s.decode import decode_stream  # noqa: E402
from tests.decodehelp import (  # noqa: E402
    Decoded,
    difference,
    our_decode,
    run_go,
    scalar_streams,
    scalars,
)
from tests.k8s.test_decode_parity import UPSTREAM, rendered_streams  # noqa: E402

REAL = ROOT / "tests" / "fixtures" / "bke-real"


def build(work: Path) -> Path:
    go = shutil.which("go")
    if go is None:
        sys.exit("needs Go >= 1.24 on PATH")
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CGO_ENABLED="0")
    env.setdefault("GOCACHE", str(work / "gocache"))
    binary = work / "decode"
    subprocess.run(
        [go, "build", "-o", str(binary), "./decode"], cwd=ROOT / "tests" / "go", env=env, check=True
    )
    return binary


def ours(text: str) -> Decoded:
    return our_decode(lambda t: [d.data for d in decode_stream(t, "f.yaml")], text)


def compare(binary: Path, streams: list[str]) -> tuple[int, int]:
    """(objects compared, streams that differ)."""
    objects = differ = 0
    for text, go in zip(streams, run_go(binary, streams), strict=True):
        objects += len(go.objects or ())
        if difference(go, ours(text)) is not None:
            differ += 1
    return objects, differ


def go_seconds(binary: Path, text: str, repeat: int) -> float:
    """Go's decode of ``text``: a batch of ``repeat`` copies less a batch of one."""

    def batch(n: int) -> float:
        data = json.dumps([text] * n).encode("utf-8")
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([str(binary), "-batch"], input=data, capture_output=True, check=True)
            runs.append(time.perf_counter() - start)
        return statistics.median(runs)

    return (batch(repeat + 1) - batch(1)) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--scalars", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    os.environ["CALICO_RENDER_NO_CACHE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(Path(tmp))
        rendered = list(rendered_streams())
        upstream = [p.read_text(encoding="utf-8") for p in sorted(UPSTREAM.glob("v*/*.yaml"))]
        for label, streams in (("rendered files", rendered), ("upstream files", upstream)):
            objects, differ = compare(binary, streams)
            print(f"{label}: {len(streams)}, objects compared {objects}, differences {differ}")
        total = differ = 0
        for seed in range(1, args.seeds + 1):
            streams = scalar_streams(scalars(seed, args.scalars))
            total += len(streams)
            differ += compare(binary, streams)[1]
        print(
            f"scalar fuzz: {args.seeds} seeds x {args.scalars} scalars as value, item and key "
            f"= {total} streams, differences {differ}"
        )
        result = api.render(api.Request.of("v3.31.3", 601, root=REAL))
        [text] = [f.text for f in result.files]
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            decode_stream(text, "calico.yaml")
            runs.append(time.perf_counter() - start)
        go = go_seconds(binary, text, args.repeat)
        ms = statistics.median(runs) * 1000
        print(
            f"decode of the real v3.31.3 601-node render ({text.count(chr(10))} lines): "
            f"ours {ms:.1f} ms, Go {go * 1000:.1f} ms ({ms / (go * 1000):.1f}x)"
        )


if __name__ == "__main__":
    main()
