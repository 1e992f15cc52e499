"""Rules about the rendered objects as a whole: they hold for any addon's objects, so
the gate runs them on every addon (:func:`renderer.calico.rules.generic_rules`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from renderer.calico.rules.registry import ERROR, WARNING, RuleInput, Violation, rule
from renderer.k8s.parse import K8sObject

#: What of an object's metadata a repeat may change and still be the same object: the
#: controller applies both server-side as one field manager, so the last one's labels
#: and annotations stay, and nothing else of the object differs.
_MARKS = ("labels", "annotations")


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


def _unmarked(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` without its metadata's labels and annotations."""
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return dict(data)
    return {**data, "metadata": {k: v for k, v in meta.items() if k not in _MARKS}}


def _marks(data: Mapping[str, Any], which: str) -> dict[str, Any]:
    meta = data.get("metadata")
    found = meta.get(which) if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def marks_differ(first: K8sObject, again: K8sObject) -> list[str]:
    """How the labels and annotations of two renders of one object differ
    (``labels cluster.x-k8s.io/provider: cluster-api → bootstrap-kubeadm``)."""
    out = []
    for which in _MARKS:
        a, b = _marks(first.data, which), _marks(again.data, which)
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                old = a.get(key, "(none)")
                new = b.get(key, "(none)")
                out.append(f"{which} {key}: {old} → {new}")
    return out


def same_but_marks(first: K8sObject, again: K8sObject) -> bool:
    """Whether two renders of one object differ at most in labels and annotations."""
    return _unmarked(first.data) == _unmarked(again.data)


@rule(
    id="duplicate-object",
    severity=ERROR,
    message="an object (kind, namespace, name) is rendered twice in one version",
    generic=True,
)
def duplicate_object(data: RuleInput) -> Iterator[Violation]:
    for first, again in duplicates(data.objects):
        if not same_but_marks(first, again):
            yield Violation(duplicate_detail(first, again), again)


@rule(
    id="duplicate-object-metadata",
    severity=WARNING,
    message="an object (kind, namespace, name) is rendered again, differing at most in its "
    "labels and annotations",
    generic=True,
)
def duplicate_object_metadata(data: RuleInput) -> Iterator[Violation]:
    """The same object declared by several files (the ``cluster-system`` Namespace each
    of cluster-api's provider files declares): applied again, it stays the same object
    and only the last render's labels and annotations remain."""
    for first, again in duplicates(data.objects):
        if same_but_marks(first, again):
            changed = marks_differ(first, again)
            what = "; ".join(changed) if changed else "identical"
            yield Violation(
                f"{again.ref} at {again.where} repeats {first.where} ({what}); the last "
                "render's labels and annotations stay",
                again,
            )
