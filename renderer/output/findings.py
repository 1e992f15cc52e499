"""The one way a :class:`~renderer.finding.Finding` is spelled in every report:
:func:`finding_dict` is its JSON (``schemas/finding.schema.json``, referenced by every
report schema) and ``str(finding)`` its line of text. Only the finding model and the
standard library are imported, so library stages may serialise through this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from renderer import __version__
from renderer.finding import Finding

#: The version of every report's JSON shape; 2: one finding shape for every command.
REPORT_VERSION = 2
#: The schema every report's findings meet.
FINDING_SCHEMA = "finding.schema.json"


def report_header(command: str) -> dict[str, Any]:
    """The keys every JSON report starts with: which tool and version wrote it, and the
    version of the report's shape."""
    return {
        "tool": f"calico-render {command}",
        "tool_version": __version__,
        "report_version": REPORT_VERSION,
    }


def nulls(data: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``data`` with the unset values of ``keys`` ("" or line 0) as null."""
    return {k: (None if k in keys and v in ("", 0) else v) for k, v in data.items()}


def _details(f: Finding) -> dict[str, Any]:
    """What the finding's stage alone carries, as JSON (typed per stage in the schema)."""
    d = f.details
    if f.stage == "scale":
        return {
            "inputs": {k: v.to_dict() for k, v in d.get("inputs", {}).items()},
            "computed": dict(d.get("computed", {})),
            "advice": d.get("advice", ""),
            "suggestions": [dict(s) for s in d.get("suggestions", [])],
        }
    return {k: v for k, v in d.items() if isinstance(v, str | int | float | bool | type(None))}


def finding_dict(f: Finding) -> dict[str, Any]:
    """A finding as every JSON report carries it (unset values null)."""
    obj = f.object
    return {
        "rule": f.rule,
        "stage": f.stage,
        "severity": f.severity,
        "message": f.message,
        "object": None
        if obj is None
        else {
            "apiVersion": obj.api_version or None,
            "kind": obj.kind,
            "namespace": obj.namespace or None,
            "name": obj.name,
        },
        "field": f.field or None,
        "location": None
        if not f.file
        else {"path": f.file, "line": f.line or None, "column": f.column or None},
        "rendered": None
        if not f.rendered_line
        else {"scenarios": list(f.scenarios), "line": f.rendered_line},
        "kube_versions": list(f.kube_versions),
        "scenarios": list(f.scenarios),
        "exception": f.exception or None,
        "details": _details(f),
    }


def findings_list(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    return [finding_dict(f) for f in findings]


def severity_counts(findings: Iterable[Finding]) -> dict[str, int]:
    """How many findings of each severity (the same count in every format)."""
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    return out


def scale_line(f: Finding) -> str:
    """A scale finding as one line (the render command's warnings), advice included."""
    advice = f.details.get("advice", "")
    return str(f) + (f"; advice: {advice}" if advice else "")


__all__ = [
    "FINDING_SCHEMA",
    "REPORT_VERSION",
    "finding_dict",
    "findings_list",
    "nulls",
    "report_header",
    "scale_line",
    "severity_counts",
]
