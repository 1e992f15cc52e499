"""The check report: plain dataclasses and their text, JSON and JUnit renderings.

Renderers are pure functions of the report, so every format says the same thing and
the text and JSON output is byte-identical across runs (sorted, no times). JUnit carries
each version's measured time, as CI tools expect; nothing else in it varies.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.checks.exceptions import Applied, unmatched_message
from renderer.checks.finding import Finding, blocking, check_dict, rule_dict
from renderer.data import schemas

if TYPE_CHECKING:
    from renderer.calico.capability import CapabilityReport
    from renderer.calico.fidelity import FidelityResult
    from renderer.checks.golden import FileChange, ObjectChange

PASS, FAIL, LEGACY, SKIP, MISSING, UPDATED = "pass", "fail", "legacy", "skip", "missing", "updated"
STAGES = ("templates", "capability", "rules", "schema", "goldens")
#: The stage ``--upstream`` adds; without it a report has no trace of it.
FIDELITY = "fidelity"
_GOOD = {PASS, LEGACY, SKIP, UPDATED}
REPORT_VERSION = 1
CHECK_REPORT_SCHEMA = "check-report.schema.json"


@dataclass
class ScenarioResult:
    """A rendered scenario, its decision and whether its goldens matched."""

    name: str
    nodes: int
    operation: str
    decision: dict[str, Any]
    golden: str = SKIP
    changes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class GoldenResult:
    """The golden comparison of a version; ``command`` creates missing goldens."""

    status: str = SKIP
    directory: str = ""
    diff: str = ""
    changes: list[ObjectChange] = field(default_factory=list)
    files: list[FileChange] = field(default_factory=list)
    command: str = ""
    #: ``diff`` per golden file (path -> its diff), so each scenario can show its own.
    file_diffs: dict[str, str] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "directory": self.directory or None,
            "files": [asdict(f) for f in self.files],
            "object_changes": [c.to_dict() for c in self.changes],
            "diff": self.diff or None,
            "command": self.command or None,
        }


@dataclass
class VersionResult:
    """Everything the gate found about one version directory."""

    version: str
    files: list[str]
    dialect: str
    #: The contract items the version misses (legacy or incomplete Typha templates).
    missing: list[str] = field(default_factory=list)
    stages: dict[str, str] = field(default_factory=lambda: dict.fromkeys(STAGES, SKIP))
    findings: list[Finding] = field(default_factory=list)
    scenarios: list[ScenarioResult] = field(default_factory=list)
    golden: GoldenResult = field(default_factory=GoldenResult)
    #: The rendered golden tree, kept for ``--update-golden``; not part of the report.
    rendered: dict[str, str] | None = field(default=None, repr=False, compare=False)
    #: The fidelity comparison (upstream folder, status, scenarios, counts), when run.
    fidelity: dict[str, Any] | None = None
    #: Exceptions applied to this version: (rule, severity or None, reason, findings).
    exceptions: list[tuple[str, str | None, str, int]] = field(default_factory=list)
    #: Wall-clock seconds the version took; JUnit only (text and JSON stay deterministic).
    seconds: float = field(default=0.0, compare=False)

    @property
    def stage_names(self) -> tuple[str, ...]:
        """The stages of this result: :data:`STAGES`, and fidelity with ``--upstream``."""
        return (*STAGES, FIDELITY) if FIDELITY in self.stages else STAGES

    @property
    def capable(self) -> bool | None:
        """Whether the Typha contract holds; None when the capability stage did not run."""
        status = self.stages["capability"]
        return None if status == SKIP else status == PASS

    @property
    def legacy(self) -> bool:
        """No Typha templates at all: passes as legacy, release rules not applied."""
        return self.stages["capability"] == LEGACY

    @property
    def passed(self) -> bool:
        return all(status in _GOOD for status in self.stages.values())

    def to_dict(self) -> dict[str, Any]:
        data = {
            "version": self.version,
            "files": list(self.files),
            "dialect": self.dialect,
            "capable": self.capable,
            "legacy": self.legacy,
            "missing": list(self.missing),
            "passed": self.passed,
            "stages": {s: self.stages[s] for s in self.stage_names},
            "findings": [check_dict(f) for f in self.findings],
            "exceptions": [
                {"rule": r, "severity": sev, "reason": why, "findings": n}
                for r, sev, why, n in self.exceptions
            ],
            "scenarios": [s.to_dict() for s in self.scenarios],
            "golden": self.golden.to_dict(),
        }
        if FIDELITY in self.stages:
            data["fidelity"] = self.fidelity or {
                "upstream": None,
                "status": self.stages[FIDELITY],
                "scenarios": [],
                "errors": 0,
                "warnings": 0,
                "note": "not compared: an earlier stage failed",
            }
        return data


@dataclass
class StaleGolden:
    """Goldens for a version that is not in the tree: a failure until ``--update-golden``
    removes them (status ``updated``)."""

    version: str
    directory: str
    files: list[str]
    command: str
    status: str = FAIL

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CheckReport:
    """The whole gate: one result per version, in version order."""

    manifests: str
    golden: str
    kube_versions: list[str]
    versions: list[VersionResult] = field(default_factory=list)
    update: bool = False
    #: Golden directories of versions not in the tree, in version order.
    stale: list[StaleGolden] = field(default_factory=list)
    #: ``--upstream DIR`` as given, when the fidelity stage ran.
    upstream: str | None = None
    #: The exceptions file read (None: none) and every exception with its matches.
    exceptions_file: str | None = None
    exceptions: list[Applied] = field(default_factory=list)

    @property
    def exception_warnings(self) -> list[str]:
        """One warning per exception that matched no finding."""
        return [
            unmatched_message(a, self.exceptions_file) for a in self.exceptions if not a.matches
        ]

    @property
    def stale_failed(self) -> list[str]:
        return [s.version for s in self.stale if s.status == FAIL]

    @property
    def passed(self) -> bool:
        return (
            bool(self.versions) and all(v.passed for v in self.versions) and not self.stale_failed
        )

    def to_dict(self) -> dict[str, Any]:
        failed = [v.version for v in self.versions if not v.passed]
        data: dict[str, Any] = {
            "report_version": REPORT_VERSION,
            "tool": "calico-render check",
            "manifests": self.manifests,
            "golden": self.golden,
            "kube_versions": list(self.kube_versions),
            "update_golden": self.update,
            "passed": self.passed,
            "summary": {
                "versions": len(self.versions),
                "passed": len(self.versions) - len(failed),
                "failed": len(failed),
                "legacy": sum(1 for v in self.versions if v.legacy),
                "stale_goldens": len(self.stale_failed),
            },
            "versions": [v.to_dict() for v in self.versions],
            "stale_goldens": [s.to_dict() for s in self.stale],
            "exceptions": {
                "file": self.exceptions_file,
                "entries": [a.to_dict() for a in self.exceptions],
                "warnings": self.exception_warnings,
            },
        }
        if self.upstream is not None:
            data["upstream"] = self.upstream
        return data


# --- text ---------------------------------------------------------------------------


def _cell(v: VersionResult, stage: str) -> str:
    status = v.stages.get(stage, SKIP)
    if stage == "capability":
        if status == FAIL:
            return "FAIL"
        return "-" if v.capable is None else ("yes" if v.capable else "legacy")
    return {
        PASS: "ok",
        FAIL: "FAIL",
        LEGACY: "legacy",
        SKIP: "-",
        MISSING: "MISSING",
        UPDATED: "updated",
    }.get(status, status)


def progress_line(v: VersionResult) -> str:
    """The one line a terminal sees as each version finishes."""
    return f"checked {v.version}: {'pass' if v.passed else 'FAIL'}"


def render_text(report: CheckReport) -> str:
    """One row per version, then details of failures, legacy versions and updates."""
    stages = (*STAGES, FIDELITY) if report.upstream is not None else STAGES
    titles = ("TEMPLATES", "CAPABLE", "RULES", "SCHEMA", "GOLDENS", "FIDELITY")
    headers = ("VERSION", "DIALECT", *titles[: len(stages)], "RESULT")
    rows = [
        (v.version, v.dialect, *(_cell(v, s) for s in stages), "pass" if v.passed else "FAIL")
        for v in report.versions
    ]
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    against = f" and upstream {report.upstream}" if report.upstream is not None else ""
    lines = [
        f"calico-render check: {report.manifests} against goldens {report.golden}{against} "
        f"(Kubernetes {', '.join(report.kube_versions)})",
        "",
    ]
    for row in [headers, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for v in report.versions:
        details = _details(v)
        if details:
            lines.append("")
            lines.extend(details)
    for stale in report.stale:
        lines.append("")
        lines.extend(_stale_details(stale))
    lines.extend(_exception_lines(report))
    failed = [v.version for v in report.versions if not v.passed]
    problems = []
    if failed:
        problems.append(
            f"{len(failed)} of {len(report.versions)} versions failed: " + ", ".join(failed)
        )
    if report.stale_failed:
        problems.append(f"{STALE_MESSAGE}: " + ", ".join(report.stale_failed))
    lines.append("")
    if not report.versions:
        lines.append("FAIL: no Calico versions found")
    elif problems:
        lines.append("FAIL: " + "; ".join(problems))
    else:
        lines.append(f"PASS: {len(report.versions)} versions")
    return "\n".join(lines) + "\n"


def _exception_lines(report: CheckReport) -> list[str]:
    """Every exception of the file: what it matched, or a warning that it matched nothing."""
    if not report.exceptions:
        return []
    out = ["", f"Exceptions ({report.exceptions_file}):"]
    for a in report.exceptions:
        e = a.exception
        if a.matches:
            where = ", ".join(f"{v} ({n})" for v, n in a.matches.items())
            out.append(f"  {e.rule}: {e.action} on {where}: {e.reason}")
    out.extend(f"  warning: {w}" for w in report.exception_warnings)
    return out


STALE_MESSAGE = "goldens for a version not in the tree"
#: What check and capability both say of the release rules on a legacy version.
LEGACY_RULES = "release rules not applied"


def _stale_details(stale: StaleGolden) -> list[str]:
    if stale.status == UPDATED:
        return [
            f"{stale.version}:",
            f"  goldens removed from {stale.directory} (a version not in the tree):",
            *(f"    removed: {f}" for f in stale.files),
        ]
    return [
        f"{stale.version}:",
        f"  goldens: FAIL: {stale.directory} holds {STALE_MESSAGE} "
        f"({len(stale.files)} file(s)); remove them, after review, with:",
        f"    {stale.command}",
    ]


def _details(v: VersionResult) -> list[str]:
    out: list[str] = []
    if v.legacy:
        out.append(f"  legacy: not Typha-capable; passes as legacy, {LEGACY_RULES}; missing:")
        out.extend(f"    - {item}" for item in v.missing or ["no Typha templates"])
        for s in v.scenarios:
            if s.decision.get("compatibility"):
                out.append(f"  {s.name}: {s.operation} compatibility path, Typha off")
    if v.stages["capability"] == FAIL:
        out.append(
            "  capability: Typha templates present but incomplete; neither capable nor "
            "legacy, so rules, schema and goldens are not checked"
        )
    fid = v.fidelity
    if fid is not None and fid["note"]:
        out.append(f"  {FIDELITY}: {fid['note']}")
    elif fid is not None and (fid["errors"] or fid["warnings"]):
        out.append(
            f"  {FIDELITY}: {fid['errors']} error(s), {fid['warnings']} warning(s) against "
            f"{fid['upstream']} ({', '.join(s['name'] for s in fid['scenarios'])})"
        )
    for f in v.findings:
        if f.severity != "info":
            out.append(f"  {f.stage}: {f.describe()}")
    g = v.golden
    if g.status == MISSING:
        out.append(f"  goldens: none in {g.directory}; create them with:")
        out.append(f"    {g.command}")
    elif g.status == FAIL and not g.files:
        out.append(f"  goldens: could not be compared with {g.directory} (see above)")
    elif g.status == FAIL:
        out.append(f"  goldens: {len(g.files)} file(s) differ from {g.directory}:")
        for c in g.changes:
            scen = f" [{', '.join(c.scenarios)}]" if c.scenarios else ""
            at = f"{c.file}: " if c.file else ""
            out.append(f"    {at}{c.describe()}{scen}")
        out.append(f"  update them, after review, with: {g.command}")
        out.extend("    " + line if line else "" for line in g.diff.splitlines())
    elif g.status == UPDATED:
        out.append(f"  goldens updated in {g.directory}:")
        out.extend(f"    {f.change}: {f.path}" for f in g.files)
    return [f"{v.version}:", *out] if out else []


# --- JSON ---------------------------------------------------------------------------


def render_json(report: CheckReport) -> str:
    """The report as JSON, checked against ``schemas/check-report.schema.json``."""
    data = report.to_dict()
    schemas.validate_output(CHECK_REPORT_SCHEMA, data)
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# --- JUnit --------------------------------------------------------------------------


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _case(
    suite: ET.Element,
    classname: str,
    name: str,
    failure: str | None,
    message: str = "",
    skipped: str | None = None,
    seconds: float = 0.0,
) -> None:
    taken = {c.get("name") for c in suite.findall("testcase")}
    unique, n = name, 1
    while unique in taken:  # CI tools key test history on the name
        n += 1
        unique = f"{name} #{n}"
    case = ET.SubElement(
        suite, "testcase", classname=classname, name=unique, time=_seconds(seconds)
    )
    if failure is not None:
        el = ET.SubElement(case, "failure", message=message or "failed", type="failure")
        el.text = failure
    elif skipped is not None:
        ET.SubElement(case, "skipped", message=skipped)


def _diffs(v: VersionResult, scenario: str | None) -> str:
    """The diffs of the golden files ``scenario`` renders (None: that no scenario renders)."""
    from renderer.checks.golden import owners

    names = [s.name for s in v.scenarios]
    return "".join(
        diff
        for path, diff in v.golden.file_diffs.items()
        if (scenario in owners(path, names) if scenario else not owners(path, names))
    ).rstrip("\n")


def _exception_properties(suite: ET.Element, v: VersionResult) -> None:
    if not v.exceptions:
        return
    props = ET.SubElement(suite, "properties")
    for rule, severity, reason, n in v.exceptions:
        action = "skipped" if severity is None else f"downgraded to {severity}"
        ET.SubElement(
            props,
            "property",
            name=f"exception {rule}",
            value=f"{action} ({n} finding(s)): {reason}",
        )


def _version_case(suite: ET.Element, v: VersionResult) -> None:
    """The version's testcase: its failed stages, non-rule errors and orphan changes."""
    bad = [s for s in v.stage_names if v.stages.get(s) not in _GOOD]
    errors = [f.describe() for f in v.findings if f.severity == "error" and f.stage != "rules"]
    orphans = [c.describe() for c in v.golden.changes if not c.scenarios]
    orphan_diff = _diffs(v, None)
    body = "\n".join(
        [f"stage {s}: {v.stages[s]}" for s in bad]
        + errors
        + ([v.golden.command] if v.golden.status == MISSING else [])
        + orphans
        + (["", orphan_diff] if orphan_diff else [])
    )
    _case(
        suite,
        f"calico.{v.version}",
        v.version,
        body if bad else None,
        message="failed stages: " + ", ".join(bad) if bad else "",
        seconds=v.seconds,
    )


def _scenario_cases(suite: ET.Element, v: VersionResult) -> None:
    """A testcase per scenario, failing with the diffs of the golden files it renders."""
    for s in v.scenarios:
        scen_fail = s.golden in (FAIL, MISSING)
        text = "\n".join(s.changes) if s.changes else f"golden {s.golden}"
        if s.golden == MISSING:
            text += "\ncreate them with: " + v.golden.command
        elif scen_fail:
            diff = _diffs(v, s.name)
            if diff:
                text += "\n\n" + diff
        _case(
            suite,
            f"calico.{v.version}",
            f"{v.version} {s.name}",
            text if scen_fail else None,
            message=f"golden {s.golden}",
        )


def _rule_cases(suite: ET.Element, v: VersionResult) -> None:
    """A failing testcase per rule error."""
    for f in v.findings:
        if f.stage == "rules" and f.severity == "error":
            _case(
                suite,
                f"calico.{v.version}",
                f"{v.version} rule {f.rule}"
                + (f" {f.object}" if f.object else "")
                + (f" {f.field}" if f.field else ""),
                f.describe(),
                message=f.message,
            )


def _count(suite: ET.Element, seconds: float) -> tuple[int, int, int]:
    """Set the suite's totals; returns (tests, failures, skipped)."""
    cases = suite.findall("testcase")
    n_fail = sum(1 for c in cases if c.find("failure") is not None)
    n_skip = sum(1 for c in cases if c.find("skipped") is not None)
    for key, value in (("tests", len(cases)), ("failures", n_fail), ("errors", 0)):
        suite.set(key, str(value))
    suite.set("skipped", str(n_skip))
    suite.set("time", _seconds(seconds))
    return len(cases), n_fail, n_skip


def _stale_suite(root: ET.Element, stale: StaleGolden) -> tuple[int, int, int]:
    suite = ET.SubElement(root, "testsuite", name=f"calico {stale.version}")
    failed = stale.status == FAIL
    body = "\n".join(
        [f"{STALE_MESSAGE}: {stale.directory}", *stale.files, f"remove them with: {stale.command}"]
    )
    _case(
        suite,
        f"calico.{stale.version}",
        f"{stale.version} goldens",
        body if failed else None,
        message=STALE_MESSAGE,
    )
    return _count(suite, 0.0)


def render_junit(report: CheckReport) -> str:
    """One testsuite per version: a testcase for the version, each scenario, each failed rule.

    A scenario's failure carries only the diffs of the golden files it renders
    (``common/`` is every scenario's, ``a+b/`` is a's and b's); changes to golden files
    no scenario renders go to the version's testcase.
    """
    root = ET.Element("testsuites", name="calico-render check")
    totals = [0, 0, 0]
    for v in report.versions:
        suite = ET.SubElement(root, "testsuite", name=f"calico {v.version}")
        _exception_properties(suite, v)
        _version_case(suite, v)
        _scenario_cases(suite, v)
        _rule_cases(suite, v)
        totals = [a + b for a, b in zip(totals, _count(suite, v.seconds), strict=True)]
    for stale in report.stale:
        totals = [a + b for a, b in zip(totals, _stale_suite(root, stale), strict=True)]
    for key, value in (("tests", totals[0]), ("failures", totals[1]), ("errors", 0)):
        root.set(key, str(value))
    root.set("skipped", str(totals[2]))
    root.set("time", _seconds(sum(v.seconds for v in report.versions)))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "junit": render_junit}


def render(report: CheckReport, fmt: str) -> str:
    return RENDERERS[fmt](report)


# --- the release report (``capability``) ---------------------------------------------


@dataclass(frozen=True)
class ReleaseReport:
    """One version checked for release: the Typha contract, the rules on its Typha-on
    render, strict schemas per Kubernetes version, context, fidelity and exceptions.

    A version without Typha is never release-ready: it cannot serve clusters above 50
    nodes.
    """

    capability: CapabilityReport
    rules: tuple[Finding, ...]
    schema: tuple[Finding, ...]
    kube_versions: tuple[str, ...]
    nodes: int
    #: The comparison with upstream; its errors block the release.
    fidelity: FidelityResult | None = None
    #: Keys the templates read that no BKE config can set (warnings, never blocking).
    context: tuple[Finding, ...] = ()
    #: The exceptions file read (None: none) and every exception with its matches.
    exceptions_file: str | None = None
    exceptions: tuple[Applied, ...] = field(default=())

    @property
    def release_ready(self) -> bool:
        faithful = self.fidelity is None or self.fidelity.errors == 0
        return (
            self.capability.capable
            and not blocking(self.rules)
            and not blocking(self.schema)
            and faithful
        )

    @property
    def exception_warnings(self) -> list[str]:
        """One warning per exception that matched no finding."""
        return [
            unmatched_message(a, self.exceptions_file) for a in self.exceptions if not a.matches
        ]

    def to_dict(self) -> dict[str, Any]:
        from renderer.k8s.schema import finding_dict

        out = self.capability.to_dict()
        out["contract"] = [_nulls(item, ("detail",)) for item in out["contract"]]
        out["rules"] = {
            "nodes": self.nodes,
            "applied": not self.capability.legacy,
            "findings": [rule_dict(f) for f in self.rules],
        }
        out["schema"] = {
            v: {
                "errors": sum(1 for f in blocking(self.schema) if f.kube_versions[0] == v),
                "findings": [
                    _nulls(finding_dict(f), ("namespace", "path", "file", "line"))
                    for f in self.schema
                    if f.kube_versions[0] == v
                ],
            }
            for v in self.kube_versions
        }
        out["context"] = {"findings": [context_dict(f) for f in self.context]}
        out["kube_versions"] = list(self.kube_versions)
        if self.fidelity is not None:
            out["fidelity"] = self.fidelity.to_dict(findings=True)
        out["exceptions"] = {
            "file": self.exceptions_file,
            "entries": [a.to_dict() for a in self.exceptions],
            "warnings": self.exception_warnings,
        }
        out["release_ready"] = self.release_ready
        schemas.validate_output(schemas.CAPABILITY_REPORT, out)
        return out


def _nulls(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``data`` with the unset values of ``keys`` ("" or line 0) as null."""
    return {k: (None if k in keys and v in ("", 0) else v) for k, v in data.items()}


def context_dict(f: Finding) -> dict[str, Any]:
    """A context finding as the capability report carries it."""
    return {
        "rule": f.rule,
        "severity": f.severity,
        "file": f.location,
        "key": f.details["key"],
        "message": f.message,
    }
