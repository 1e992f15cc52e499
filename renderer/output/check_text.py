"""The text form of the check report: a row per version, then the details of failures,
legacy versions, goldens and exceptions, then the verdict line."""

from __future__ import annotations

from renderer.checks.exceptions import Applied
from renderer.checks.report import (
    FAIL,
    GOLDENS_ERROR,
    LEGACY,
    MISSING,
    NEW,
    NOT_APPLICABLE,
    PASS,
    SKIP,
    STAGES,
    UPDATED,
    CheckReport,
    StaleGolden,
    VersionResult,
)
from renderer.finding import (
    CAPABILITY,
    COVERAGE,
    ERROR,
    FIDELITY,
    GOLDENS,
    RULES,
    SCHEMA,
    TEMPLATES,
    WARNING,
)
from renderer.manifests.tree import ADDON

#: What the text and JUnit forms say of goldens left for a version not in the tree.
STALE_MESSAGE = "goldens for a version not in the tree"
#: What check and capability both say of the release rules on a legacy version.
LEGACY_RULES = "release rules not applied"


def _cell(v: VersionResult, stage: str) -> str:
    if stage not in v.stages:
        return NOT_APPLICABLE
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
        NEW: "new",
    }.get(status, status)


def progress_line(v: VersionResult) -> str:
    """The one line a terminal sees as each version finishes."""
    return f"checked {v.label}: {'pass' if v.passed else 'FAIL'}"


#: Each status column's title.
TITLES = {
    TEMPLATES: "TEMPLATES",
    CAPABILITY: "CAPABLE",
    RULES: "RULES",
    SCHEMA: "SCHEMA",
    COVERAGE: "COVERAGE",
    GOLDENS: "GOLDENS",
    FIDELITY: "FIDELITY",
}


def render(report: CheckReport) -> str:
    """One row per version (grouped by addon, Calico first, when the tree has others),
    then details of failures, legacy versions and updates."""
    stages = (*STAGES, FIDELITY) if report.upstream is not None else STAGES
    grouped = not report.only_calico
    first = ("ADDON",) if grouped else ()
    headers = (*first, "VERSION", "DIALECT", *(TITLES[s] for s in stages), "RESULT")
    rows = [
        (
            *((v.addon,) if grouped else ()),
            v.version,
            v.dialect,
            *(_cell(v, s) for s in stages),
            "pass" if v.passed else "FAIL",
        )
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
    if grouped:
        lines.extend(_stages_line(report))
        lines.extend(addon_lines(report))
    for v in report.versions:
        details = _details(v)
        if details:
            lines.append("")
            lines.extend(details)
    lines.extend(_rewritten_line(report.versions))
    lines.extend(new_goldens_line(report))
    for stale in report.stale:
        lines.append("")
        lines.extend(_stale_details(stale))
    lines.extend(_exception_lines(report))
    lines.append("")
    lines.append(verdict_line(report))
    return "\n".join(lines) + "\n"


def verdict_line(report: CheckReport) -> str:
    """The last line: PASS with what was checked, or FAIL with what failed."""
    failed = [v.label for v in report.versions if not v.passed]
    count = len(report.versions)
    of = "" if report.only_calico else f" of {len(report.addons)} addons"
    problems = []
    if failed:
        problems.append(f"{len(failed)} of {count} versions{of} failed: " + ", ".join(failed))
    if report.stale_failed:
        problems.append(f"{STALE_MESSAGE}: " + ", ".join(report.stale_failed))
    if not report.versions:
        return (
            "FAIL: no versions found"
            if not report.only_calico
            else ("FAIL: no Calico versions found")
        )
    if problems:
        return "FAIL: " + "; ".join(problems)
    return f"PASS: {count} versions{of}"


def _stages_line(report: CheckReport) -> list[str]:
    """Which stages ran for which addon (the columns say it per version too)."""
    calico = [v for v in report.versions if v.addon == ADDON]
    others = [v for v in report.versions if v.addon != ADDON]
    out = []
    if calico:
        ran = ", ".join(calico[0].ran or calico[0].stage_names)
        out.append(f"stages: calico: {ran} (rules: Calico's release rules)")
    if others:
        out.append(
            f"stages: the other addons: {', '.join(others[0].ran or others[0].stage_names)} "
            "(rules: the object "
            "rules of any addon; rendered with the controller's context from the cluster; "
            "n/a: Calico's Typha contract)"
        )
    return out


def addon_lines(report: CheckReport) -> list[str]:
    """One line per addon: its versions, its findings by severity, the objects no schema
    checked (and of how many kinds), its verdict."""
    out = [""]
    width = max(len(a) for a in report.addons)
    for addon in report.addons:
        mine = report.of_addon(addon)
        failed = sum(1 for v in mine if not v.passed)
        found = [f for v in mine for f in v.findings]
        errors = sum(1 for f in found if f.severity == ERROR)
        warnings = sum(1 for f in found if f.severity == WARNING)
        verdict = "pass" if not failed else f"FAIL ({failed} failed)"
        seen = [v.objects for v in mine if v.objects]
        unchecked = sum(o["not_checked"] for o in seen)
        kinds = {k for o in seen for k in o["not_checked_kinds"]}
        gap = (
            f"; not checked: {unchecked} object(s) of {len(kinds)} kind(s) without a schema"
            if unchecked
            else ""
        )
        out.append(
            f"{addon.ljust(width)}  {len(mine)} version(s), {errors} error(s), "
            f"{warnings} warning(s){gap}: {verdict}"
        )
    return out


#: Up to how many addons a line names (the JSON report names them all).
NAMED_ADDONS = 5


def new_goldens_line(report: CheckReport) -> list[str]:
    """One line for the addons whose goldens a tree adopted for Calico only has yet to
    write (not a failure until they exist): the command that writes them."""
    new = report.new_goldens
    if not new:
        return []
    command = next(v.golden.command for v in report.versions if v.golden.status == NEW)
    named = f" ({', '.join(new)})" if len(new) <= NAMED_ADDONS else ""
    return [
        "",
        f"goldens: none yet for {len(new)} addon(s) besides Calico{named}, the tree's goldens "
        f"being Calico's alone; write them, after review, with: {command}",
    ]


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
            f"{stale.label}:",
            f"  goldens removed from {stale.directory} (a version not in the tree):",
            *(f"    removed: {f}" for f in stale.files),
        ]
    return [
        f"{stale.label}:",
        f"  goldens: FAIL: {stale.directory} holds {STALE_MESSAGE} "
        f"({len(stale.files)} file(s)); remove them, after review, with:",
        f"    {stale.command}",
    ]


def _legacy_line(versions: list[VersionResult]) -> list[str]:
    """One line for the versions that pass as legacy (their Typha-on renders hold
    nothing of Typha, so every contract item is missing; JSON and HTML list them)."""
    legacy = [v.label for v in versions if v.legacy]
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
        f"s1+s2/) for {', '.join(v.label for v in done)}: {files} file(s) written or removed",
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
    if v.stages.get(CAPABILITY) == FAIL:
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
    return [f"{v.label}:", *out] if out else []
