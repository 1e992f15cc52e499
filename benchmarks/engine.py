"""Go-dialect engine: parse+compile and render time per bundled template, and for a
BKE-sized single file (the real ones are 5,000-7,600 lines, mostly CRD text); "mapped"
is a render that also builds the source map (rendered line -> template line), as
calico-render's renders do. The engine is the tree interpreter (no compile step).

    python benchmarks/engine.py [--repeat N] [--scaling [--go] [--file PATH]...]

``--scaling`` measures untrusted-sized input: parse+compile and render time and peak
memory per action for 1,000, 10,000 and 100,000 actions, for the interpreter and,
with ``--go``, Go's text/template (tests/go/render.go, built with ``go build``: one process per run,
less the same process on an empty template, so its figure is parse+render alone). It
also prints the deepest nesting the interpreter renders.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from renderer.engine.gotemplate import compile_go
from renderer.errors import TemplateError
from renderer.manifests.tree import list_versions

GO_SOURCE = Path(__file__).resolve().parent.parent / "tests" / "go"

CONTEXT = {
    "repo": "registry.example.com/openfuyao/",
    "allowTypha": "true",
    "typhaReplicas": "4",
    "calicoMode": "vxlan",
    "ipModVersion": "ipv4",
    "podSubnet": "10.244.0.0/16",
}


def median_ms(func: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _cells(name: str, source: str, repeat: int) -> str:
    compiled = compile_go(source, name)
    compile_ms = median_ms(lambda: compile_go(source, name), repeat)
    render_ms = median_ms(lambda: compiled.render(CONTEXT), repeat * 10)
    mapped_ms = median_ms(lambda: compiled.render_mapped(CONTEXT), repeat * 10)
    return f" {compile_ms:>9.2f} {render_ms:>9.3f} {mapped_ms:>9.3f}"


def row(name: str, source: str, repeat: int) -> None:
    lines = source.count("\n")
    print(f"{name:<28} {lines:>6} {source.count('{{'):>7}" + _cells(name, source, repeat))


def _renders(source: str) -> bool:
    try:
        compile_go(source, "nested").render({"l": [1], "a": 1, "x": 1})
    except TemplateError:
        return False
    return True


def deepest(open_: str, inner: str, close: str, limit: int = 400) -> int:
    """The deepest nesting of ``open_ ... close`` that renders (binary search)."""
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if _renders(open_ * mid + inner + close * mid):
            low = mid
        else:
            high = mid - 1
    return low


def _build_go() -> Path | None:
    """tests/go/render.go built into a temporary directory (None without go)."""
    go = shutil.which("go")
    if go is None:
        return None
    work = Path(tempfile.mkdtemp(prefix="engine-bench-"))
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CGO_ENABLED="0")
    env.setdefault("GOCACHE", str(work / "gocache"))
    env.setdefault("GOPATH", str(work / "gopath"))
    binary = work / "render"
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=GO_SOURCE, env=env, check=True)
    return binary


def go_ms(binary: Path, source: str, repeat: int, data: object = None) -> float:
    """Median wall time of one Go process rendering ``source`` (with ``data``, default
    SCALING_CONTEXT)."""
    with tempfile.TemporaryDirectory() as tmp:
        template, context = Path(tmp) / "t.yaml", Path(tmp) / "c.json"
        template.write_text(source, encoding="utf-8")
        context.write_text(json.dumps(data or SCALING_CONTEXT), encoding="utf-8")
        command = [str(binary), str(template), str(context)]
        return median_ms(
            lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL), repeat
        )


SCALING_CONTEXT = {"x1": "on", "x4": [1], "y": "Y"}


def scaling_source(count: int) -> str:
    """``count`` actions of an if/else over one of seven keys."""
    return "".join(
        f"a{i}: {{{{ if .x{i % 7} }}}}{{{{ .y }}}}{{{{ else }}}}-{{{{ end }}}}\n"
        for i in range(count // 4)
    )


def scaling(with_go: bool, repeat: int, files: list[Path]) -> None:
    binary = _build_go() if with_go else None
    floor = go_ms(binary, "", repeat) if binary else 0.0
    if binary:
        print(f"Go process floor (empty template): {floor:.1f} ms")
    for path in files:  # e.g. BKE's real 7,600-line calico.yaml
        source = path.read_text(encoding="utf-8")
        py = median_ms(lambda: compile_go(source, path.name).render(CONTEXT), repeat)  # noqa: B023
        go = f"{go_ms(binary, source, repeat, CONTEXT) - floor:.1f}" if binary else "-"
        print(f"{path}: interpreted parse+render {py:.1f} ms, Go over its floor {go} ms")
    print(
        f"{'actions':>8} {'engine':<12} {'parse+compile ms':>17} {'render ms':>10}"
        f" {'us/action':>10} {'peak KB/action':>15}"
    )
    for count in (1_000, 10_000, 100_000):
        source = scaling_source(count)
        actions = source.count("{{")
        start = time.perf_counter()
        compiled = compile_go(source, "scaling")
        parsed = time.perf_counter()
        compiled.render(SCALING_CONTEXT)
        done = time.perf_counter()
        peak = "-"
        if count <= 10_000:  # a second parse: tracing slows it several times
            tracemalloc.start()
            compile_go(source + "\n", "scaling")
            peak = f"{tracemalloc.get_traced_memory()[1] / actions / 1024:.1f}"
            tracemalloc.stop()
        total = done - start
        print(
            f"{actions:>8} {'interpreted':<12} {(parsed - start) * 1000:>17.1f}"
            f" {(done - parsed) * 1000:>10.1f} {total * 1e6 / actions:>10.1f} {peak:>15}"
        )
        if binary:
            go = go_ms(binary, source, repeat) - floor
            print(f"{actions:>8} {'go':<12} {'':>17} {'':>10} {go * 1000 / actions:>10.1f}")
            print(f"{'':>8} {'go total ms (over the floor)':<30} {go:>9.1f}")
    ranges = deepest("{{ range $.l }}", "{{ break }}", "{{ end }}")
    ifs = deepest("{{ range $.l }}{{ if $.a }}", "{{ continue }}", "{{ end }}{{ end }}")
    print(f"interpreted: deepest range with break {ranges}; range+if with continue {ifs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scaling", action="store_true", help="Scaling with actions only.")
    parser.add_argument("--go", action="store_true", help="With --scaling: time Go too.")
    parser.add_argument(
        "--file", type=Path, action="append", default=[], help="With --scaling: also time FILE."
    )
    args = parser.parse_args()
    compile_go("{{ .warm }}", "warm")  # imports and first-use setup, as a process does
    if args.scaling:
        scaling(args.go, args.repeat, args.file)
        return
    print(f"{'':<43}{'interpreted (ms)':^30}")
    head = f" {'parse':>9} {'render':>9} {'mapped':>9}"
    print(f"{'template':<28} {'lines':>6} {'actions':>7}" + head)
    largest = ""
    for version in list_versions():
        for tf in version.files:
            source = tf.path.read_text(encoding="utf-8")
            row(tf.display, source, args.repeat)
            largest = max(largest, source, key=len)
    bke_sized = largest
    while bke_sized.count("\n") < 7600:
        bke_sized += "---\n" + largest
    row("single file, BKE-sized", bke_sized, args.repeat)


if __name__ == "__main__":
    main()
