"""renderer/k8s/workloads.py: where a workload's pods may be scheduled."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.k8s.parse import K8sObject
from renderer.k8s.workloads import UNSCHEDULABLE, NodeShape, Taint, may_run_on, workload_images

MASTER = {"node-role.kubernetes.io/master": "", "kubernetes.io/os": "linux"}
CORDONED = NodeShape(MASTER, (Taint(UNSCHEDULABLE),))
TAINTED = NodeShape(MASTER, (Taint("node-role.kubernetes.io/master"),))
WORKER = NodeShape({"node-role.kubernetes.io/node": "", "kubernetes.io/os": "linux"})


def workload(kind: str = "Deployment", **pod: Any) -> K8sObject:
    spec = {"containers": [{"name": "c", "image": " img:1 "}], **pod}
    data: dict[str, Any] = {"kind": kind, "metadata": {"name": "w"}}
    data["spec"] = spec if kind == "Pod" else {"template": {"spec": spec}}
    return K8sObject("f.yaml", 0, 1, data)


@pytest.mark.parametrize(
    ("obj", "node", "runs"),
    [
        (workload(), WORKER, True),
        (workload(), CORDONED, False),
        (workload("DaemonSet"), CORDONED, True),  # the DaemonSet controller tolerates it
        (workload("DaemonSet"), TAINTED, False),
        (workload("DaemonSet", tolerations=[{"operator": "Exists"}]), TAINTED, True),
        (workload(tolerations=[{"key": "node-role.kubernetes.io/master",
                                "effect": "NoSchedule"}]), TAINTED, True),
        (workload(tolerations=[{"key": "node-role.kubernetes.io/master",
                                "effect": "NoExecute"}]), TAINTED, False),
        (workload(tolerations=[{"key": "node-role.kubernetes.io/master", "value": "x"}]),
         TAINTED, False),
        (workload("Pod", nodeSelector={"node-role.kubernetes.io/master": ""}), WORKER, False),
        (workload(nodeSelector={"kubernetes.io/os": "linux"}), WORKER, True),
        (workload(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "node-role.kubernetes.io/master",
                                       "operator": "Exists"}]},
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]},
            ]}}}), WORKER, False),
        (workload(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "node-role.kubernetes.io/master",
                                       "operator": "DoesNotExist"}]},
            ]}}}), WORKER, True),
        (workload("CronJob"), WORKER, False),  # no pod spec where a CronJob keeps it
    ],
)  # fmt: skip
def test_where_pods_may_run(obj: K8sObject, node: NodeShape, runs: bool) -> None:
    assert (may_run_on(obj, node) and bool(list(workload_images([obj], node)))) == runs


def test_images_are_read_from_every_container_stripped() -> None:
    obj = workload(initContainers=[{"name": "i", "image": "init:2"}])
    assert [image for _, image in workload_images([obj], WORKER)] == ["init:2", "img:1"]
