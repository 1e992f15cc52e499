"""The one way a :class:`~renderer.finding.Finding` is spelled in every report:
:func:`finding_dict` is its JSON (``schemas/finding.schema.json``, referenced by every
report schema) and ``str(finding)`` its line of text. Only the finding model and the
standard library are imported at load (the scale advice's details type when a scale
finding is printed), so every command may serialise through this module cheaply.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any, cast

from renderer import __version__
from renderer.finding import SCALE, Details, Finding

if TYPE_CHECKING:
    from renderer.calico.scale.registry import ScaleDetails

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


def _json(value: Any) -> Any:
    """A value of a finding's details as JSON data: a dataclass as its fields (all of
    them, in order), mappings and sequences item by item."""
    if is_dataclass(value):
        return {f.name: _json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def details_dict(details: Details | None) -> dict[str, Any]:
    """What a finding's stage alone carries, as JSON (typed per stage in the schema):
    the fields of its :class:`~renderer.finding.Details` in order, a None field left
    out."""
    if details is None:
        return {}
    return {
        f.name: _json(v) for f in fields(details) if (v := getattr(details, f.name)) is not None
    }


def scale_details(f: Finding) -> ScaleDetails | None:
    """A scale finding's facts, numbers and advice (None for any other finding): the
    scale stage's findings carry :class:`~renderer.calico.scale.registry.ScaleDetails`."""
    if f.stage != SCALE or f.details is None:
        return None
    return cast("ScaleDetails", f.details)


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
        "details": details_dict(f.details),
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
    details = scale_details(f)
    advice = details.advice if details else ""
    return str(f) + (f"; advice: {advice}" if advice else "")


__all__ = [
    "FINDING_SCHEMA",
    "REPORT_VERSION",
    "details_dict",
    "finding_dict",
    "findings_list",
    "nulls",
    "report_header",
    "scale_details",
    "scale_line",
    "severity_counts",
]
