"""Schema validation of a check: the distinct objects of a version's scenarios
(:class:`SchemaInput`), validated once per process and Kubernetes versions, located at
their first occurrence, and what the stage saw of them (:class:`SchemaSeen`).

Objects of Kubernetes' own API groups are checked where their version is prepared;
custom resources wait for every version of the tree, whose CRDs are their schemas
(:func:`awaits_crds`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from renderer.finding import Finding
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject
from renderer.k8s.readings import reading_findings
from renderer.store.memo import Memo

if TYPE_CHECKING:
    from renderer.k8s.crd import CrdSet

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


def awaits_crds(item: SchemaInput, kube_versions: Sequence[str]) -> bool:
    """Whether only a CRD can check the object (a custom resource, no Kubernetes schema
    for its kind), so its check waits for the tree's CRDs."""
    return kubeschema.needs_crd(item.obj.kind, item.obj.api_version, kube_versions)


@dataclass(frozen=True)
class Crd:
    """A CustomResourceDefinition a version renders: its digest, its data and where it
    is (``kubernetes/<addon>/<version>/<file>:<line>``), so the tree's CRDs can be made
    of every version's without rendering any again."""

    digest: str
    data: dict[str, Any]
    where: str


def own_crds(inputs: Sequence[SchemaInput], where: str) -> list[Crd]:
    """The CRDs among a version's distinct objects, in the order they are first
    rendered; ``where`` prefixes their place (``kubernetes/<addon>/<version>/``)."""
    return [
        Crd(i.digest, i.obj.data, f"{where}{i.obj.where}")
        for i in inputs
        if i.obj.kind == kubeschema.CRD_KIND and kubeschema.defined_kinds([i.obj.data])
    ]


def crd_set(crds: Sequence[Crd], kinds: Collection[tuple[str, str]]) -> CrdSet:
    """The CRDs of ``kinds`` among ``crds``, in their order."""
    from renderer.k8s.crd import CrdSet, served_versions  # only for custom resources

    wanted = set(kinds)
    return CrdSet(
        v
        for c in crds
        for v in served_versions(c.data, c.digest, c.where)
        if (v.group, v.kind) in wanted
    )


def custom_kinds(inputs: Sequence[SchemaInput]) -> frozenset[tuple[str, str]]:
    """(group, kind) of custom resources."""
    return frozenset((kubeschema.api_group(i.obj.api_version), i.obj.kind) for i in inputs)


#: The CRDs of some kinds of the tree's versions a check did not render, in the order
#: they check a resource (:func:`renderer.checks.addons.tree_crds`).
OtherCrds = Callable[[frozenset[tuple[str, str]]], list[Crd]]


def check_with_crds(
    kube_versions: Sequence[str],
    inputs: Sequence[SchemaInput],
    where: str,
    others: OtherCrds | None = None,
) -> SchemaSeen:
    """One version's objects validated and located: its custom resources against its
    own CRDs (``where`` prefixes their place: ``kubernetes/<addon>/<version>/``), then
    those ``others`` gives for their kinds; the rest against Kubernetes' schemas."""
    ready = [i for i in inputs if not awaits_crds(i, kube_versions)]
    custom = [i for i in inputs if awaits_crds(i, kube_versions)]
    found = check_inputs(kube_versions, ready)
    if not custom:
        return found
    kinds = custom_kinds(custom)
    crds = crd_set(own_crds(inputs, where), kinds)
    if others is not None:
        crds = crds.then(crd_set(others(kinds), kinds))
    items = [(i.digest, i.obj.data) for i in custom]
    return found + seen(custom, validate_custom(kube_versions, items, crds), kube_versions, crds)


def validate_custom(
    kube_versions: Sequence[str], items: Sequence[tuple[str, dict[str, Any]]], crds: CrdSet
) -> SchemaResults:
    """Schema findings per digest of custom resources, each checked against the CRDs
    of ``crds`` that define its kind (a kind none defines: not checked)."""
    validator = kubeschema.SchemaValidator(kube_versions, crds=crds)
    return {digest: tuple(validator.validate(data)) for digest, data in items}


@dataclass(frozen=True)
class SchemaSeen:
    """What the schema stage saw of some of a version's objects: its findings (located)
    and counts, added up as each part is checked."""

    findings: tuple[Finding, ...] = ()
    objects: int = 0
    unchecked: int = 0
    kinds: frozenset[str] = frozenset()
    #: Objects of an API Kubernetes serves on none of the versions (an error each).
    unserved: int = 0
    #: Custom resources validated against a CRD.
    by_crd: int = 0

    def __add__(self, other: SchemaSeen) -> SchemaSeen:
        return SchemaSeen(
            (*self.findings, *other.findings),
            self.objects + other.objects,
            self.unchecked + other.unchecked,
            self.kinds | other.kinds,
            self.unserved + other.unserved,
            self.by_crd + other.by_crd,
        )

    def counts(self) -> dict[str, Any]:
        """Distinct objects, those validated against a Kubernetes or CRD schema, those
        no schema covers (``schema-not-checked``) and their kinds, those of an API
        Kubernetes does not serve."""
        return {
            "objects": self.objects,
            "validated": self.objects - self.unchecked - self.unserved,
            "crd_validated": self.by_crd,
            "not_checked": self.unchecked,
            "not_checked_kinds": sorted(self.kinds),
            "unserved": self.unserved,
        }


def check_inputs(kube_versions: Sequence[str], inputs: Sequence[SchemaInput]) -> SchemaSeen:
    """``inputs`` validated on every Kubernetes version and located."""
    results = validate_objects(kube_versions, [(i.digest, i.obj.data) for i in inputs])
    return seen(inputs, results, kube_versions)


def seen(
    inputs: Sequence[SchemaInput],
    results: SchemaResults,
    kube_versions: Sequence[str],
    crds: CrdSet | None = None,
) -> SchemaSeen:
    """The located findings and counts of ``inputs`` validated as ``results`` (a custom
    resource against ``crds``)."""
    unchecked = [
        i for i in inputs if any(f.rule == kubeschema.NOT_CHECKED_RULE for f in results[i.digest])
    ]
    unserved = [
        i
        for i in inputs
        if i not in unchecked
        and all(
            kubeschema.schema_source(i.obj.kind, i.obj.api_version, v, crds) == kubeschema.NONE
            for v in kube_versions
        )
    ]
    by_crd = (
        0
        if crds is None
        else sum(
            1
            for i in inputs
            if i not in unchecked
            and any(
                kubeschema.schema_source(i.obj.kind, i.obj.api_version, v, crds) == kubeschema.CRD
                for v in kube_versions
            )
        )
    )
    return SchemaSeen(
        tuple(located(inputs, results)),
        len(inputs),
        len(unchecked),
        frozenset(f"{i.obj.api_version} {i.obj.kind}".strip() for i in unchecked),
        len(unserved),
        by_crd,
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
