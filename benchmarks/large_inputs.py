"""Large real inputs: 20,000 BKENodes, 200,000 values keys, 10,000 exceptions.

    python benchmarks/large_inputs.py [--scale 1.0]

Each case runs in a fresh process and prints wall and CPU seconds and peak RSS next to
its target (under 5 s). ``--scale`` shrinks or grows every input (0.1: a quick look).
``--linear`` runs each case at half its size too and prints the CPU ratio of the two
sizes, less the cost of an empty input (start-up): about 2 when the work is linear,
4 when it is quadratic. Nothing here is a timed test; the figures are for reading, and
on a shared machine the CPU seconds are the ones to compare.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 5.0


def _nodes(path: Path, count: int) -> list[str]:
    docs = [
        f"apiVersion: bke.bocloud.com/v1beta1\nkind: BKENode\nmetadata:\n  name: n{i}\n"
        f"spec:\n  role: [node]\n  ip: 10.{i // 65536}.{i // 256 % 256}.{i % 256}\n"
        for i in range(count)
    ]
    path.write_text("---\n".join(docs))
    return ["--version", "v3.28", "--nodes-file", str(path), "--no-validate"]


def _values(path: Path, count: int) -> list[str]:
    path.write_text(json.dumps({f"key{i}": f"v{i}" for i in range(count)}))
    return ["--version", "v3.28", "--nodes", "3", "--no-validate", "--values", str(path)]


def _exceptions(path: Path, count: int) -> list[str]:
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from renderer.checks import exceptions\n"
        "exceptions.load(Path(sys.argv[1]))\n"
    )
    lines = ["exceptions:"]
    for i in range(count):
        lines += [
            "  - rule: typha-probes",
            f"    reason: reviewed {i}",
            f"    versions: [v3.{i % 100}.{i // 100}]",
        ]
    path.write_text("\n".join(lines) + "\n")
    return ["-c", code, str(path)]


def _run(argv: list[str]) -> tuple[float, float, int, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss // 1024, proc.returncode


def _argv(extra: list[str]) -> list[str]:
    return [sys.executable, *(extra if extra[0] == "-c" else ["-m", "renderer", *extra])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--linear", action="store_true", help="also run at half size")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        cases = [
            ("BKENodes", 20_000, _nodes, base / "nodes.yaml"),
            ("values keys", 200_000, _values, base / "values.json"),
            ("exceptions", 10_000, _exceptions, base / "exceptions.yaml"),
        ]
        for label, full, make, path in cases:
            count = max(1, int(full * args.scale))
            wall, cpu, rss, code = _run(_argv(make(path, count)))
            verdict = "ok" if wall < TARGET else "OVER"
            print(
                f"{count:>8,} {label:<12} wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
                f"peak {rss:5d} MB  exit {code}  target < {TARGET:g} s: {verdict}"
            )
            if args.linear:
                half = _run(_argv(make(path, max(1, count // 2))))[1]
                start = _run(_argv(make(path, 1)))[1]
                ratio = (cpu - start) / max(half - start, 1e-3)
                print(
                    f"{'':>8} {'':<12} cpu at half size {half:6.2f} s, start-up {start:5.2f} s:"
                    f" work ratio {ratio:4.2f} (2: linear)"
                )


if __name__ == "__main__":
    main()
