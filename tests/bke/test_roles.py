"""renderer/bke/roles.py: what the scheduler sees of a BKE node of each role."""

from __future__ import annotations

from renderer.bke.roles import NODE_SHAPES, ROLES
from renderer.k8s.parse import K8sObject
from renderer.k8s.workloads import may_run_on


def deployment(**pod: object) -> K8sObject:
    spec = {"containers": [{"name": "c", "image": "x"}], **pod}
    return K8sObject("f", 0, 1, {"kind": "Deployment", "spec": {"template": {"spec": spec}}})


def runs_on(obj: K8sObject) -> list[str]:
    return [r for r in ROLES if (shape := NODE_SHAPES[r]) is not None and may_run_on(obj, shape)]


def test_a_dedicated_master_is_cordoned_and_an_etcd_node_runs_nothing() -> None:
    assert runs_on(deployment()) == ["master/node", "node"]
    assert NODE_SHAPES["etcd"] is None


def test_masters_carry_the_role_labels_bke_sets() -> None:
    on_masters = deployment(
        nodeSelector={"node-role.kubernetes.io/control-plane": "control-plane"},
        tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}],
    )
    assert runs_on(on_masters) == ["master", "master/node"]
    workers = deployment(nodeSelector={"node-role.kubernetes.io/worker": "worker"})
    assert runs_on(workers) == ["master/node", "node"]
