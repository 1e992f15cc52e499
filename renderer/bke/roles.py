"""What the scheduler sees of a BKE node of each role: the labels and taints BKE's
controller gives the node (``setTargetClusterNodeRole`` and the cordon of a dedicated
master), so the images a node of a role pulls can be read from the rendered workloads
(:mod:`renderer.k8s.workloads`).

A ``master`` node carries the master and control-plane role labels and is cordoned
(only DaemonSets and pods tolerating ``node.kubernetes.io/unschedulable`` run there); a
``master/node`` node carries both label sets and takes any pod; a ``node`` node the
worker labels. A dedicated ``etcd`` node may run no kubelet: it pulls nothing.
Every node has the kubelet's OS and architecture labels (``linux``; ``amd64`` stands for
the architecture: a selector on another one would differ).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from renderer.k8s.parse import K8sObject
from renderer.k8s.workloads import UNSCHEDULABLE, NodeShape, Taint, workload_images

_KUBELET = {
    "kubernetes.io/os": "linux",
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    "beta.kubernetes.io/arch": "amd64",
}
_MASTER = {
    "node-role.kubernetes.io/master": "",
    "node-role.kubernetes.io/control-plane": "control-plane",
}
_WORKER = {"node-role.kubernetes.io/node": "", "node-role.kubernetes.io/worker": "worker"}

#: The roles of today's BKENodes, and the node each makes (None: no kubelet).
NODE_SHAPES: Mapping[str, NodeShape | None] = {
    "master": NodeShape({**_KUBELET, **_MASTER}, (Taint(UNSCHEDULABLE),)),
    "master/node": NodeShape({**_KUBELET, **_MASTER, **_WORKER}),
    "node": NodeShape({**_KUBELET, **_WORKER}),
    "etcd": None,
}
ROLES = tuple(NODE_SHAPES)
#: The other names a node role goes by (the images command's): a worker is a ``node``;
#: seed 001's dedicated etcd roles run no kubelet; its split control-plane roles are
#: read as a ``master`` (what today's controller labels a control-plane node).
_SAME_AS = {
    "worker": "node",
    "etcd-event": "etcd",
    "etcd-pod": "etcd",
    "apiserver": "master",
    "controller-manager": "master",
    "scheduler": "master",
}


def shape_role(role: str) -> str:
    """The role of :data:`NODE_SHAPES` a node of ``role`` is scheduled as."""
    return _SAME_AS.get(role, role)


def images_by_role(
    objects: Sequence[K8sObject],
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Role -> the images a node of that role pulls for ``objects`` (every workload whose
    pods may be scheduled there, sorted), and role -> those of the DaemonSets alone,
    which every such node runs; nothing for a role that runs no kubelet."""
    by_role: dict[str, tuple[str, ...]] = {}
    daemons: dict[str, tuple[str, ...]] = {}
    for role, shape in NODE_SHAPES.items():
        if shape is None:
            by_role[role] = daemons[role] = ()
            continue
        uses = list(workload_images(objects, shape))
        by_role[role] = tuple(sorted({image for _, image in uses}))
        daemons[role] = tuple(sorted({image for o, image in uses if o.kind == "DaemonSet"}))
    return by_role, daemons
