"""The text form of the check report: a row per version, then the details of failures,
legacy versions, goldens and exceptions, then the verdict line."""

from __future__ import annotations

from renderer.checks.report import (
    FAIL,
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
from renderer.finding import CAPABILITY, COVERAGE, FIDELITY

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
    if not report.exceptions and not report.exceptions_notes:
        return []
    out = ["", f"Exceptions ({report.exceptions_file}):"]
    for a in report.exceptions:
        e = a.exception
        if a.matches:
            where = ", ".join(f"{v} ({n})" for v, n in a.matches.items())
            out.append(f"  {e.rule}: {e.action} on {where}: {e.reason}")
    out.extend(f"  warning: {w}" for w in report.exception_warnings)
    out.extend(f"  note: {n}" for n in report.exception_notes)
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


def _details(v: VersionResult) -> list[str]:
    out: list[str] = []
    if v.legacy:
        out.append(f"  legacy: not Typha-capable; passes as legacy, {LEGACY_RULES}; missing:")
        out.extend(f"    - {item}" for item in v.missing or ["no Typha templates"])
        for s in v.scenarios:
            if s.decision.get("compatibility"):
                out.append(f"  {s.name}: {s.operation} compatibility path, Typha off")
    if v.stages[CAPABILITY] == FAIL:
        out.append(
            "  capability: Typha templates present but incomplete: neither capable nor "
            "legacy, so installs above 50 nodes are refused; every other stage still ran"
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
            out.append(f"  {f}")
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
