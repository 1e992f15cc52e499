"""The validate verb: manifest files checked against Kubernetes' strict schemas, as
kubeconform checks them."""

from __future__ import annotations

from collections.abc import Sequence

from renderer.api.results import Validation
from renderer.finding import Finding, ObjectRef, merge_located
from renderer.k8s.files import kinds, manifest_files
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.k8s.readings import reading_findings
from renderer.k8s.schema import SchemaValidator, resolve_kube_versions
from renderer.store.read import read_text


def schema_check(
    objects: Sequence[K8sObject], kube_versions: Sequence[str] = ()
) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """Strict schema findings of rendered objects, as (Kubernetes versions, findings):
    what ``validate`` reports. The scalars BKE's controller reads as YAML 1.1 otherwise
    than YAML 1.2 come first (``yaml-1.1-reading`` warnings, by file and line: the
    objects hold the controller's reading, which the schemas judge), then the schema
    findings by version, file and line."""
    validator = SchemaValidator(kube_versions)
    found = validator.validate_all(objects)
    return validator.kube_versions, (*reading_findings(objects), *found)


def validate(
    paths: Sequence[str],
    kube_versions: Sequence[str] = (),
    *,
    skip: Sequence[str] = (),
    reject: Sequence[str] = (),
) -> Validation:
    """Schema-check manifest files and directories (``-`` for stdin) in strict mode,
    as kubeconform does: objects of a ``skip`` kind are counted, not checked; one of a
    ``reject`` kind is an error."""
    kube = resolve_kube_versions(kube_versions)  # a bad version before any file is read
    files = manifest_files(paths)
    objects = [o for name in files for o in parse_stream(read_text(name), name)]
    skipped, rejected = kinds(skip), kinds(reject)
    checked = [o for o in objects if o.kind not in skipped and o.kind not in rejected]
    _, found = schema_check(checked, kube)
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
