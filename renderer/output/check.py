"""The check report as a document: JSON (``check-report.schema.json``), text
(:mod:`.check_text`) and JUnit test suites.

In JUnit each version is a suite: a testcase for the version (its failed stages, the
errors no other case carries), one per scenario (failing with what changed in its
goldens and the diffs of its golden files) and one per rule or golden error, each
located at its template line; goldens of a version not in the tree are a suite of
their own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from renderer.checks.report import (
    FAIL,
    GOLDEN_STALE,
    MISSING,
    NEW,
    SKIP,
    CheckReport,
    ScenarioResult,
    StaleGolden,
    VersionResult,
)
from renderer.finding import ERROR, FIDELITY, GOLDENS, RULES, Finding
from renderer.output import Findings, SortedDocument, check_text
from renderer.output.findings import findings_list, report_header, severity_counts
from renderer.output.suites import Suites, TestCase, TestSuite, finding_case

CHECK_REPORT = "check-report.schema.json"
#: The check report's shape: 3 holds every addon's versions, grouped by addon.
CHECK_REPORT_VERSION = 3


def version_data(v: VersionResult) -> dict[str, Any]:
    """One version of the check report's JSON."""
    data = {
        "addon": v.addon,
        "version": v.version,
        "label": v.label,
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
        "objects": v.objects,
        "golden": v.golden.to_dict(),
    }
    if FIDELITY in v.stages:
        data["fidelity"] = v.fidelity or {
            "upstream": None,
            "status": v.stages[FIDELITY],
            "scenarios": [],
            "errors": 0,
            "warnings": 0,
            "deviations": 0,
            "note": "not compared: an earlier stage failed",
        }
    return data


def addon_data(report: CheckReport, addon: str) -> dict[str, Any]:
    """One addon's summary: the stages its versions ran (and the status columns they
    have), its versions and how many passed, its findings by severity and rule, what
    the schema stage saw of its objects, and its goldens."""
    mine = report.of_addon(addon)
    found = [f for v in mine for f in v.findings]
    rules: dict[str, dict[str, Any]] = {}
    for f in found:
        rules.setdefault(f.rule, {"rule": f.rule, **severity_counts(())})[f.severity] += 1
    objects = {"objects": 0, "validated": 0, "crd_validated": 0, "not_checked": 0, "unserved": 0}
    kinds: set[str] = set()
    for v in mine:
        for key in objects:
            objects[key] += (v.objects or {}).get(key, 0)
        kinds.update((v.objects or {}).get("not_checked_kinds", ()))
    failed = [v.version for v in mine if not v.passed]
    return {
        "name": addon,
        "stages": list(mine[0].ran) if mine else [],
        "columns": list(mine[0].stage_names) if mine else [],
        "versions": [v.version for v in mine],
        "scenarios": sum(len(v.scenarios) for v in mine),
        "passed": len(mine) - len(failed),
        "failed": failed,
        "findings": severity_counts(found),
        "rules": [rules[r] for r in sorted(rules)],
        "objects": {**objects, "not_checked_kinds": sorted(kinds)},
        "golden_statuses": sorted({v.golden.status for v in mine}),
    }


def check_data(report: CheckReport) -> dict[str, Any]:
    """The check report's JSON (``check --format json``)."""
    failed = [v.label for v in report.versions if not v.passed]
    new = report.new_goldens
    data: dict[str, Any] = {
        **report_header("check", CHECK_REPORT_VERSION),
        "manifests": report.manifests,
        "golden": report.golden,
        "kube_versions": list(report.kube_versions),
        "update_golden": report.update,
        "passed": report.passed,
        "summary": {
            "addons": len(report.addons),
            "versions": len(report.versions),
            "passed": len(report.versions) - len(failed),
            "failed": len(failed),
            "legacy": sum(1 for v in report.versions if v.legacy),
            "stale_goldens": len(report.stale_failed),
            "findings": severity_counts(report.findings),
        },
        "addons": [addon_data(report, a) for a in report.addons],
        "new_goldens": None
        if not new
        else {
            "addons": new,
            "command": next(v.golden.command for v in report.versions if v.golden.status == NEW),
        },
        "versions": [version_data(v) for v in report.versions],
        "stale_goldens": [s.to_dict() for s in report.stale],
        "exceptions": {
            "file": report.exceptions_file,
            "entries": [a.to_dict(grouped=True) for a in report.rule_exceptions],
            "deviations": [a.to_dict(grouped=True) for a in report.deviations],
            "warnings": report.exception_warnings,
            "notes": report.exception_notes,
        },
    }
    if report.upstream is not None:
        data["upstream"] = report.upstream
    return data


def _diffs(v: VersionResult, scenario: str) -> str:
    """The diffs of the golden files of ``scenario`` (its directory's)."""
    return "".join(
        diff for path, diff in v.golden.file_diffs.items() if path.partition("/")[0] == scenario
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
    """The version's testcase: its failed stages and the errors no case of their own
    carries (rules and goldens have theirs)."""
    bad = v.failed_stages
    errors = [
        str(f) for f in v.findings if f.severity == "error" and f.stage not in (RULES, GOLDENS)
    ]
    body = "\n".join([f"stage {s}: {v.stages[s]}" for s in bad] + errors)
    return TestCase(
        f"{v.addon}.{v.version}",
        v.version,
        body if bad else None,
        message="failed stages: " + ", ".join(bad) if bad else "",
        seconds=v.seconds,
    )


def _scenario_case(v: VersionResult, s: ScenarioResult) -> TestCase:
    """The scenario's testcase, failing with what changed in its goldens (one line per
    field, then the diffs of its golden files), at the first change's template line."""
    failed = s.golden in (FAIL, MISSING)
    mine = [f for f in v.findings if f.stage == GOLDENS and s.name in f.scenarios]
    text = "\n".join(s.changes) if s.changes else f"golden {s.golden}"
    if s.golden == MISSING:
        text += "\ncreate them with: " + v.golden.command
    elif failed:
        diff = _diffs(v, s.name)
        if diff:
            text += "\n\n" + diff
    located = next((f for f in mine if f.file), None)
    return TestCase(
        f"{v.addon}.{v.version}",
        f"{v.version} {s.name}",
        text if failed else None,
        message=f"golden {s.golden}",
        file=located.file if located and failed else "",
        line=located.line if located and failed else 0,
    )


def _finding_cases(v: VersionResult) -> list[TestCase]:
    """A failing testcase per rule or golden error, located where the finding is."""
    return [
        replace(
            finding_case(f"{v.addon}.{v.version}", f),
            name=f"{v.version} {'rule' if f.stage == RULES else 'golden'} {f.rule}"
            + (f" {f.object}" if f.object else "")
            + (f" {f.field}" if f.field else "")
            + ("" if f.object or f.field else f" {f.message}"),
        )
        for f in v.findings
        if f.stage in (RULES, GOLDENS) and f.severity == "error"
    ]


def stale_finding(s: StaleGolden) -> Finding:
    """Goldens of a version not in the tree, at the first of their files."""
    first = f"{s.shown or s.directory}/{s.files[0]}" if s.files else s.shown or s.directory
    return Finding(
        GOLDEN_STALE,
        ERROR,
        f"{check_text.STALE_MESSAGE} ({len(s.files)} file(s)); remove them, after "
        f"review, with: {s.command}",
        stage=GOLDENS,
        file=first,
        line=1 if s.files else 0,
    )


def version_suite(v: VersionResult) -> TestSuite:
    """The version's suite: its own case, a case per scenario, one per rule error; its
    properties name its addon and the stages that ran for it."""
    cases = [_version_case(v), *(_scenario_case(v, s) for s in v.scenarios)]
    return TestSuite(
        f"{v.addon} {v.version}",
        (*cases, *_finding_cases(v)),
        properties=(
            ("addon", v.addon),
            *((("stages", ", ".join(v.ran)),) if v.ran else ()),
            *_exception_properties(v),
        ),
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
    located = stale_finding(stale)
    case = TestCase(
        f"{stale.addon}.{stale.version}",
        f"{stale.version} goldens",
        body if stale.status == FAIL else None,
        message=check_text.STALE_MESSAGE,
        file=located.file,
        line=located.line,
    )
    return TestSuite(f"{stale.addon} {stale.version}", (case,))


@dataclass(frozen=True)
class CheckDocument(SortedDocument, Suites, Findings):
    """The release gate over every version of a tree, in text, JSON, JUnit, SARIF and
    Code Quality."""

    schema = CHECK_REPORT
    suites_name = "calico-render check"

    report: CheckReport

    def annotations(self) -> list[Finding]:
        """Every version's findings (golden changes included), and goldens left for
        versions not in the tree."""
        stale = [stale_finding(s) for s in self.report.stale if s.status == FAIL]
        return [*self.report.findings, *stale]

    def run_properties(self) -> dict[str, Any]:
        """The addons checked and the stages that ran for each (SARIF's run)."""
        return {
            "addons": [
                {"name": a, "stages": list(self.report.of_addon(a)[0].ran)}
                for a in self.report.addons
            ]
        }

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
