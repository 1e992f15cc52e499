"""The validate verb: manifest files checked against Kubernetes' strict schemas, as
kubeconform checks them, and custom resources against the CustomResourceDefinitions the
files hold or others given (as kubeconform's ``-schema-location`` adds schemas)."""

from __future__ import annotations

from collections.abc import Sequence

from renderer.api.results import Validation
from renderer.errors import InputError
from renderer.finding import Finding, ObjectRef, merge_located
from renderer.k8s.crd import CrdSet, crds_of
from renderer.k8s.files import kinds, manifest_files
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.k8s.readings import reading_findings
from renderer.k8s.schema import SchemaValidator, resolve_kube_versions, strict_unchecked
from renderer.store.read import read_text


def schema_check(
    objects: Sequence[K8sObject],
    kube_versions: Sequence[str] = (),
    *,
    crds: CrdSet | Sequence[K8sObject] = (),
    strict: bool = False,
) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """Strict schema findings of rendered objects, as (Kubernetes versions, findings):
    what ``validate`` reports. The scalars BKE's controller reads as YAML 1.1 otherwise
    than YAML 1.2 come first (``yaml-1.1-reading`` warnings, by file and line: the
    objects hold the controller's reading, which the schemas judge), then the schema
    findings by version, file and line. Custom resources are checked against the CRDs
    among ``objects``, then ``crds``'s; with ``strict`` one no CRD defines is an error."""
    validator = SchemaValidator(kube_versions, crds=crds)
    found = validator.validate_all(objects)
    if strict:
        found = strict_unchecked(found)
    return validator.kube_versions, (*reading_findings(objects), *found)


def validate(
    paths: Sequence[str],
    kube_versions: Sequence[str] = (),
    *,
    skip: Sequence[str] = (),
    reject: Sequence[str] = (),
    crds: Sequence[str] = (),
    strict: bool = False,
) -> Validation:
    """Schema-check manifest files and directories (``-`` for stdin) in strict mode,
    as kubeconform does: objects of a ``skip`` kind are counted, not checked; one of a
    ``reject`` kind is an error. Custom resources are checked against the
    CustomResourceDefinitions of the files checked, then those of the files and
    directories ``crds`` names; with ``strict``, one of a kind no CRD defines is an
    error."""
    kube = resolve_kube_versions(kube_versions)  # a bad version before any file is read
    if "-" in crds:
        raise InputError(
            "CRDs are read from files and directories, not stdin", key="crds", argument="crds"
        )
    files = manifest_files(paths)
    objects = [o for name in files for o in parse_stream(read_text(name), name)]
    given = [o for name in manifest_files(crds) for o in parse_stream(read_text(name), name)]
    skipped, rejected = kinds(skip), kinds(reject)
    checked = [o for o in objects if o.kind not in skipped and o.kind not in rejected]
    # a CRD of a skipped kind still defines its resources' kind
    defined = crds_of(objects).then(crds_of(given))
    _, found = schema_check(checked, kube, crds=defined, strict=strict)
    refused = [
        Finding(
            "kind-rejected",
            "error",
            f"kind {o.kind} is rejected (--reject)",
            stage="schema",
            object=ObjectRef(o.kind, o.name, o.namespace, o.api_version),
            file=o.file,
            line=o.line,
        )
        for o in objects
        if o.kind in rejected and o.kind not in skipped
    ]
    return Validation(
        tuple(files),
        kube,
        tuple(merge_located([*found, *refused])),
        objects=len(objects),
        skipped=sum(1 for o in objects if o.kind in skipped),
    )
