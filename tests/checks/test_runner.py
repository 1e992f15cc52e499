"""The parallel runner: chunks, and reports that do not depend on the number of jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.checks import runner
from renderer.checks.options import CheckOptions
from renderer.output import render
from renderer.output.check import CheckDocument
from tests.gatehelp import TREE


@pytest.mark.parametrize(
    ("n", "parts", "sizes"),
    [(0, 3, []), (1, 3, [1]), (5, 2, [3, 2]), (6, 3, [2, 2, 2]), (7, 3, [3, 3, 1])],
)
def test_chunks_are_consecutive_and_at_most_parts(n: int, parts: int, sizes: list[int]) -> None:
    items = list(range(n))
    chunks = runner.chunks(items, parts)
    assert [len(c) for c in chunks] == sizes
    assert [x for c in chunks for x in c] == items


def test_the_report_is_the_same_whatever_the_jobs(tmp_path: Path) -> None:
    def report(jobs: int) -> str:
        options = CheckOptions(TREE, tmp_path / "golden", kube_versions=("1.34",), jobs=jobs)
        return render("json", CheckDocument(runner.run_check(options)))

    assert report(1) == report(3)


def test_versions_are_reported_in_order_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    options = CheckOptions(TREE, tmp_path / "golden", kube_versions=("1.34",))
    result = runner.run_check(options, lambda v: seen.append(v.version))
    assert seen == [v.version for v in result.versions]
    assert [v.version for v in result.versions] == [
        "v9.0.0",
        "v9.1.0",
        "v9.2.0",
        "v9.3.0",
        "v9.4.0",
    ]
