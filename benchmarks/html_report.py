"""The HTML report: its size and the time to build it, for the bundled tree and for a
report with many findings and golden changes (a tree where everything went wrong).

The bundled tree's page must stay under 2 MB (a CI artifact a reviewer opens); the
page is built in one pass over the report, so time and size grow linearly with the
findings. Prints one line per case: findings, changes, bytes, milliseconds.

    python benchmarks/html_report.py [--findings N]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from renderer import api, output
from renderer.checks.golden import ObjectChange
from renderer.checks.report import CheckReport
from renderer.finding import Finding
from renderer.output import html  # noqa: F401  (registers the format)
from renderer.output.check import CheckDocument

LIMIT = 2 * 1024 * 1024


def timed(report: CheckReport, runs: int = 3) -> tuple[int, float]:
    """The page's size and the best of ``runs`` times to build it (the CPU is shared)."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        text = output.render("html", CheckDocument(report))
        best = min(best, time.perf_counter() - start)
    return len(text.encode()), best * 1000


def swollen(report: CheckReport, n: int) -> CheckReport:
    """``report`` with ``n`` findings and ``n`` golden changes spread over its versions,
    each finding on a template line (so each page carries its excerpt)."""
    versions = []
    for i, v in enumerate(report.versions):
        name = next(iter(v.sources), "")
        lines = max(1, len(v.sources.get(name, "").splitlines()))
        share = range(i, n, len(report.versions))
        findings = [
            Finding(
                f"rule-{k % 40}",
                "error",
                f"problem {k}",
                stage="rules",
                object=f"Deployment kube-system/d{k}",
                field="spec.replicas",
                file=name,
                line=1 + k % lines,
            )
            for k in share
        ]
        changes = [
            ObjectChange(f"ConfigMap kube-system/c{k % 50}", f"data.k{k}", f'"{k}"', f'"{k + 1}"')
            for k in share
        ]
        versions.append(
            replace(v, findings=findings, golden=replace(v.golden, status="fail", changes=changes))
        )
    return replace(report, versions=versions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=5000)
    args = parser.parse_args()
    report = api.check(api.check_options())
    size, ms = timed(report)
    found = sum(len(v.findings) for v in report.versions)
    print(f"bundled tree: {found} findings, {size:,} bytes, {ms:.0f} ms")
    if size >= LIMIT:
        raise SystemExit(f"the bundled tree's report is {size:,} bytes, over {LIMIT:,}")
    for n in (args.findings // 10, args.findings):
        size, ms = timed(swollen(report, n))
        print(f"{n} findings and {n} golden changes: {size:,} bytes, {ms:.0f} ms")


if __name__ == "__main__":
    main()
