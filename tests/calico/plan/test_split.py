"""Splitting a rendered version by role: Typha, what Typha needs, calico-node, the rest."""

from __future__ import annotations

from typing import Any

from renderer.calico.plan import make_plan, split_objects
from tests.calico.plan.objects import base_objects, obj, side, typha_objects

TYPHA_SELECTOR = {"matchLabels": {"k8s-app": "calico-typha"}}


def test_split_puts_typha_its_rbac_and_crds_together() -> None:
    s = split_objects(base_objects() + typha_objects())
    assert [r.name for r in s.typha] == ["calico-typha"] * 3
    assert [r.kind for r in s.typha_deps] == [
        "CustomResourceDefinition",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
    ]
    assert [r.kind for r in s.calico_node] == ["ConfigMap", "DaemonSet"]
    assert [r.name for r in s.rest] == ["calico-kube-controllers"]


def test_a_name_containing_typha_does_not_make_an_object_typha() -> None:
    """Typha is decided by name, label or selector (renderer.calico.names), not by a
    substring: such an object was applied with Typha, before the CRDs it may need."""
    unrelated = obj("ConfigMap", "not-typha-related")
    s = split_objects([*base_objects(), *typha_objects(), unrelated])
    assert [(r.kind, r.name) for r in s.typha] == [
        ("Service", "calico-typha"),
        ("PodDisruptionBudget", "calico-typha"),
        ("Deployment", "calico-typha"),
    ]
    assert ("ConfigMap", "not-typha-related") in [(r.kind, r.name) for r in s.rest]
    plan = make_plan(
        side("v3.27.3", 601, False, typha=False),
        side("v3.31.3", 601, True, typha=True, extra="not-typha-related"),
    )
    prereq, typha, node = plan.phases
    assert "not-typha-related" not in [r.name for r in (*prereq.apply, *typha.apply)]
    assert "not-typha-related" in [r.name for r in node.apply]


def labelled(kind: str, name: str, app: str, **extra: Any) -> dict[str, Any]:
    out = obj(kind, name, **extra)
    out["metadata"]["labels"] = {"k8s-app": app}
    return out


def test_typha_by_label_or_selector_goes_with_typha() -> None:
    certs = labelled("Secret", "certs", "calico-typha")
    budget = obj("PodDisruptionBudget", "budget", spec={"selector": TYPHA_SELECTOR})
    s = split_objects([*base_objects(), *typha_objects(), certs, budget])
    assert {"certs", "budget"} <= {r.name for r in s.typha}


def test_calico_node_part_is_its_daemonset_and_calico_config() -> None:
    s = split_objects([*base_objects(), labelled("DaemonSet", "other", "calico-node")])
    assert [(r.kind, r.name) for r in s.calico_node] == [
        ("ConfigMap", "calico-config"),
        ("DaemonSet", "calico-node"),
        ("DaemonSet", "other"),
    ]
