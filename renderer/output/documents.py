"""The documents commands print: each knows its JSON data, the published schema that
data meets, and its text form (see :class:`renderer.output.Document`).

Building a document does no I/O; warnings meant for stderr are kept on the document
(``warnings``) for the command to print. Unset values in the JSON forms are null.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from renderer.calico import policy
from renderer.data import schemas
from renderer.finding import Finding, notes
from renderer.output import Document, Findings, SortedDocument
from renderer.output.findings import (
    findings_list,
    report_header,
    scale_details,
    severity_counts,
)
from renderer.output.suites import Suites, TestSuite, finding_suites

if TYPE_CHECKING:
    from renderer.api import ExplainResult, PlanResult, TyphaResult, Validation, VersionsResult
    from renderer.calico.capability import CapabilityReport
    from renderer.calico.images import ImageList
    from renderer.calico.plan.model import Plan
    from renderer.calico.scale import AdviceReport, Fact
    from renderer.manifests.tree import VersionDir

VERSIONS = "versions.schema.json"
TYPHA = "typha.schema.json"
VALIDATE = "validate.schema.json"
IMAGES = "images.schema.json"


# --- versions ------------------------------------------------------------------------------


def version_entry(
    version: VersionDir,
    cap: CapabilityReport | None,
    error: str | None = None,
    keys: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One version of ``versions``: ``cap`` None when it failed to render (``error``)."""
    typha = "error" if cap is None else ("capable" if cap.capable else "not capable")
    return {
        "version": version.name,
        "dialect": "/".join(version.dialects),
        "files": [f.name for f in version.files],
        "typha": typha,
        "legacy": None if cap is None else cap.legacy,
        "verdict": None if cap is None or cap.capable else cap.verdict,
        "keys": None if keys is None else sorted(keys),
        "error": error,
    }


def versions_doc(manifests: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {**report_header("versions"), "manifests": manifests, "versions": entries}


@dataclass(frozen=True)
class VersionsDocument(SortedDocument):
    """The versions under a tree with their Typha capability (and context keys)."""

    schema = VERSIONS

    manifests: str
    entries: list[dict[str, Any]]

    def data(self) -> dict[str, Any]:
        return versions_doc(self.manifests, self.entries)

    @classmethod
    def of(cls, result: VersionsResult) -> VersionsDocument:
        entries = [version_entry(e.version, e.capability, e.error, e.keys) for e in result.versions]
        return cls(result.manifests, entries)

    @property
    def warnings(self) -> list[str]:
        """A version that failed to render, or is not capable and not a legacy one."""
        out = []
        for e in self.entries:
            if e["error"] is not None:
                out.append(f"{e['version']}: {e['error']}")
            elif e["verdict"] is not None and not e["legacy"]:
                out.append(f"{e['version']}: {e['verdict']}")
        return out

    def text(self) -> str:
        lines = [
            f"calico-render versions: {self.manifests}",
            f"{'version':<10} {'dialect':<7} {'typha':<11} files",
        ]
        for e in self.entries:
            line = f"{e['version']:<10} {e['dialect']:<7} {e['typha']:<11} {', '.join(e['files'])}"
            if e["keys"] is not None:
                line += "\n    keys: " + ", ".join(e["keys"])
            lines.append(line)
        return "".join(f"{line}\n" for line in lines)


# --- typha ---------------------------------------------------------------------------------


def _decision(d: policy.TyphaDecision) -> dict[str, Any]:
    return {
        "nodes": d.nodes,
        **d.context(),
        "reason": d.reason,
        "warnings": list(d.warnings),
        "capped": bool(d.warnings),
    }


@dataclass(frozen=True)
class TyphaDocument(SortedDocument):
    """The Typha decision for one node count, or (``nodes`` None) the boundary table."""

    schema = TYPHA

    nodes: int | None
    decisions: tuple[policy.TyphaDecision, ...]

    @classmethod
    def of(cls, result: TyphaResult) -> TyphaDocument:
        return cls(result.nodes, result.decisions)

    @property
    def warnings(self) -> list[str]:
        """The one decision's warnings (the table marks capped rows instead)."""
        return [] if self.nodes is None else list(self.decisions[0].warnings)

    def data(self) -> dict[str, Any]:
        table = [_decision(d) for d in self.decisions]
        return {
            **report_header("typha"),
            "decision": None if self.nodes is None else table[0],
            "table": None if self.nodes is not None else table,
        }

    def text(self) -> str:
        if self.nodes is not None:
            d = self.decisions[0]
            lines = [
                f"nodes:         {d.nodes}",
                f"allowTypha:    {d.context()['allowTypha']}",
                f"typhaReplicas: {d.context()['typhaReplicas']}",
                f"why:           {d.reason}",
            ]
        else:
            lines = [f"{'nodes':>6}  {'allowTypha':<10}  typhaReplicas"]
            for d in self.decisions:
                mark = "  (capped: capacity assessment needed)" if d.warnings else ""
                lines.append(f"{d.nodes:>6}  {d.context()['allowTypha']:<10}  {d.replicas}{mark}")
        return "".join(f"{line}\n" for line in lines)


# --- validate ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidateDocument(SortedDocument, Suites, Findings):
    """Strict schema findings of manifest files: one line each in text (the same
    findings, counted alike, in every format); ``summary`` is the count line."""

    schema = VALIDATE
    suites_name = "calico-render validate"

    result: Validation

    @property
    def errors(self) -> int:
        return sum(1 for f in self.result.findings if f.severity == "error")

    def summary(self) -> str:
        """kubeconform's summary line, with the Kubernetes versions and finding counts."""
        r, n = self.result.resources(), len(self.result.files)
        c = severity_counts(self.result.findings)
        return (
            f"Summary: {self.result.objects} resource(s) found in {n} file(s) on Kubernetes "
            f"{', '.join(self.result.kube_versions)} - Valid: {r['valid']}, Invalid: "
            f"{r['invalid']}, Skipped: {r['skipped']}, Not checked: {r['not_checked']}; "
            f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info"
        )

    def data(self) -> dict[str, Any]:
        v = self.result
        return {
            **report_header("validate"),
            "files": list(v.files),
            "kube_versions": list(v.kube_versions),
            "objects": v.objects,
            "errors": self.errors,
            "resources": v.resources(),
            "summary": severity_counts(v.findings),
            "findings": findings_list(v.findings),
        }

    def text(self) -> str:
        return "".join(f"{f}\n" for f in self.result.findings)

    def annotations(self) -> list[Finding]:
        return list(self.result.findings)

    def testsuites(self) -> list[TestSuite]:
        """A suite per file, a failing case per error finding (the same count as text
        and JSON); a file without errors is one passing case."""
        return finding_suites("validate", self.result.files, self.result.findings)


# --- images, plan, advise, explain-context -------------------------------------------------


@dataclass(frozen=True)
class ImagesDocument(Document):
    """What a node pre-pulls: one image a line."""

    schema = IMAGES

    result: ImageList
    #: What the command warns of (an image whose tag is not the version's).
    warnings: tuple[str, ...] = ()

    def data(self) -> dict[str, Any]:
        found = notes("images", "image-tag-mismatch", self.warnings)
        return {
            **report_header("images"),
            **self.result.to_dict(),
            "findings": findings_list(found),
        }

    def text(self) -> str:
        return "".join(f"{image}\n" for image in self.result.images)


_CHANGE = {"scale": "scale change"}


def _nodes(count: int) -> str:
    return f"{count} node" if count == 1 else f"{count} nodes"


def _describe_side(side: dict[str, Any]) -> str:
    typha = f"Typha x{side['typhaReplicas']}" if side["typha"] else "no Typha"
    return f"{side['version']} ({_nodes(side['nodes'])}, {typha})"


def nothing_to_change(data: dict[str, Any]) -> bool:
    """Same version, node count and Typha on both sides: the plan would re-apply what
    runs."""
    return bool(data["change"] == "reconfigure" and data["from"] == data["to"])


def plan_json(plan: Plan) -> dict[str, Any]:
    """A plan as ``plan --format json`` and ``plan.json`` publish it: the report header,
    the plan, its warnings as findings (checked against ``plan.schema.json``)."""
    data = plan.to_dict()
    warnings = data.pop("warnings")
    out = {
        **report_header("plan"),
        **data,
        "findings": findings_list(notes("plan", "plan-warning", warnings)),
    }
    schemas.validate_output(schemas.PLAN, out)
    return out


def explain_json(result: ExplainResult) -> dict[str, Any]:
    """The contexts as ``explain-context --format json`` publishes them."""
    data = result.to_dict()
    warnings = data.pop("warnings")
    return {
        **report_header("explain-context"),
        **data,
        "findings": findings_list(notes("context", "context-warning", warnings)),
    }


@dataclass(frozen=True)
class PlanDocument(Document):
    """A phased plan; ``unchanged``: its text is the one line saying there is nothing
    to change."""

    schema = schemas.PLAN

    result: PlanResult
    unchanged: bool = False

    def data(self) -> dict[str, Any]:
        return plan_json(self.result.plan)

    def text(self) -> str:
        data = self.data()
        if self.unchanged:
            return (
                f"nothing to change: {_describe_side(data['to'])} is already what runs "
                "(same version, node count and Typha); no phases\n"
            )
        change = _CHANGE.get(data["change"], data["change"])
        lines = [
            f"{change} {_describe_side(data['from'])} -> {_describe_side(data['to'])}: "
            f"{data['shape']}"
        ]
        numbers = [number for number, _ in self.result.plan.numbered()]
        for number, phase in zip(numbers, data["phases"], strict=True):
            lines.append(f"\nphase {number}: {phase['name']}: {phase['description']}")
            for verb in ("apply", "delete"):
                for ref in phase[verb]:
                    ns = f"{ref['namespace']}/" if ref["namespace"] else ""
                    lines.append(f"  {verb:<6} {ref['kind']} {ns}{ref['name']}")
            lines.append(f"  gate:  {phase['gate']['description']}")
            lines.append(f"         $ {phase['gate']['command']}")
        return "".join(f"{line}\n" for line in lines)


def _value(fact: Fact) -> str:
    """A fact's value as the advice text prints it."""
    return "unset" if fact.value is None else str(fact.value)


def advice_data(report: AdviceReport) -> dict[str, Any]:
    """The advice report's JSON (``advise --format json``)."""
    return {
        **report_header("advise"),
        "version": report.version,
        "manifests": report.manifests,
        "passed": report.passed,
        "summary": report.counts(),
        "inputs": report.inputs.to_dict() if report.inputs else {},
        "findings": findings_list(report.findings),
        "notes": list(report.notes),
    }


def advice_text(report: AdviceReport) -> str:
    """Findings, most severe first within the fixed rule order, each with advice and inputs."""
    if report.inputs is None:
        return "".join(f"{n}\n" for n in report.notes)
    i = report.inputs
    lines = [
        f"calico-render advise: Calico {report.version} ({report.manifests}), "
        f"{_value(i.nodes)} nodes "
        f"({i.nodes.origin()}), {_value(i.max_pods)} max pods per node ({i.max_pods.origin()})"
    ]
    for f in report.findings:
        lines.append("")
        lines.append(str(f))
        details = scale_details(f)
        advice, inputs = (details.advice, details.inputs) if details else ("", {})
        if advice:
            lines.append(f"  advice: {advice}")
        if inputs:
            lines.append("  inputs:")
            width = max(len(k) for k in inputs)
            vwidth = max(len(_value(v)) for v in inputs.values())
            for key, fact in inputs.items():
                lines.append(f"    {key:<{width}}  {_value(fact):<{vwidth}}  {fact.origin()}")
    for note in report.notes:
        lines.append("")
        lines.append(f"note: {note}")
    c = report.counts()
    lines.append("")
    verdict = "PASS" if report.passed else "FAIL"
    lines.append(f"{verdict}: {c['error']} error(s), {c['warning']} warning(s), {c['info']} ok")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class AdviceDocument(Document):
    """A scale advice report; ``skipped`` (no Calico to advise on): no text."""

    schema = schemas.ADVISE_REPORT
    ensure_ascii = False

    report: AdviceReport
    skipped: bool = False

    def data(self) -> dict[str, Any]:
        return advice_data(self.report)

    def text(self) -> str:
        return "" if self.skipped else advice_text(self.report)


SOURCE_NAMES = {
    "controller-default": "controller default",
    "admission-default": "admission default",
    "bkecluster": "BKECluster",
    "bkenodes": "BKENodes",
    "addon-param": "addon param",
    "file-param": "per-file addon param",
    "bkeadm-default": "bkeadm default",
    "user": "user",
    "user-file": "user, per file",
    "policy": "Typha policy",
}


def explain_text(data: dict[str, Any]) -> str:
    """One block per file: key, value as the template prints it (JSON), origin."""
    d = data["decision"]
    lines = [
        f"Calico {data['version']} for {data['nodes']} nodes ({data['operation']}): "
        f"allowTypha={d['allowTypha']} typhaReplicas={d['typhaReplicas']}"
    ]
    for f in data["files"]:
        if f["verbatim"]:
            lines.append(f"\n{f['file']}: path contains noexecute, applied verbatim (no context)")
            continue
        lines.append(f"\n{f['file']} (params of {f['base']!r}):")
        width = max((len(k) for k in f["values"]), default=0)
        for key, v in f["values"].items():
            origin = SOURCE_NAMES.get(v["source"], v["source"])
            detail = f": {v['detail']}" if v["detail"] else ""
            value = json.dumps(v["value"], sort_keys=True)
            lines.append(f"  {key:<{width}}  {value}  [{origin}{detail}]")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ExplainDocument(Document):
    """Each file's context and every value's origin."""

    schema = schemas.EXPLAIN_CONTEXT

    result: ExplainResult

    def data(self) -> dict[str, Any]:
        return explain_json(self.result)

    def text(self) -> str:
        return explain_text(self.data())
