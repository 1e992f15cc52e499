"""JSON documents of the small commands (``versions``, ``typha``, ``validate``).

Each is built by a plain function and checked against its published schema before it
is printed, as the reports of ``check`` and ``capability`` are. Unset values are null.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from renderer.calico import policy
from renderer.calico.capability import CapabilityReport
from renderer.checks.finding import Finding
from renderer.data import schemas
from renderer.manifests.tree import VersionDir

VERSIONS = "versions.schema.json"
TYPHA = "typha.schema.json"
VALIDATE = "validate.schema.json"


def dumps(name: str, data: dict[str, Any]) -> str:
    """``data`` as JSON, after checking it against schema ``name``."""
    schemas.validate_output(name, data)
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


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


def versions_doc(manifests: str | None, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"tool": "calico-render versions", "manifests": manifests, "versions": entries}


def _decision(nodes: int) -> dict[str, Any]:
    d = policy.decide_typha(nodes)
    return {
        "nodes": d.nodes,
        **d.context(),
        "reason": d.reason,
        "warnings": list(d.warnings),
        "capped": bool(d.warnings),
    }


def typha_doc(nodes: int | None) -> dict[str, Any]:
    """The decision for ``nodes``, or the boundary table when None."""
    return {
        "tool": "calico-render typha",
        "decision": None if nodes is None else _decision(nodes),
        "table": None if nodes is not None else [_decision(n) for n in policy.BOUNDARY_TABLE],
    }


def validate_doc(
    files: Sequence[str], kube: Sequence[str], objects: int, findings: Sequence[Finding]
) -> dict[str, Any]:
    """The findings with the keys every report uses (``rule``, ``field``, ``file`` and
    ``line``, ``kube_versions``), one per problem whatever the Kubernetes versions it
    holds for."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for f in findings:
        key = (f.severity, f.object, f.field, f.message, f.file, f.line)
        if key in merged:
            merged[key]["kube_versions"].extend(f.kube_versions)
            continue
        merged[key] = {
            "stage": f.stage,
            "rule": f.rule,
            "severity": f.severity,
            "message": f.message,
            "object": f.object,
            "kind": f.details["kind"],
            "api_version": f.details["api_version"],
            "namespace": f.details["namespace"] or None,
            "name": f.details["name"],
            "field": f.field or None,
            "file": f.file or None,
            "line": f.line or None,
            "kube_versions": list(f.kube_versions),
        }
    out = list(merged.values())
    return {
        "tool": "calico-render validate",
        "files": list(files),
        "kube_versions": list(kube),
        "objects": objects,
        "errors": sum(1 for f in out if f["severity"] == "error"),
        "findings": out,
    }
