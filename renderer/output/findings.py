"""How each report spells a finding: one function per report over the one
:class:`~renderer.finding.Finding`, so every published JSON report keeps its keys.

The model's own text forms (``Finding.describe`` and ``str``) stay on the class; the
forms here are the ones a single report or command owns. Only the finding model and the
standard library are imported, so library stages may serialise through this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from renderer.finding import Finding


def nulls(data: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``data`` with the unset values of ``keys`` ("" or line 0) as null."""
    return {k: (None if k in keys and v in ("", 0) else v) for k, v in data.items()}


# --- the check report (and the reports that reuse its keys) --------------------------------


def check_dict(f: Finding) -> dict[str, Any]:
    """A finding as the check report (and fidelity, advise) carries it (unset values null)."""
    return {
        "stage": f.stage,
        "rule": f.rule,
        "severity": f.severity,
        "message": f.message,
        "object": f.object or None,
        "file": f.file or None,
        "line": f.line or None,
        "field": f.field or None,
        "scenarios": list(f.scenarios),
        "kube_versions": list(f.kube_versions),
        "exception": f.exception or None,
    }


# --- the capability report -----------------------------------------------------------------


def capability_rule_dict(f: Finding) -> dict[str, Any]:
    """A rule finding as the capability report carries it (unset values null)."""
    data = {
        "rule": f.rule,
        "severity": f.severity,
        "message": f.message,
        "object": f.object,
        "field": f.field,
        "file": f.file,
        "line": f.line,
        "rendered_line": f.rendered_line,
    }
    return nulls(data, ("object", "field", "file", "line"))


def schema_dict(f: Finding) -> dict[str, Any]:
    """A schema finding as the capability report carries it (one Kubernetes version;
    unset values null)."""
    d = f.details
    data = {
        "kube_version": f.kube_versions[0],
        "severity": f.severity,
        "object": f.object,
        "kind": d["kind"],
        "api_version": d["api_version"],
        "namespace": d["namespace"],
        "name": d["name"],
        "path": f.field,
        "message": f.message,
        "file": f.file,
        "line": f.line,
    }
    return nulls(data, ("namespace", "path", "file", "line"))


def context_dict(f: Finding) -> dict[str, Any]:
    """A context finding as the capability report carries it."""
    return {
        "rule": f.rule,
        "severity": f.severity,
        "file": f.location,
        "key": f.details["key"],
        "message": f.message,
    }


def schema_text(f: Finding) -> str:
    """A schema finding as one line of text (``validate``, ``capability``, ``render``)."""
    where = f"{f.file}:{f.line}: " if f.file else ""
    path = f" {f.field}:" if f.field else ""
    head = f"{where}{f.severity}: Kubernetes {f.kube_versions[0]}: {f.object}"
    return f"{head}{path} {f.message}"


def context_text(f: Finding) -> str:
    """A context finding as one line of text (``render``): where, severity, rule, why."""
    where = f"{f.file}:{f.line}: " if f.file and f.line else (f"{f.file}: " if f.file else "")
    return f"{where}{f.severity}: {f.rule}: {f.message}"


# --- the advise report ---------------------------------------------------------------------


def scale_dict(f: Finding) -> dict[str, Any]:
    """A scale finding as the advise report carries it: the check report's keys, then
    its numbers (``inputs`` the facts it used, ``computed`` what it derived from them,
    ``advice`` what to change and ``suggestions`` the same as data)."""
    d = f.details
    return {
        **check_dict(f),
        "inputs": {k: v.to_dict() for k, v in d.get("inputs", {}).items()},
        "computed": dict(d.get("computed", {})),
        "advice": d.get("advice", ""),
        "suggestions": [dict(s) for s in d.get("suggestions", [])],
    }


def scale_line(f: Finding) -> str:
    """A scale finding as one line (the render command's warnings), advice included."""
    head = f"{f.rule}: " + ("limit exceeded: " if f.severity == "error" else "")
    advice = f.details.get("advice", "")
    return head + f.message + (f"; advice: {advice}" if advice else "")


__all__ = [
    "capability_rule_dict",
    "check_dict",
    "context_dict",
    "context_text",
    "nulls",
    "scale_dict",
    "scale_line",
    "schema_dict",
    "schema_text",
]
