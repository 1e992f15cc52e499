"""Large real inputs: 20,000 BKENodes, 200,000 values keys, 10,000 exceptions, and
installer-service's create requests.

    python benchmarks/large_inputs.py [--scale 1.0] [--linear] [--create] [--request]

Each case runs in a fresh process and prints wall and CPU seconds and peak RSS next to
its target (under 5 s). ``--scale`` shrinks or grows every input (0.1: a quick look).
``--linear`` runs each case at half its size too and prints the CPU ratio of the two
sizes, less the cost of an empty input (start-up): about 2 when the work is linear,
4 when it is quadratic. Nothing here is a timed test; the figures are for reading, and
on a shared machine the CPU seconds are the ones to compare.

``--create`` renders installer-service's exact shape (``tests/bke/installer.py``: every
BKENode labelled with its cluster, then the BKECluster, in one stream) with ``--config``
alone at 2,500, 5,000, 10,000 and 20,000 BKENodes (v3.31.3, since installer-service's
default v3.27.3 has no Typha and is refused above 50 nodes; ``--no-validate``), and
prints the CPU per thousand nodes beyond start-up: flat when linear. ``--request`` times
one 601-node create request end to end, the median of 7: the CLI (a process per run,
schema check included) and the library (``Request.from_config``, ``render`` with the
same schema check) in a process per run and, warm, 7 calls in one process. Every run
is without the result cache (``CALICO_RENDER_NO_CACHE=1``), so each does all the work.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ beside renderer/

from tests.bke.installer import create_request

TARGET = 5.0
#: installer-service's shape at these sizes (``--create``).
CREATE_SIZES = (2_500, 5_000, 10_000, 20_000)
#: Runs of the 601-node request (``--request``); the median is printed.
RUNS = 7
#: Every run does all the work: no result cache read or written.
NO_CACHE = {**os.environ, "CALICO_RENDER_NO_CACHE": "1"}


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


def _create(path: Path, count: int) -> list[str]:
    path.write_text(create_request(count, version="v3.31.3"))
    return ["--config", str(path), "--no-validate"]


#: One 601-node request through the library, as a caller writes it: ``sys.argv[1]`` the
#: file, ``sys.argv[2]`` how many calls (one process); each call's seconds on stdout.
LIBRARY = """
import sys, time
from renderer import api
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    request = api.Request.from_config(sys.argv[1], kube=())
    result = api.render(request)
    assert result.exit_code == 0, result.findings
    print(time.perf_counter() - start)
"""


def _run(argv: list[str]) -> tuple[float, float, int, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, check=False, env=NO_CACHE)
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
    parser.add_argument("--create", action="store_true", help="installer-service's shape")
    parser.add_argument("--request", action="store_true", help="one 601-node request")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if args.create or args.request:
            if args.create:
                _create_series(base / "create.yaml", args.scale)
            if args.request:
                _request(base / "request.yaml")
            return
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


def _create_series(path: Path, scale: float) -> None:
    """``--config`` alone on installer-service's shape at each size, and the CPU per
    thousand BKENodes beyond an empty request's (start-up, the render itself)."""
    start = _run(_argv(_create(path, 3)))[1]
    for full in CREATE_SIZES:
        count = max(4, int(full * scale))
        wall, cpu, rss, code = _run(_argv(_create(path, count)))
        verdict = "ok" if wall < TARGET else "OVER"
        per = (cpu - start) / count * 1000
        print(
            f"{count:>8,} labelled BKENodes, then the BKECluster: wall {wall:6.2f} s  "
            f"cpu {cpu:6.2f} s  ({per:5.3f} s per 1,000 beyond start-up {start:4.2f} s)  "
            f"peak {rss:5d} MB  exit {code}  target < {TARGET:g} s: {verdict}"
        )


def _request(path: Path) -> None:
    """A 601-node create request end to end: the CLI and the library, median of 7."""
    path.write_text(create_request(601, version="v3.31.3"))
    cli = [_run(_argv(["--config", str(path)])) for _ in range(RUNS)]
    codes = {c[3] for c in cli}
    _median("CLI, a process per run", [c[0] for c in cli], [c[1] for c in cli], codes)
    library = [_run([sys.executable, "-c", LIBRARY, str(path), "1"]) for _ in range(RUNS)]
    codes = {c[3] for c in library}
    _median("library, a process per run", [c[0] for c in library], [c[1] for c in library], codes)
    proc = subprocess.run(
        [sys.executable, "-c", LIBRARY, str(path), str(RUNS + 1)],
        capture_output=True,
        text=True,
        check=True,
        env=NO_CACHE,
    )
    calls = [float(line) for line in proc.stdout.split()][1:]  # the first call loads all
    print(
        f"  601 nodes, library, {RUNS} calls in one process after a first: median "
        f"{statistics.median(calls):5.3f} s (min {min(calls):5.3f}, max {max(calls):5.3f})"
    )


def _median(what: str, walls: list[float], cpus: list[float], codes: set[int]) -> None:
    print(
        f"  601 nodes, {what}: median wall {statistics.median(walls):5.3f} s, cpu "
        f"{statistics.median(cpus):5.3f} s (wall min {min(walls):5.3f}, max "
        f"{max(walls):5.3f}; exit {', '.join(map(str, sorted(codes)))})"
    )


if __name__ == "__main__":
    main()
