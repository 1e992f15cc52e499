"""Go-dialect engine: parse+compile and render time per bundled template, and for a
BKE-sized single file (the real ones are 5,000-7,600 lines, mostly CRD text); "mapped"
is a render that also builds the source map (rendered line -> template line), as
calico-render's renders do.

    python benchmarks/engine.py [--repeat N] [--scaling]

``--scaling`` measures the compiler on untrusted-sized input: time and peak memory per
action as the action count grows, and the deepest nesting of ``range`` and ``if`` that
compiles (blocks past 8 levels become macros of their own, so the bound is the
interpreter's recursion, not Python's 20 nested loops and 100 indentation levels).
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable

from renderer.errors import TemplateError
from renderer.gotemplate import compile_go
from renderer.tree import list_versions

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


def row(name: str, source: str, repeat: int) -> None:
    compiled = compile_go(source, name)
    compile_ms = median_ms(lambda: compile_go(source, name), repeat)
    render_ms = median_ms(lambda: compiled.render(CONTEXT), repeat * 10)
    mapped_ms = median_ms(lambda: compiled.render_mapped(CONTEXT), repeat * 10)
    lines = source.count("\n")
    print(
        f"{name:<28} {lines:>6} {source.count('{{'):>8} {compile_ms:>11.1f} {render_ms:>10.2f}"
        f" {mapped_ms:>10.2f}"
    )


def _compiles(source: str) -> bool:
    try:
        compile_go(source, "nested")
    except TemplateError:
        return False
    return True


def deepest(open_: str, close: str, limit: int = 400) -> int:
    """The deepest nesting of ``open_ ... close`` that compiles (binary search)."""
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if _compiles(open_ * mid + "x" + close * mid):
            low = mid
        else:
            high = mid - 1
    return low


def scaling() -> None:
    print(f"{'actions':>8} {'compile s':>10} {'ms/action':>10} {'peak KB/action':>15}")
    for count in (1_000, 5_000, 20_000):  # 100,000: about 5 times the 20,000 row
        source = "".join(
            f"a{i}: {{{{ if .x{i % 7} }}}}{{{{ .y }}}}{{{{ end }}}}\n" for i in range(count // 3)
        )
        actions = source.count("{{")
        start = time.perf_counter()
        compile_go(source, "scaling")
        seconds = time.perf_counter() - start
        tracemalloc.start()  # a second compile: tracing slows it several times
        compile_go(source + "\n", "scaling")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"{actions:>8} {seconds:>10.2f} {seconds * 1000 / actions:>10.3f} "
            f"{peak / actions / 1024:>15.1f}"
        )
    print(f"deepest nested range that compiles: {deepest('{{ range .l }}', '{{ end }}')}")
    print(f"deepest nested if that compiles:    {deepest('{{ if .a }}', '{{ end }}')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scaling", action="store_true", help="Compiler scaling only.")
    args = parser.parse_args()
    compile_go("{{ .warm }}", "warm")  # create the sandbox once, as a process does
    if args.scaling:
        scaling()
        return
    print(
        f"{'template':<28} {'lines':>6} {'actions':>8} {'compile ms':>11} {'render ms':>10}"
        f" {'mapped ms':>10}"
    )
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
