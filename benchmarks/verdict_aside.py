"""The cold 601-node render with its Typha verdict judged aside (a forked child) and in
turn, whole process, each on a new, empty cache directory.

    python benchmarks/verdict_aside.py [--repeat N] [--manifests DIR] [--version V]
                                       [--nodes N]

"aside" forks whatever the load (the command line itself forks only while the load
is below the usable cores). Prints, for both, the median of ``--repeat`` fresh
processes (run alternately): wall seconds, CPU seconds of the command alone and with
its child (user + system), and the difference. Outputs (exit code, stdout, stderr)
are asserted identical. On a machine without a spare core the wall times say little:
compare the command's own CPU.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

#: The command line, its verdict judged in turn when the first argument is "in-turn";
#: writes its own CPU seconds (not its child's) to the descriptor named by CPU_FD.
DRIVER = """
import os, sys
mode, sys.argv = sys.argv[1], ["calico-render", *sys.argv[2:]]
from renderer.checks import verdict
if mode == "in-turn":
    verdict.judge_aside = lambda version: None
else:  # forked however busy the machine is (the command line forks only with a core idle)
    verdict._spare_core = lambda: True
import atexit
atexit.register(lambda: os.write(int(os.environ["CPU_FD"]), b"%f" % sum(os.times()[:2])))
from renderer._entry import main
main()
"""


def run(mode: str, args: list[str]) -> tuple[float, float, float, tuple[int, bytes, bytes]]:
    """(wall, own CPU, CPU with children, output) of one fresh process."""
    with tempfile.TemporaryDirectory(prefix="verdict-aside-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CALICO_RENDER_")}
        env["CALICO_RENDER_CACHE_DIR"] = str(Path(tmp) / "cache")
        read, write = os.pipe()
        env["CPU_FD"] = str(write)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", DRIVER, mode, *args],
            capture_output=True,
            env=env,
            cwd=HERE,
            pass_fds=(write,),
            check=False,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        os.close(write)
        own = os.read(read, 64)
        os.close(read)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, float(own or b"nan"), cpu, (done.returncode, done.stdout, done.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--manifests", default=str(HERE / "tests" / "fixtures" / "bke-real"))
    parser.add_argument("--version", default="v3.31.3")
    parser.add_argument("--nodes", default="601")
    opts = parser.parse_args()
    args = ["--manifests", opts.manifests, "--version", opts.version, "--nodes", opts.nodes]
    figures: dict[str, list[tuple[float, float, float]]] = {"aside": [], "in-turn": []}
    outputs = set()
    for _ in range(opts.repeat):
        for mode in figures:
            wall, own, cpu, output = run(mode, args)
            figures[mode].append((wall, own, cpu))
            outputs.add(output)
    if len(outputs) != 1:
        print("outputs differ between the two", file=sys.stderr)
        return 1
    print(f"calico-render {' '.join(args)}, cold, median of {opts.repeat}")
    medians = {}
    for mode, rows in figures.items():
        medians[mode] = [statistics.median(r[i] for r in rows) for i in range(3)]
        wall, own, cpu = medians[mode]
        print(f"  {mode:8s} wall {wall:.3f} s  CPU {own:.3f} s (with child {cpu:.3f} s)")
    delta = [a - b for a, b in zip(medians["aside"], medians["in-turn"], strict=True)]
    print(f"  aside - in turn: wall {delta[0]:+.3f} s  CPU {delta[1]:+.3f} s ({delta[2]:+.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
