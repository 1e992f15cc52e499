"""Schema validation shared across a check: the distinct objects of a version's
scenarios (:class:`SchemaInput`), validated once per process and Kubernetes versions
(the runner sends each object not seen before), located at their first occurrence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from renderer.finding import Finding
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject
from renderer.k8s.readings import reading_findings
from renderer.store.memo import Memo

_VALIDATORS: Memo[tuple[str, ...], kubeschema.SchemaValidator] = Memo("checks.validators", 8)


def schema_validator(kube_versions: Sequence[str]) -> kubeschema.SchemaValidator:
    """One validator per process and Kubernetes versions, so its per-object cache spans
    every version this process checks (CRDs repeat across Calico releases)."""
    key = tuple(kube_versions)
    return _VALIDATORS.setdefault(key, lambda: kubeschema.SchemaValidator(key))


@dataclass(frozen=True)
class SchemaInput:
    """A distinct rendered object of a version (first occurrence) and its scenarios."""

    digest: str
    obj: K8sObject
    scenarios: tuple[str, ...]


SchemaResults = dict[str, tuple[Finding, ...]]


def schema_inputs(renders: Sequence[tuple[str, Sequence[K8sObject]]]) -> list[SchemaInput]:
    """The distinct objects of (scenario name, objects) renders, in first-seen order."""
    distinct: dict[str, tuple[K8sObject, list[str]]] = {}
    # a file that renders alike in several scenarios is one parse, its objects the same
    # instances: each is hashed once (a CRD's JSON is most of a check's hashing)
    digests: dict[int, str] = {}
    for name, objects in renders:
        for obj in objects:
            digest = digests.get(id(obj))
            if digest is None:
                digest = digests[id(obj)] = kubeschema.canonical_hash(obj.data)
            if digest not in distinct:
                distinct[digest] = (obj, [])
            if name not in distinct[digest][1]:
                distinct[digest][1].append(name)
    return [SchemaInput(d, obj, tuple(scen)) for d, (obj, scen) in distinct.items()]


def validate_objects(
    kube_versions: Sequence[str], items: Sequence[tuple[str, dict[str, Any]]]
) -> SchemaResults:
    """Schema findings per object digest, on every Kubernetes version (no location)."""
    validator = schema_validator(kube_versions)
    return {digest: tuple(validator.validate(data)) for digest, data in items}


def located(inputs: Sequence[SchemaInput], results: SchemaResults) -> list[Finding]:
    """The schema findings of ``inputs``, located at each object's first occurrence,
    after the scalars BKE's controller reads otherwise than YAML 1.2 (the objects hold
    its reading: ``yaml-1.1-reading`` warnings)."""
    read = [
        replace(f, scenarios=item.scenarios)
        for item in inputs
        for f in reading_findings([item.obj])
    ]
    return read + [
        replace(f, file=item.obj.file, line=item.obj.field_line(f.field), scenarios=item.scenarios)
        for item in inputs
        for f in results[item.digest]
    ]
