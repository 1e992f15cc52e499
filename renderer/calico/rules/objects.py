"""Release rules about the rendered objects as a whole."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from renderer.calico.rules.registry import ERROR, RuleInput, Violation, rule
from renderer.k8s.parse import K8sObject


def duplicates(objects: Sequence[K8sObject]) -> list[tuple[K8sObject, K8sObject]]:
    """Each object rendered again with the kind, namespace and name of an earlier one,
    as (first, again): ``kubectl apply`` keeps the last, so the first never applies."""
    first: dict[tuple[str, str, str], K8sObject] = {}
    out = []
    for obj in objects:
        if not obj.kind or not obj.name:
            continue
        if obj.key in first:
            out.append((first[obj.key], obj))
        else:
            first[obj.key] = obj
    return out


def duplicate_detail(first: K8sObject, again: K8sObject) -> str:
    return f"{again.ref} at {again.where} repeats {first.where}; kubectl apply keeps the last"


@rule(
    id="duplicate-object",
    severity=ERROR,
    message="an object (kind, namespace, name) is rendered twice in one version",
)
def duplicate_object(data: RuleInput) -> Iterator[Violation]:
    for first, again in duplicates(data.objects):
        yield Violation(duplicate_detail(first, again), again)
