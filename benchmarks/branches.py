"""``calico-render check`` wall time and branch coverage per tree, cold and warm.

    python benchmarks/branches.py [--repeat N] [--manifests DIR]... [--jobs N]

Trees: the bundled tree, ``tests/fixtures/bke-real`` and every ``--manifests DIR``
given (e.g. an export of BKE's bke-manifests: ``git -C MIRROR archive HEAD
kubernetes/calico | tar -x -C DIR``). Each figure is the median wall time of
``--repeat`` fresh ``calico-render check --format json`` processes: "cold" on a new,
empty result cache each run, "warm" on a cache the same command filled first. Trees
without goldens get them written to a temporary copy first, so every run compares
goldens. Per version it prints the scenarios rendered and the template branches no
scenario renders (the report's ``coverage``). Nothing here is a timed test.
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PY = [sys.executable, "-m", "renderer"]


def run(args: list[str], cache: Path) -> tuple[float, dict[str, Any]]:
    """One check process on ``cache``: wall seconds and its JSON report."""
    env = dict(os.environ, CALICO_RENDER_CACHE_DIR=str(cache))
    env.pop("CALICO_RENDER_NO_CACHE", None)
    start = time.perf_counter()
    proc = subprocess.run([*PY, "check", *args, "--format", "json"], env=env, capture_output=True)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"check {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()}")
    return took, json.loads(proc.stdout)


def prepared(tree: Path | None, work: Path) -> list[str]:
    """The check arguments for ``tree``: a copy holding freshly written goldens."""
    if tree is None:
        return []
    copy = work / tree.name
    shutil.copytree(tree / "kubernetes", copy / "kubernetes")
    args = ["--manifests", str(copy)]
    subprocess.run([*PY, "check", *args, "--update-golden"], capture_output=True, check=False)
    return args


def coverage(report: dict[str, Any]) -> list[str]:
    """Per version: scenarios rendered and branches no scenario renders."""
    out = []
    for v in report["versions"]:
        cov = v.get("coverage")
        uncovered = "-" if cov is None else str(cov.get("uncovered", "-"))
        branches = "-" if cov is None else str(cov.get("branches", "-"))
        out.append(
            f"    {v['version']:<9} scenarios {len(v['scenarios']):>3}  branches {branches:>4}"
            f"  uncovered {uncovered:>3}  passed {v['passed']}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--manifests", type=Path, action="append", default=[])
    parser.add_argument("--jobs", type=int, default=0, help="--jobs of check (default: its own)")
    args = parser.parse_args()
    trees: list[tuple[str, Path | None]] = [
        ("bundled", None),
        ("bke-real", ROOT / "tests/fixtures/bke-real"),
    ]
    trees += [(str(m), m.resolve()) for m in args.manifests]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for n, (label, tree) in enumerate(trees):
            check = prepared(tree, work / f"tree-{n}")
            if args.jobs:
                check += ["--jobs", str(args.jobs)]
            cold, warm = [], []
            report: dict[str, Any] = {}
            for i in range(args.repeat):
                took, report = run(check, work / f"cold-{n}-{i}")
                cold.append(took)
            cache = work / f"warm-{n}"
            run(check, cache)
            for _ in range(args.repeat):
                took, report = run(check, cache)
                warm.append(took)
            print(
                f"{label}: check cold {statistics.median(cold):.2f} s, "
                f"warm {statistics.median(warm):.2f} s (median of {args.repeat})",
                flush=True,
            )
            print(*coverage(report), sep="\n", flush=True)


if __name__ == "__main__":
    main()
