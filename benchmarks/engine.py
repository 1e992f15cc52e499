"""Go-dialect engine: parse+compile and render time per bundled template, and for a
BKE-sized single file (the real ones are 5,000-7,600 lines, mostly CRD text); "mapped"
is a render that also builds the source map (rendered line -> template line), as
calico-render's renders do.

    python benchmarks/engine.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compile_go("{{ .warm }}", "warm")  # create the sandbox once, as a process does
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
