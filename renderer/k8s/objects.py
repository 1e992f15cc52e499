"""Read Kubernetes objects structurally: pod specs, containers, label selectors, env.

Capability and release rules judge parsed objects, never text, so a keyword in a
comment or in an unrelated object cannot pass for a Typha template.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from renderer.k8s.parse import K8sObject

WORKLOAD_POD_PATHS: dict[str, tuple[str, ...]] = {
    "Deployment": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Pod": ("spec",),
}
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def dig_path(data: Any, path: Iterable[str]) -> Any:
    """The value at ``path`` in nested mappings, or None when any step is missing."""
    node = data
    for part in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def dig(data: Any, *path: str) -> Any:
    """:func:`dig_path` with the path's steps as arguments: ``dig(obj, "spec", "replicas")``."""
    return dig_path(data, path)


def key_path(path: Iterable[str | int]) -> str:
    """A field path as users write it: ``spec.containers[0].image``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def pod_spec_path(obj: K8sObject) -> tuple[str, ...] | None:
    return WORKLOAD_POD_PATHS.get(obj.kind)


def pod_spec(obj: K8sObject) -> dict[str, Any]:
    path = pod_spec_path(obj)
    return as_dict(dig(obj.data, *path)) if path else {}


def pod_labels(obj: K8sObject) -> dict[str, Any]:
    """Labels of the pods a workload creates (template labels; a Pod's own labels)."""
    if obj.kind == "Pod":
        return as_dict(dig(obj.data, "metadata", "labels"))
    path = pod_spec_path(obj)
    if not path:
        return {}
    return as_dict(dig(obj.data, *path[:-1], "metadata", "labels"))


def containers(obj: K8sObject) -> Iterator[tuple[str, dict[str, Any]]]:
    """(field path, container) for every container of a workload's pod spec."""
    path = pod_spec_path(obj)
    if not path:
        return
    spec = pod_spec(obj)
    base = ".".join(path)
    for group in CONTAINER_LISTS:
        for i, c in enumerate(as_list(spec.get(group))):
            if isinstance(c, dict):
                yield f"{base}.{group}[{i}]", c


def container(obj: K8sObject, name: str) -> tuple[str, dict[str, Any]] | None:
    for path, c in containers(obj):
        if c.get("name") == name:
            return path, c
    return None


def env_var(c: Mapping[str, Any], name: str) -> tuple[int, dict[str, Any]] | None:
    for i, e in enumerate(as_list(c.get("env"))):
        if isinstance(e, dict) and e.get("name") == name:
            return i, e
    return None


def selector_matches(selector: Any, labels: Mapping[str, Any]) -> bool:
    """A LabelSelector (matchLabels + matchExpressions) against labels; empty matches none.

    An empty selector selects everything in Kubernetes, but for judging "selects the
    Typha pods" it proves nothing, so it does not count.
    """
    sel = as_dict(selector)
    match_labels = as_dict(sel.get("matchLabels"))
    exprs = [e for e in as_list(sel.get("matchExpressions")) if isinstance(e, dict)]
    if not match_labels and not exprs:
        return False
    if any(str(labels.get(k)) != str(v) or k not in labels for k, v in match_labels.items()):
        return False
    for e in exprs:
        key, op = str(e.get("key")), e.get("operator")
        values = [str(v) for v in as_list(e.get("values"))]
        present = key in labels
        value = str(labels.get(key)) if present else None
        ok = (
            (op == "In" and present and value in values)
            or (op == "NotIn" and (not present or value not in values))
            or (op == "Exists" and present)
            or (op == "DoesNotExist" and not present)
        )
        if not ok:
            return False
    return True


def map_selector_matches(selector: Any, labels: Mapping[str, Any]) -> bool:
    """A Service's plain ``selector`` map against labels; empty matches none."""
    sel = as_dict(selector)
    return bool(sel) and all(k in labels and str(labels[k]) == str(v) for k, v in sel.items())


def find(objects: Iterable[K8sObject], kind: str, name: str | None = None) -> list[K8sObject]:
    return [o for o in objects if o.kind == kind and (name is None or o.name == name)]


def images(obj: K8sObject) -> Iterator[tuple[str, str]]:
    """(field path, image) of every container of a workload."""
    for path, c in containers(obj):
        image = c.get("image")
        if isinstance(image, str):
            yield f"{path}.image", image
