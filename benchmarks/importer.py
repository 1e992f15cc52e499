"""Time to import one upstream Calico tag: in-process derivation and a cold CLI run.

In-process is :func:`renderer.calico.importer.derive` on texts already read (median of
``--repeat`` runs, both layouts); cold CLI is a fresh ``calico-render import --check``
process against the bundled tree (read, derive, compare; its exit code is not
checked, so a tag bundled in another form is timed all the same). Prints a table; no
assertion.

    python benchmarks/importer.py [--tag v3.31.3] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from renderer.calico import importer

ROOT = Path(__file__).resolve().parents[1]


def in_process(texts: dict[str, str], layout: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        importer.derive(texts, importer.Options(layout=layout))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cold_cli(source: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "renderer",
                "import",
                str(source),
                "--manifests",
                str(ROOT / "manifests"),
                "--check",
            ],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="v3.31.3")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    source = ROOT / "upstream" / "calico" / args.tag
    texts = {p.name: p.read_text(encoding="utf-8") for p in source.glob("*.yaml")}
    size = sum(len(t.encode()) for t in texts.values())
    lines = sum(t.count("\n") for t in texts.values())
    print(f"import {args.tag}: {len(texts)} upstream files, {lines} lines, {size / 1024:.0f} KiB")
    print(f"{'what':<28} {'median ms':>10}")
    for layout in importer.LAYOUTS:
        ms = in_process(texts, layout, args.repeat) * 1000
        print(f"{'derive, ' + layout:<28} {ms:>10.1f}")
    print(f"{'cold CLI import --check':<28} {cold_cli(source, args.repeat) * 1000:>10.1f}")


if __name__ == "__main__":
    main()
