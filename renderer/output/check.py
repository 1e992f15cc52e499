"""The check report as a document: JSON (``check-report.schema.json``), text
(:mod:`.check_text`) and JUnit test suites.

In JUnit each version is a suite: a testcase for the version (its failed stages, errors
outside the rules, golden changes no scenario owns), one per scenario (failing with the
diffs of the golden files it renders: ``common/`` is every scenario's, ``a+b/`` is a's
and b's) and one per rule error; goldens of a version not in the tree are a suite of
their own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from renderer.checks.report import (
    FAIL,
    MISSING,
    SKIP,
    CheckReport,
    ScenarioResult,
    StaleGolden,
    VersionResult,
)
from renderer.finding import ERROR, FIDELITY, GOLDENS, RULES, Finding, ObjectRef, locate
from renderer.manifests.tree import tree_path
from renderer.output import Findings, SortedDocument, check_text
from renderer.output.findings import findings_list, report_header, severity_counts
from renderer.output.junit import Suites, TestCase, TestSuite, finding_case

CHECK_REPORT = "check-report.schema.json"


def version_data(v: VersionResult) -> dict[str, Any]:
    """One version of the check report's JSON."""
    data = {
        "version": v.version,
        "files": list(v.files),
        "dialect": v.dialect,
        "capable": v.capable,
        "legacy": v.legacy,
        "missing": list(v.missing),
        "passed": v.passed,
        "stages": {s: v.stages.get(s, SKIP) for s in v.stage_names},
        "findings": findings_list(v.findings),
        "exceptions": [
            {"rule": r, "severity": sev, "reason": why, "findings": n}
            for r, sev, why, n in v.exceptions
        ],
        "scenarios": [s.to_dict() for s in v.scenarios],
        "coverage": v.coverage,
        "golden": v.golden.to_dict(),
    }
    if FIDELITY in v.stages:
        data["fidelity"] = v.fidelity or {
            "upstream": None,
            "status": v.stages[FIDELITY],
            "scenarios": [],
            "errors": 0,
            "warnings": 0,
            "note": "not compared: an earlier stage failed",
        }
    return data


def check_data(report: CheckReport) -> dict[str, Any]:
    """The check report's JSON (``check --format json``)."""
    failed = [v.version for v in report.versions if not v.passed]
    data: dict[str, Any] = {
        **report_header("check"),
        "manifests": report.manifests,
        "golden": report.golden,
        "kube_versions": list(report.kube_versions),
        "update_golden": report.update,
        "passed": report.passed,
        "summary": {
            "versions": len(report.versions),
            "passed": len(report.versions) - len(failed),
            "failed": len(failed),
            "legacy": sum(1 for v in report.versions if v.legacy),
            "stale_goldens": len(report.stale_failed),
            "findings": severity_counts(report.findings),
        },
        "versions": [version_data(v) for v in report.versions],
        "stale_goldens": [s.to_dict() for s in report.stale],
        "exceptions": {
            "file": report.exceptions_file,
            "entries": [a.to_dict() for a in report.exceptions],
            "warnings": report.exception_warnings,
            "notes": report.exception_notes,
        },
    }
    if report.upstream is not None:
        data["upstream"] = report.upstream
    return data


def _diffs(v: VersionResult, scenario: str | None) -> str:
    """The diffs of the golden files ``scenario`` renders (None: that no scenario renders)."""
    from renderer.checks.golden import owners

    names = [s.name for s in v.scenarios]
    return "".join(
        diff
        for path, diff in v.golden.file_diffs.items()
        if (scenario in owners(path, names) if scenario else not owners(path, names))
    ).rstrip("\n")


def _exception_properties(v: VersionResult) -> tuple[tuple[str, str], ...]:
    return tuple(
        (
            f"exception {rule}",
            f"{'skipped' if severity is None else f'downgraded to {severity}'} "
            f"({n} finding(s)): {reason}",
        )
        for rule, severity, reason, n in v.exceptions
    )


def _version_case(v: VersionResult) -> TestCase:
    """The version's testcase: its failed stages, non-rule errors and orphan changes."""
    bad = v.failed_stages
    errors = [str(f) for f in v.findings if f.severity == "error" and f.stage != RULES]
    orphans = [c.describe() for c in v.golden.changes if not c.scenarios]
    orphan_diff = _diffs(v, None)
    body = "\n".join(
        [f"stage {s}: {v.stages[s]}" for s in bad]
        + errors
        + ([v.golden.command] if v.golden.status == MISSING else [])
        + orphans
        + (["", orphan_diff] if orphan_diff else [])
    )
    return TestCase(
        f"calico.{v.version}",
        v.version,
        body if bad else None,
        message="failed stages: " + ", ".join(bad) if bad else "",
        seconds=v.seconds,
    )


def _scenario_case(v: VersionResult, s: ScenarioResult) -> TestCase:
    """The scenario's testcase, failing with the diffs of the golden files it renders."""
    failed = s.golden in (FAIL, MISSING)
    text = "\n".join(s.changes) if s.changes else f"golden {s.golden}"
    if s.golden == MISSING:
        text += "\ncreate them with: " + v.golden.command
    elif failed:
        diff = _diffs(v, s.name)
        if diff:
            text += "\n\n" + diff
    return TestCase(
        f"calico.{v.version}",
        f"{v.version} {s.name}",
        text if failed else None,
        message=f"golden {s.golden}",
    )


def _rule_cases(v: VersionResult) -> list[TestCase]:
    """A failing testcase per rule error, located where the finding is."""
    return [
        replace(
            finding_case(f"calico.{v.version}", f),
            name=f"{v.version} rule {f.rule}"
            + (f" {f.object}" if f.object else "")
            + (f" {f.field}" if f.field else ""),
        )
        for f in v.findings
        if f.stage == RULES and f.severity == "error"
    ]


def golden_findings(v: VersionResult) -> list[Finding]:
    """The golden changes of a failed comparison as findings, each at the template line
    that renders the object now (for merge-request annotations)."""
    if v.golden.status != FAIL:
        return []
    out = []
    for c in v.golden.changes:
        file, line = locate(c.file)
        out.append(
            Finding(
                "golden-changed",
                ERROR,
                c.describe() + " (differs from the reviewed golden; update it after review "
                f"with: {v.golden.command})",
                stage=GOLDENS,
                object=ObjectRef.parse(c.ref) if " " in c.ref else None,
                file=tree_path(v.version, v.files, file) if file else "",
                line=line,
                scenarios=tuple(c.scenarios),
            )
        )
    return out


def version_suite(v: VersionResult) -> TestSuite:
    """The version's suite: its own case, a case per scenario, one per rule error."""
    cases = [_version_case(v), *(_scenario_case(v, s) for s in v.scenarios)]
    return TestSuite(
        f"calico {v.version}",
        (*cases, *_rule_cases(v)),
        properties=_exception_properties(v),
        seconds=v.seconds,
    )


def stale_suite(stale: StaleGolden) -> TestSuite:
    """Goldens of a version not in the tree: one case, failing until they are removed."""
    body = "\n".join(
        [
            f"{check_text.STALE_MESSAGE}: {stale.directory}",
            *stale.files,
            f"remove them with: {stale.command}",
        ]
    )
    case = TestCase(
        f"calico.{stale.version}",
        f"{stale.version} goldens",
        body if stale.status == FAIL else None,
        message=check_text.STALE_MESSAGE,
    )
    return TestSuite(f"calico {stale.version}", (case,))


@dataclass(frozen=True)
class CheckDocument(SortedDocument, Suites, Findings):
    """The release gate over every version of a tree, in text, JSON, JUnit, SARIF and
    Code Quality."""

    schema = CHECK_REPORT
    suites_name = "calico-render check"

    report: CheckReport

    def annotations(self) -> list[Finding]:
        """Every version's findings and golden changes, and goldens left for versions
        not in the tree."""
        stale = [
            Finding(
                "golden-stale",
                ERROR,
                f"{check_text.STALE_MESSAGE} ({len(s.files)} file(s)); remove them, after "
                f"review, with: {s.command}",
                stage=GOLDENS,
                file=s.directory,
            )
            for s in self.report.stale
            if s.status == FAIL
        ]
        found = [f for v in self.report.versions for f in (*v.findings, *golden_findings(v))]
        return [*found, *stale]

    def data(self) -> dict[str, Any]:
        return check_data(self.report)

    def text(self) -> str:
        return check_text.render(self.report)

    def testsuites(self) -> list[TestSuite]:
        """Every suite, each naming the tree checked (its first property)."""
        tree = ("tree", self.report.manifests)
        return [
            replace(suite, properties=(tree, *suite.properties))
            for suite in (
                *(version_suite(v) for v in self.report.versions),
                *(stale_suite(s) for s in self.report.stale),
            )
        ]
