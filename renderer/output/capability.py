"""The release check of one version (``capability``) as a document: JSON
(``capability-report.schema.json``) and text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from renderer.checks.report import ReleaseReport
from renderer.data import schemas
from renderer.finding import Finding, blocking, merge_findings
from renderer.k8s.schema import NOT_CHECKED_RULE
from renderer.output import Document, Findings
from renderer.output.check_text import LEGACY_RULES, deviation_lines
from renderer.output.findings import findings_list, nulls, report_header, severity_counts


def _mark(ok: bool) -> str:
    return "ok     " if ok else "MISSING"


def render(report: ReleaseReport) -> str:
    """The capability report as people read it: the contract, then a block per stage,
    then the verdict line."""
    cap = report.capability
    lines = [
        f"calico-render capability: {report.manifests}",
        f"Calico {cap.version} ({cap.dialect}: {', '.join(cap.files)})",
        f"Typha-capable: {'yes' if cap.capable else f'no ({cap.verdict})'}",
    ]
    for item in cap.items:
        detail = f" -- {item.detail}" if item.detail and not item.ok else ""
        at = "; ".join(
            " ".join(
                x for x in (str(f.object), f.field, f"({f.file}:{f.line})" if f.file else "") if x
            )
            for f in report.contract
            if f.rule == item.id and f.object
        )
        lines.append(f"  {_mark(item.ok)} {item.description}{detail}" + (f" at {at}" if at else ""))
    errs = sum(1 for f in report.rules if f.severity == "error")
    warns = len(report.rules) - errs
    if cap.legacy:
        lines.append(f"Release rules: {LEGACY_RULES} (legacy: not Typha-capable)")
    else:
        lines.append(
            f"Release rules ({', '.join(report.scenarios) or f'Typha on, {report.nodes} nodes'}): "
            f"{errs} error(s), {warns} warning(s)"
        )
    lines.extend(f"  {f}" for f in report.rules)
    cov = report.coverage_counts
    if cov:
        lines.append(
            f"Coverage: {cov['scenarios']} scenario(s) render {cov['covered']} of "
            f"{cov['branches']} template branch(es)"
            + (f"; not analysed: {', '.join(cov['not_analysed'])}" if cov["not_analysed"] else "")
        )
        lines.extend(f"  {f}" for f in report.coverage)
    if report.context:
        lines.append(f"Context (what no BKE config can set): {len(report.context)} warning(s)")
        lines.extend(f"  {u}" for u in report.context)
    found = merge_findings(report.schema)
    n = len(blocking(found))
    skipped = sum(1 for f in found if f.rule == NOT_CHECKED_RULE)
    extra = f", {skipped} custom resource(s) not schema-checked" if skipped else ""
    kube = ", ".join(report.kube_versions)
    lines.append(f"Schema, Kubernetes {kube} (strict): {n} error(s){extra}")
    lines.extend(f"  {f}" for f in found)
    fid = report.fidelity
    if fid is not None and fid.note:
        lines.append(f"Upstream fidelity: {fid.note}")
    elif fid is not None:
        fid_warns = len(fid.findings) - fid.errors
        scen = ", ".join(s["name"] for s in fid.scenarios)
        lines.append(
            f"Upstream fidelity ({fid.upstream}; {scen}): {fid.errors} error(s), "
            f"{fid_warns} warning(s)"
        )
        lines.extend(f"  {f}" for f in fid.findings)
    warnings, notes = report.exception_warnings, report.exception_notes
    if report.rule_exceptions or warnings or notes:
        lines.append(f"Exceptions ({report.exceptions_file}):")
        for a in report.rule_exceptions:
            if a.matches:
                e = a.exception
                n = sum(a.matches.values())
                lines.append(f"  {e.rule}: {e.action} ({n} finding(s)): {e.reason}")
        lines.extend(f"  warning: {w}" for w in warnings)
        lines.extend(f"  note: {n}" for n in notes)
    lines.extend(deviation_lines(report.exceptions_file, list(report.deviations)))
    ready = report.release_ready
    if ready or cap.capable:
        why = "" if fid is None or not fid.errors else " (deviates from upstream)"
    elif cap.legacy:
        why = " (not Typha-capable: unusable above 50 nodes)"
    else:
        why = " (Typha templates incomplete)"
    lines.append(f"Release-ready: {'yes' if ready else 'no'}{why}")
    return "".join(f"{line}\n" for line in lines)


def release_data(report: ReleaseReport) -> dict[str, Any]:
    """The release report's JSON (``capability --format json``): every stage's findings
    in one list, identical ones merged."""
    findings = report.findings
    out = {**report_header("capability"), **report.capability.to_dict()}
    out["manifests"] = report.manifests
    out["contract"] = [nulls(item, ("detail",)) for item in out["contract"]]
    out["rules"] = {"nodes": report.nodes, "applied": not report.capability.legacy}
    if report.scenarios:
        out["rules"]["scenarios"] = list(report.scenarios)
    if report.coverage_counts:
        out["coverage"] = dict(report.coverage_counts)
    out["kube_versions"] = list(report.kube_versions)
    if report.fidelity is not None:
        out["fidelity"] = report.fidelity.to_dict()
    out["summary"] = severity_counts(findings)
    out["findings"] = findings_list(findings)
    out["exceptions"] = {
        "file": report.exceptions_file,
        "entries": [a.to_dict() for a in report.rule_exceptions],
        "deviations": [a.to_dict() for a in report.deviations],
        "warnings": report.exception_warnings,
        "notes": report.exception_notes,
    }
    out["release_ready"] = report.release_ready
    return out


@dataclass(frozen=True)
class CapabilityDocument(Document, Findings):
    """One version's Typha contract, release rules, schemas, fidelity and verdict."""

    schema = schemas.CAPABILITY_REPORT
    sort_keys = True

    report: ReleaseReport

    @property
    def subject(self) -> str:
        """The version directory, relative to ROOT (where a missing object belongs)."""
        return f"kubernetes/calico/{self.report.capability.version}"

    def annotations(self) -> list[Finding]:
        return self.report.findings

    def data(self) -> dict[str, Any]:
        return release_data(self.report)

    def text(self) -> str:
        return render(self.report)
