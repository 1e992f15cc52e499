"""The gate's speed: ``calico-render check`` of a whole tree, every addon, version and
scenario, cold and warm, and of the bundled tree against a baseline checkout.

    python benchmarks/gate.py [ROOT] [--jobs N] [--repeat N] [--baseline CHECKOUT]
    python benchmarks/gate.py ROOT --figures


ROOT holds ``kubernetes/<addon>/<version>/`` (BKE's tree: ``git -C MIRROR archive HEAD
kubernetes | tar -x -C ROOT``); without it, only the bundled tree is timed. Its goldens
are written first (``--update-golden`` in a copy), so the timed runs compare every
scenario with its golden as CI does. "cold" runs each process on a new, empty cache
directory, "warm" on the cache the same command filled. Every figure is the smallest and
the median of ``--repeat`` fresh processes, wall and CPU (user + system, the children
included) seconds: on a machine shared with other work the smallest is the least
disturbed run. ``--baseline CHECKOUT`` times the bundled tree's check with the package
of that checkout too (``git worktree add /tmp/base main``), so the Calico-only check is
compared with what it was. Reports are asserted byte-identical across repeats, and with
the baseline's where both check the same. ``--figures`` prints instead, from the JSON
report of ROOT's check (its goldens written first), per addon: versions, scenarios,
distinct objects, those validated against a Kubernetes or CRD schema, those not checked
(and their kinds), findings by severity and by rule, and every error finding. Nothing
here is a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The brief's budgets for the whole real tree (seconds, wall, both cores).
COLD_BUDGET, WARM_BUDGET = 10.0, 3.0


@dataclass(frozen=True)
class Timing:
    """Wall and CPU seconds of one process, its exit code and its report."""

    wall: float
    cpu: float
    code: int
    report: bytes


def run(args: list[str], cache: Path, package: Path) -> Timing:
    """One ``calico-render`` process with ``package`` first on the path."""
    env = {
        **os.environ,
        "CALICO_RENDER_CACHE_DIR": str(cache),
        "PYTHONPATH": str(package),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "renderer", *args], env=env, capture_output=True, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"calico-render {' '.join(args)}: {done.stderr.decode()}")
    return Timing(wall, cpu, done.returncode, done.stdout)


def measure(args: list[str], package: Path, repeat: int, work: Path) -> dict[str, list[Timing]]:
    """Cold and warm timings of ``args``."""
    out: dict[str, list[Timing]] = {"cold": [], "warm": []}
    warm = work / "warm-cache"
    shutil.rmtree(warm, ignore_errors=True)
    run(args, warm, package)  # fills the warm cache
    for i in range(repeat):
        cold = work / f"cold-{i}"
        out["cold"].append(run(args, cold, package))
        shutil.rmtree(cold, ignore_errors=True)
        out["warm"].append(run(args, warm, package))
    reports = {t.report for kind in out.values() for t in kind}
    if len(reports) != 1:
        raise SystemExit(f"calico-render {' '.join(args)}: reports differ between runs")
    return out


def line(label: str, timings: dict[str, list[Timing]]) -> str:
    parts = []
    for kind in ("cold", "warm"):
        walls = [t.wall for t in timings[kind]]
        cpus = [t.cpu for t in timings[kind]]
        parts.append(
            f"{kind} {min(walls):.2f} s (median {statistics.median(walls):.2f}), "
            f"CPU {min(cpus):.2f} s"
        )
    return f"{label}: " + "; ".join(parts)


def adopted_copy(root: Path, work: Path, jobs: int, package: Path) -> Path:
    """A copy of ``root``'s templates with every addon's goldens written."""
    tree = work / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(root / "kubernetes", tree / "kubernetes")
    args = ["check", str(tree), "--jobs", str(jobs), "--update-golden"]
    run(args, work / "adopt-cache", package)
    return tree


def figures(root: Path, jobs: int, work: Path) -> str:
    """Per addon what the gate checked and found on ``root`` (goldens written first)."""
    tree = adopted_copy(root, work, jobs, ROOT)
    done = run(["check", str(tree), "--jobs", str(jobs), "--format", "json"], work / "c", ROOT)
    data = json.loads(done.report)
    rows = [
        (
            "addon",
            "versions",
            "scenarios",
            "objects",
            "validated",
            "by a CRD",
            "not checked",
            "unserved",
            "E/W/I",
        )
    ]
    for a in data["addons"]:
        f, o = a["findings"], a["objects"]
        rows.append(
            (
                a["name"],
                str(len(a["versions"])),
                str(a["scenarios"]),
                str(o["objects"]),
                str(o["validated"]),
                str(o["crd_validated"]),
                str(o["not_checked"]),
                str(o["unserved"]),
                f"{f['error']}/{f['warning']}/{f['info']}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    s = data["summary"]
    totals = {
        key: sum(a["objects"][key] for a in data["addons"])
        for key in ("objects", "validated", "crd_validated", "not_checked", "unserved")
    }
    scenarios = sum(a["scenarios"] for a in data["addons"])
    out.append(
        f"total: {s['addons']} addons, {s['versions']} versions, {scenarios} scenarios, "
        f"{s['passed']} passed; objects {totals}; findings {s['findings']}"
    )
    by_rule: dict[tuple[str, str], int] = {}
    for a in data["addons"]:
        for r in a["rules"]:
            for severity in ("error", "warning", "info"):
                if r[severity]:
                    key = (r["rule"], severity)
                    by_rule[key] = by_rule.get(key, 0) + r[severity]
    out.append("findings by rule and severity:")
    out += [f"  {rule} {sev}: {n}" for (rule, sev), n in sorted(by_rule.items())]
    kinds = sorted({k for a in data["addons"] for k in a["objects"]["not_checked_kinds"]})
    out.append(f"kinds not checked: {', '.join(kinds) or 'none'}")
    out.append("error findings:")
    for v in data["versions"]:
        for f in v["findings"]:
            if f["severity"] == "error":
                at = f["location"] or {}
                where = f"{at.get('path')}:{at.get('line')}" if at else "-"
                out.append(f"  {where}: [{f['rule']}] {f['message'][:160]}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", type=Path, help="a tree of every addon (BKE's)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a checkout to compare the bundled tree")
    parser.add_argument("--figures", action="store_true", help="what the gate found, per addon")
    args = parser.parse_args(argv)
    jobs = ["--jobs", str(args.jobs)]
    with tempfile.TemporaryDirectory(prefix="gate-bench-") as tmp:
        work = Path(tmp)
        if args.figures:
            if args.root is None:
                parser.error("--figures needs ROOT")
            print(figures(args.root, args.jobs, work))
            return 0
        print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, --jobs {args.jobs}")
        if args.root is not None:
            tree = adopted_copy(args.root, work, args.jobs, ROOT)
            timings = measure(["check", str(tree), *jobs], ROOT, args.repeat, work)
            print(line(f"check {args.root} (every addon, goldens written)", timings))
            cold = min(t.wall for t in timings["cold"])
            warm = min(t.wall for t in timings["warm"])
            print(
                f"  budget: cold {cold:.2f} <= {COLD_BUDGET} s: {cold <= COLD_BUDGET}; "
                f"warm {warm:.2f} <= {WARM_BUDGET} s: {warm <= WARM_BUDGET}"
            )
        bundled = measure(["check", *jobs], ROOT, args.repeat, work)
        print(line("check (bundled tree)", bundled))
        if args.baseline is not None:
            base = measure(["check", *jobs], args.baseline.resolve(), args.repeat, work)
            print(line(f"check (bundled tree) with {args.baseline}", base))
            same = base["warm"][0].report == bundled["warm"][0].report
            print(f"  the same text report: {same}")
        print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
