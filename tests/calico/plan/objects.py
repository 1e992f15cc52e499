"""Plain rendered objects and plan sides for the plan tests."""

from __future__ import annotations

from typing import Any

from renderer.calico.plan import Plan, Side, split_objects
from renderer.data.schemas import PLAN as PLAN_SCHEMA
from renderer.data.schemas import validate_output
from renderer.output.documents import plan_json

NS = "kube-system"


def obj(kind: str, name: str, ns: str = NS, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if ns:
        meta["namespace"] = ns
    api = {
        "Deployment": "apps/v1",
        "DaemonSet": "apps/v1",
        "PodDisruptionBudget": "policy/v1",
        "CustomResourceDefinition": "apiextensions.k8s.io/v1",
        "ClusterRole": "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
    }.get(kind, "v1")
    return {"apiVersion": api, "kind": kind, "metadata": meta, **extra}


def typha_objects() -> list[dict[str, Any]]:
    return [
        obj(
            "Deployment",
            "calico-typha",
            spec={"template": {"spec": {"serviceAccountName": "calico-node"}}},
        ),
        obj("Service", "calico-typha"),
        obj("PodDisruptionBudget", "calico-typha"),
    ]


def base_objects(extra: str = "") -> list[dict[str, Any]]:
    out = [
        obj("CustomResourceDefinition", "felixconfigurations.crd.projectcalico.org", ""),
        obj("ServiceAccount", "calico-node"),
        obj("ClusterRole", "calico-node", ""),
        obj(
            "ClusterRoleBinding",
            "calico-node",
            "",
            subjects=[{"kind": "ServiceAccount", "name": "calico-node", "namespace": NS}],
            roleRef={"kind": "ClusterRole", "name": "calico-node"},
        ),
        obj("ConfigMap", "calico-config"),
        obj("DaemonSet", "calico-node"),
        obj("Deployment", "calico-kube-controllers"),
    ]
    if extra:
        out.append(obj("ConfigMap", extra))
    return out


def side(
    version: str,
    nodes: int,
    capable: bool,
    *,
    typha: bool,
    extra: str = "",
    keys: frozenset[str] = frozenset(),
) -> Side:
    objects = base_objects(extra) + (typha_objects() if typha else [])
    return Side(version, nodes, capable, split_objects(objects), keys)


def names(refs: list[dict[str, str]]) -> list[str]:
    return [f"{r['kind']}/{r['name']}" for r in refs]


def checked(plan: Plan) -> dict[str, Any]:
    """The plan as published, checked against its schema."""
    data = plan_json(plan)
    validate_output(PLAN_SCHEMA, data)
    return data
