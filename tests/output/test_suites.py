"""Test suites of findings: a failing case per error finding, every case where its
finding is, a passing case for a file without errors."""

from __future__ import annotations

from renderer.finding import Finding, ObjectRef
from renderer.output.suites import finding_case, finding_suites


def _finding(severity: str, file: str = "a.yaml", line: int = 3) -> Finding:
    return Finding(
        "schema-invalid",
        severity,
        "unknown field",
        stage="schema",
        object=ObjectRef("ConfigMap", "x", "d", "v1"),
        field="bogus",
        file=file,
        line=line,
    )


def test_an_error_fails_its_case_and_a_warning_passes() -> None:
    failing = finding_case("validate", _finding("error"))
    assert failing.failure is not None and (failing.file, failing.line) == ("a.yaml", 3)
    assert "ConfigMap d/x bogus" in failing.name
    assert finding_case("validate", _finding("warning")).failure is None


def test_a_suite_per_file_and_a_passing_case_for_a_clean_one() -> None:
    suites = finding_suites("validate", ["a.yaml", "b.yaml"], [_finding("error")])
    by_name = {s.name: s for s in suites}
    assert [c.failure is not None for c in by_name["a.yaml"].cases] == [True]
    assert [c.failure for c in by_name["b.yaml"].cases] == [None]
