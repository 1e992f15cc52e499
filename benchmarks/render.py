"""Time to render each bundled Calico version: cold CLI and in-process.

Cold CLI is a fresh ``calico-render`` process (import, load, compile, render, print);
in-process is the library's ``render()`` after a warm-up, so template compilation is
cached. Prints a table; no assertion, the figures are for the changelog and notes.

    python benchmarks/render.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from renderer import api
from renderer.manifests.tree import list_versions


def cold_cli(version: str, nodes: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "renderer",
                "--version",
                version,
                "--nodes",
                str(nodes),
                "--no-validate",
                "--operation",
                "upgrade",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_process(version: str, nodes: int, repeat: int) -> tuple[float, int]:
    result = api.render(api.Request.of(version, nodes, operation="upgrade"))
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = api.render(api.Request.of(version, nodes, operation="upgrade"))
        times.append(time.perf_counter() - start)
    return statistics.median(times), sum(f.text.count("\n") for f in result.files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=601)
    args = parser.parse_args()
    print(f"{'version':<10} {'lines':>6} {'cold CLI ms':>12} {'in-process ms':>14}")
    for v in list_versions():
        warm, lines = in_process(v.name, args.nodes, args.repeat)
        cold = cold_cli(v.name, args.nodes, max(1, args.repeat // 2))
        print(f"{v.name:<10} {lines:>6} {cold * 1000:>12.1f} {warm * 1000:>14.2f}")


if __name__ == "__main__":
    main()
