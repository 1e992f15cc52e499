"""The parallel runner: chunks, and reports that do not depend on the number of jobs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from renderer.checks import runner
from renderer.checks.options import CheckOptions
from renderer.output import render
from renderer.output.check import CheckDocument
from renderer.store import cache
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


def test_a_check_answered_from_the_cache_is_the_check_done_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    options = CheckOptions(tree, tmp_path / "golden", kube_versions=("1.34",))
    first = render("json", CheckDocument(runner.run_check(options)))
    assert render("json", CheckDocument(runner.run_check(options))) == first
    template = sorted((tree / "kubernetes" / "calico" / "v9.1.0").glob("*.yaml"))[-1]
    template.write_text(template.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    edited = render("json", CheckDocument(runner.run_check(options)))
    monkeypatch.setenv(cache.ENV_OFF, "1")  # a run that keeps nothing: the same verdicts
    assert render("json", CheckDocument(runner.run_check(options))) == edited
