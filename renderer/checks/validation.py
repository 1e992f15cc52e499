"""Schema validation of a check: the distinct objects of a version's scenarios
(:class:`SchemaInput`), validated once per process and Kubernetes versions, located at
their first occurrence, and what the stage saw of them (:class:`SchemaSeen`).

Objects of Kubernetes' own API groups are checked where their version is prepared;
custom resources wait for every version of the tree, whose CRDs are their schemas
(:func:`awaits_crds`).
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


def awaits_crds(item: SchemaInput) -> bool:
    """Whether a CRD may be what checks the object: its API group is not one of
    Kubernetes' own (a custom resource), so its check waits for the tree's CRDs."""
    return not kubeschema.is_builtin_group(kubeschema.api_group(item.obj.api_version))


@dataclass(frozen=True)
class SchemaSeen:
    """What the schema stage saw of some of a version's objects: its findings (located)
    and counts, added up as each part is checked."""

    findings: tuple[Finding, ...] = ()
    objects: int = 0
    unchecked: int = 0
    kinds: frozenset[str] = frozenset()

    def __add__(self, other: SchemaSeen) -> SchemaSeen:
        return SchemaSeen(
            (*self.findings, *other.findings),
            self.objects + other.objects,
            self.unchecked + other.unchecked,
            self.kinds | other.kinds,
        )

    def counts(self) -> dict[str, Any]:
        """Distinct objects, those validated against a Kubernetes or CRD schema, those
        no schema covers (``schema-not-checked``) and their kinds."""
        return {
            "objects": self.objects,
            "validated": self.objects - self.unchecked,
            "not_checked": self.unchecked,
            "not_checked_kinds": sorted(self.kinds),
        }


def check_inputs(kube_versions: Sequence[str], inputs: Sequence[SchemaInput]) -> SchemaSeen:
    """``inputs`` validated on every Kubernetes version and located."""
    results = validate_objects(kube_versions, [(i.digest, i.obj.data) for i in inputs])
    return seen(inputs, results)


def seen(inputs: Sequence[SchemaInput], results: SchemaResults) -> SchemaSeen:
    """The located findings and counts of ``inputs`` validated as ``results``."""
    unchecked = [
        i for i in inputs if any(f.rule == kubeschema.NOT_CHECKED_RULE for f in results[i.digest])
    ]
    return SchemaSeen(
        tuple(located(inputs, results)),
        len(inputs),
        len(unchecked),
        frozenset(f"{i.obj.api_version} {i.obj.kind}".strip() for i in unchecked),
    )


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
