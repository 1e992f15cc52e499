"""Where a workload's pods may run: its node selector, required node affinity and
tolerations against a node's labels and taints, as the scheduler judges them.

Enough of the scheduler to say which nodes of a cluster pull a workload's images: the
``nodeSelector`` map, ``requiredDuringSchedulingIgnoredDuringExecution`` node selector
terms (``matchExpressions``; ``matchFields`` is not judged and never matches), and
``NoSchedule``/``NoExecute`` taints a pod must tolerate. A DaemonSet's pods tolerate
``node.kubernetes.io/unschedulable`` as the DaemonSet controller adds it (a cordoned
node runs them). Preferences, resources and pod affinity do not decide *whether* a pod
may land on a node, so they are not read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from renderer.k8s.objects import as_dict, as_list, dig, images, pod_spec, pod_spec_path
from renderer.k8s.parse import K8sObject

#: The taint ``kubectl cordon`` marks a node with.
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


class Taint(NamedTuple):
    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclass(frozen=True, slots=True)
class NodeShape:
    """What the scheduler sees of a node: its labels and taints."""

    labels: Mapping[str, str]
    taints: tuple[Taint, ...] = ()


def _tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return not key or key == taint.key
    return key == taint.key and str(toleration.get("value") or "") == taint.value


def _expression(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = str(expr.get("key"))
    op = expr.get("operator")
    values = [str(v) for v in as_list(expr.get("values"))]
    present = key in labels
    value = labels.get(key)
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(values) == 1:
        try:
            a, b = int(str(value)), int(values[0])
        except ValueError:
            return False
        return a > b if op == "Gt" else a < b
    return False


def _affinity_allows(spec: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    required = dig(
        spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"
    )
    terms = [t for t in as_list(dig(required, "nodeSelectorTerms")) if isinstance(t, dict)]
    if not required or not terms:
        return True
    for term in terms:  # terms are ORed; a term's expressions ANDed
        exprs = [e for e in as_list(term.get("matchExpressions")) if isinstance(e, dict)]
        if term.get("matchFields") or not exprs:
            continue
        if all(_expression(e, labels) for e in exprs):
            return True
    return False


def may_run_on(obj: K8sObject, node: NodeShape) -> bool:
    """Whether a pod of workload ``obj`` may be scheduled on ``node``."""
    spec = pod_spec(obj)
    selector = as_dict(spec.get("nodeSelector"))
    if any(node.labels.get(str(k)) != str(v) for k, v in selector.items()):
        return False
    if not _affinity_allows(spec, node.labels):
        return False
    tolerations = [t for t in as_list(spec.get("tolerations")) if isinstance(t, dict)]
    if obj.kind == "DaemonSet":
        tolerations.append({"key": UNSCHEDULABLE, "operator": "Exists", "effect": "NoSchedule"})
    for taint in node.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
            _tolerates(t, taint) for t in tolerations
        ):
            return False
    return True


def workload_images(
    objects: Sequence[K8sObject], node: NodeShape
) -> Iterator[tuple[K8sObject, str]]:
    """(workload, image) of every container whose pod may run on ``node``."""
    for obj in objects:
        if pod_spec_path(obj) is None or not may_run_on(obj, node):
            continue
        for _, image in images(obj):
            yield obj, image.strip()
