"""The SARIF 2.1.0 format (OASIS Static Analysis Results Interchange Format), for
documents with findings to annotate (:class:`renderer.output.Findings`): GitHub code
scanning (``upload-sarif``) shows each result on the line of the merge request.

One run; ``tool.driver.rules`` describes every rule a result names (its id, what it
checks, its default level and stage). A result's location is the finding's: a path
relative to the repository root (``uriBaseId`` ``%SRCROOT%``), or an absolute path as a
``file:`` URI. ``partialFingerprints`` are the same stable digest Code Quality uses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from renderer import __version__, output
from renderer.output.fingerprint import fingerprints, rule_description

if TYPE_CHECKING:
    from renderer.finding import Finding

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://gitee.com/openeuler/openFuyao"
#: A finding's severity as a SARIF level.
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
#: The base of every relative path: the checked-out repository.
SRCROOT = "%SRCROOT%"
#: A golden directory named like a version (the bundled goldens hold versions directly).
_VERSION = re.compile(r"^v?\d+\.\d+")


def artifact_location(path: str) -> dict[str, str]:
    """``path`` as a SARIF artifact location: relative paths against %SRCROOT%."""
    if path.startswith("/"):
        return {"uri": "file://" + quote(path)}
    return {"uri": quote(path), "uriBaseId": SRCROOT}


def _location(f: Finding) -> dict[str, Any]:
    loc: dict[str, Any] = {}
    if f.file:
        physical: dict[str, Any] = {"artifactLocation": artifact_location(f.file)}
        if f.line:
            region = {"startLine": f.line}
            if f.column:
                region["startColumn"] = f.column
            physical["region"] = region
        loc["physicalLocation"] = physical
    if f.object is not None:
        loc["logicalLocations"] = [
            {"fullyQualifiedName": str(f.object), "kind": "resource"}
            | ({"decoratedName": f.field} if f.field else {})
        ]
    return loc


def addon_of(path: str) -> str:
    """The addon a path of a tree names (``kubernetes/<addon>/...``, ``golden/<addon>/
    <version>/...``), "" for any other path."""
    parts = path.split("/")
    if len(parts) > 2 and parts[0] in ("kubernetes", "golden") and not _VERSION.match(parts[1]):
        return parts[1]
    return ""


def _properties(f: Finding) -> dict[str, Any]:
    props: dict[str, Any] = {"stage": f.stage}
    addon = addon_of(f.file)
    if addon:
        props["addon"] = addon
    for key, value in (
        ("field", f.field),
        ("kube_versions", list(f.kube_versions)),
        ("scenarios", list(f.scenarios)),
        ("exception", f.exception),
    ):
        if value:
            props[key] = value
    return props


def document(
    findings: Sequence[Finding],
    *,
    successful: bool = True,
    properties: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The SARIF log of ``findings`` (``successful`` False: the run ended in bad input);
    ``properties`` are the run's own (the check's addons and the stages each ran)."""
    ids = list(dict.fromkeys(f.rule for f in findings))
    first = {rule: next(f for f in findings if f.rule == rule) for rule in ids}
    rules = [
        {
            "id": rule,
            "shortDescription": {"text": rule_description(rule, first[rule])},
            "defaultConfiguration": {"level": LEVELS.get(first[rule].severity, "warning")},
            "properties": {"stage": first[rule].stage},
        }
        for rule in ids
    ]
    index = {rule: i for i, rule in enumerate(ids)}
    results = []
    for f, digest in zip(findings, fingerprints(findings), strict=True):
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVELS.get(f.severity, "warning"),
            "message": {"text": f.headline},
            "partialFingerprints": {"calicoRender/v1": digest},
            "properties": _properties(f),
        }
        loc = _location(f)
        if loc:
            result["locations"] = [loc]
        results.append(result)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "calico-render",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "invocations": [{"executionSuccessful": successful}],
                "columnKind": "unicodeCodePoints",
                "results": results,
                **({"properties": properties} if properties else {}),
            }
        ],
    }


class SarifFormat:
    name = "sarif"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, output.Document) and issubclass(kind, output.Findings)

    def render(self, doc: output.Document) -> str:
        if not isinstance(doc, output.Findings):
            raise ValueError(f"{type(doc).__name__} carries no findings")
        successful = not getattr(doc, "failed_run", False)
        data = document(doc.annotations(), successful=successful, properties=doc.run_properties())
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


output.register(SarifFormat())
