"""The text form of the check report: a row per version, then the details of failures,
legacy versions, goldens and exceptions, then the verdict line."""

from __future__ import annotations

from renderer.checks.exceptions import Applied
from renderer.checks.report import (
    FAIL,
    GOLDENS_ERROR,
    LEGACY,
    MISSING,
    PASS,
    SKIP,
    STAGES,
    UPDATED,
    CheckReport,
    StaleGolden,
    VersionResult,
)
from renderer.finding import CAPABILITY, COVERAGE, FIDELITY, GOLDENS

#: What the text and JUnit forms say of goldens left for a version not in the tree.
STALE_MESSAGE = "goldens for a version not in the tree"
#: What check and capability both say of the release rules on a legacy version.
LEGACY_RULES = "release rules not applied"


def _cell(v: VersionResult, stage: str) -> str:
    status = v.stages.get(stage, SKIP)
    if stage == COVERAGE and v.coverage is not None:
        # branches rendered of the branches the templates hold
        counts = f"{v.coverage['covered']}/{v.coverage['branches']}"
        return f"FAIL {counts}" if status == FAIL else counts
    if stage == CAPABILITY:
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


def render(report: CheckReport) -> str:
    """One row per version, then details of failures, legacy versions and updates."""
    stages = (*STAGES, FIDELITY) if report.upstream is not None else STAGES
    titles = ("TEMPLATES", "CAPABLE", "RULES", "SCHEMA", "COVERAGE", "GOLDENS", "FIDELITY")
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
    lines.extend(_legacy_line(report.versions))
    for v in report.versions:
        details = _details(v)
        if details:
            lines.append("")
            lines.extend(details)
    lines.extend(_rewritten_line(report.versions))
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
    """Every exception of the file: what it matched, or a warning that it matched
    nothing; then the deviations from upstream that covered fidelity findings."""
    out: list[str] = []
    warnings, notes = report.exception_warnings, report.exception_notes
    if report.rule_exceptions or warnings or notes:
        out += ["", f"Exceptions ({report.exceptions_file}):"]
        for a in report.rule_exceptions:
            e = a.exception
            if a.matches:
                where = ", ".join(f"{v} ({n})" for v, n in a.matches.items())
                out.append(f"  {e.rule}: {e.action} on {where}: {e.reason}")
        out.extend(f"  warning: {w}" for w in warnings)
        out.extend(f"  note: {n}" for n in notes)
    deviations = deviation_lines(report.exceptions_file, report.deviations)
    return [*out, "", *deviations] if deviations else out


def deviation_lines(file: str | None, deviations: list[Applied]) -> list[str]:
    """The declared deviations from upstream that covered fidelity findings, each with
    what it covers, where, and why (none: nothing, so a report without ``--upstream``
    says nothing of them)."""
    matched = [a for a in deviations if a.matches]
    if not matched:
        return []
    total = sum(n for a in matched for n in a.matches.values())
    out = [f"Deviations from upstream ({file}): {total} fidelity finding(s) declared"]
    for a in matched:
        e = a.exception
        where = ", ".join(f"{v} ({n})" for v, n in a.matches.items())
        out.append(f"  {', '.join((*e.objects, *e.fields))} on {where}: {e.reason}")
    return out


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


def _legacy_line(versions: list[VersionResult]) -> list[str]:
    """One line for the versions that pass as legacy (their Typha-on renders hold
    nothing of Typha, so every contract item is missing; JSON and HTML list them)."""
    legacy = [v.version for v in versions if v.legacy]
    if not legacy:
        return []
    compat = any(s.decision.get("compatibility") for v in versions if v.legacy for s in v.scenarios)
    path = "; upgrades keep Typha off" if compat else ""
    return [f"legacy: {', '.join(legacy)} (no Typha templates: {LEGACY_RULES}{path})"]


def _rewritten_line(versions: list[VersionResult]) -> list[str]:
    """One line for every version whose goldens an update rewrote from the merged
    layout of earlier releases (``common/``, ``s1+s2/``) to one directory per scenario."""
    done = [v for v in versions if v.golden.status == UPDATED and v.golden.merged]
    if not done:
        return []
    files = sum(len(v.golden.files) for v in done)
    return [
        "",
        f"goldens rewritten one directory per scenario (from the merged layout: common/, "
        f"s1+s2/) for {', '.join(v.version for v in done)}: {files} file(s) written or removed",
    ]


def _details(v: VersionResult) -> list[str]:
    """What a reader must see of a version: what changed against its goldens first
    (one line per field, at its template line), then every other finding."""
    out: list[str] = []
    g = v.golden
    goldens = [f for f in v.findings if f.stage == GOLDENS and f.severity != "info"]
    out.extend(f"  {f}" for f in goldens)
    if g.status == FAIL and g.command and any(f.rule != GOLDENS_ERROR for f in goldens):
        out.append(f"  goldens: update them, after review, with: {g.command}")
    elif g.status == PASS and g.files and g.command:
        out.append(f"  goldens: rewrite them with: {g.command}")
    elif g.status == UPDATED and not g.merged:
        out.append(f"  goldens updated in {g.directory}:")
        out.extend(f"    {f.change}: {f.path}" for f in g.files)
    if v.stages[CAPABILITY] == FAIL:
        out.append(
            "  capability: Typha templates present but incomplete: neither capable nor "
            "legacy, so installs above 50 nodes are refused; every other stage still ran"
        )
    fid = v.fidelity
    if fid is not None and fid["note"]:
        out.append(f"  {FIDELITY}: {fid['note']}")
    elif fid is not None and (fid["errors"] or fid["warnings"]):
        declared = f", {fid['deviations']} declared deviation(s)" if fid.get("deviations") else ""
        out.append(
            f"  {FIDELITY}: {fid['errors']} error(s), {fid['warnings']} warning(s){declared} "
            f"against {fid['upstream']} ({', '.join(s['name'] for s in fid['scenarios'])})"
        )
    out.extend(f"  {f}" for f in v.findings if f.severity != "info" and f.stage != GOLDENS)
    return [f"{v.version}:", *out] if out else []
