"""The check report's text form (output/check_text.py): a table row per version, the
fidelity column only when upstream ran, and the progress line, by structure."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from renderer import output
from renderer.checks import report
from renderer.finding import FIDELITY
from renderer.output import check_text
from renderer.output.check import CheckDocument
from tests.checks.test_report import incomplete, sample


def rows(text: str) -> list[list[str]]:
    """The table's version rows, split into cells."""
    return [line.split() for line in text.splitlines() if line.startswith("v") and " " in line]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (
            sample,
            [
                ["v1.0.0", "go", "ok", "legacy", "legacy", "ok", "2/2", "MISSING", "FAIL"],
                ["v2.0.0", "go", "ok", "yes", "FAIL", "ok", "2/3", "FAIL", "FAIL"],
            ],
        ),
        (
            lambda: report.CheckReport("root", "golden", ["1.30"], [incomplete()]),
            [["v3.0.0", "go", "ok", "FAIL", "-", "-", "-", "-", "FAIL"]],
        ),
    ],
    ids=["legacy-and-failed", "capability-failure"],
)
def test_text_has_a_row_per_version(
    make: Callable[[], report.CheckReport], expected: list[list[str]]
) -> None:
    assert rows(output.render("text", CheckDocument(make()))) == expected


def test_text_shows_fidelity_only_when_upstream_ran() -> None:
    r = sample()
    header = output.render("text", CheckDocument(r)).splitlines()[2].split()
    assert header[-2:] == ["GOLDENS", "RESULT"]
    r.upstream = "upstream/calico"
    for v in r.versions:
        v.stages[FIDELITY] = report.SKIP
    header = output.render("text", CheckDocument(r)).splitlines()[2].split()
    assert header[-3:] == ["GOLDENS", "FIDELITY", "RESULT"]


@pytest.mark.parametrize(
    ("status", "line"), [("pass", "checked v0: pass"), ("fail", "checked v0: FAIL")]
)
def test_progress_line(status: str, line: str) -> None:
    v = report.VersionResult("v0", [], "go")
    v.stages["templates"] = status
    assert check_text.progress_line(v) == line
