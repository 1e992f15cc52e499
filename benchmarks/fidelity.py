"""What ``--upstream`` adds to ``calico-render check``: the gate timed with and without it.

Runs ``calico-render check`` as a user does (a fresh process each time, so no cache
carries over), alternating without and with ``--upstream DIR``, and prints the best
time of each, the added time and its fraction of ``check``, then each version's
fidelity verdict from one JSON run.

    python benchmarks/fidelity.py [--manifests ROOT] [--upstream DIR] [--jobs N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def check(args: list[str]) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "renderer", "check", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"check {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return done, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", default=None)
    parser.add_argument("--upstream", default=str(REPO_ROOT / "upstream" / "calico"))
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = ["--format", "json"]
        if args.manifests is not None:  # its own (missing) goldens: the stage still runs
            base += ["--manifests", args.manifests, "--golden", str(Path(tmp) / "golden")]
        if args.jobs is not None:
            base += ["--jobs", str(args.jobs)]
        upstream = [*base, "--upstream", args.upstream]
        plain = with_upstream = float("inf")
        report = ""
        for _ in range(args.rounds):
            plain = min(plain, check(base)[1])
            done, took = check(upstream)
            with_upstream = min(with_upstream, took)
            report = done.stdout
    tree = args.manifests or "bundled tree"
    jobs = args.jobs or "CPU count"
    print(f"{tree}, --jobs {jobs}, best of {args.rounds} fresh processes each")
    print(f"check               {plain:7.2f} s")
    print(f"check --upstream    {with_upstream:7.2f} s")
    added = with_upstream - plain
    print(f"added               {added:7.2f} s  ({added / plain:.0%} of check)")
    for v in json.loads(report)["versions"]:
        fid = v.get("fidelity") or {}
        print(
            f"  {v['version']:<10} fidelity {v['stages'].get('fidelity', '-'):<5} "
            f"{fid.get('errors', 0)} error(s), {fid.get('warnings', 0)} warning(s)"
        )


if __name__ == "__main__":
    main()
