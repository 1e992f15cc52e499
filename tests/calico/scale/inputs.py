"""Inputs of the scale tests: facts, pools and requests made by hand, and a small
calico-node (and Typha) render to extract them from."""

from __future__ import annotations

from typing import Any

from renderer.calico.scale.extraction import extract as extract_inputs
from renderer.calico.scale.facts import (
    CONTROLLER_DEFAULT,
    FLAG,
    KUBERNETES_DEFAULT,
    RENDERED,
    Fact,
    Pool,
    Requests,
    ScaleInputs,
)
from renderer.calico.scale.registry import REGISTRY, ScaleDetails, advise
from renderer.finding import Finding
from renderer.k8s.parse import K8sObject, parse_stream


def n(value: int) -> Fact:
    return Fact(value, FLAG, "--nodes")


PODS = Fact(110, KUBERNETES_DEFAULT, "kubelet maxPods")


def pool(cidr: str, block: int | str = 26, family: int = 4) -> Pool:
    return Pool(family, Fact(cidr, RENDERED, "env"), Fact(block, RENDERED, "env"))


def requests(cpu: str | None, memory: str | None) -> Requests:
    return Requests(Fact(cpu, RENDERED, "cpu"), Fact(memory, RENDERED, "memory"))


def details(finding: Finding) -> ScaleDetails:
    """A scale finding's typed details."""
    assert isinstance(finding.details, ScaleDetails)
    return finding.details


BIRD = Fact("bird", RENDERED, "calico_backend")
NO_TYPHA = Fact(None, RENDERED, "no Deployment calico-typha rendered")


def advise_one(
    rule: str,
    nodes: int,
    *,
    pool: Pool | None = None,
    backend: Fact = BIRD,
    replicas: Fact = NO_TYPHA,
    felix: Requests | None = None,
    typha: Requests | None = None,
) -> Finding:
    """The one finding of ``rule``, run through the registry, for ``nodes`` nodes of 110
    max pods and (for a pool rule) one ``pool``."""
    data = ScaleInputs(n(nodes), PODS, (pool,) if pool else (), backend, replicas, felix, typha)
    (finding,) = advise(data, [REGISTRY[rule]])
    return finding


CALICO_NODE = """\
kind: ConfigMap
apiVersion: v1
metadata: {name: calico-config, namespace: kube-system}
data:
  calico_backend: bird
---
kind: DaemonSet
apiVersion: apps/v1
metadata: {name: calico-node, namespace: kube-system}
spec:
  template:
    spec:
      containers:
        - name: calico-node
          resources:
            requests: {cpu: 500m, memory: 1Gi}
          env:
%s
"""

TYPHA = """\
---
kind: Deployment
apiVersion: apps/v1
metadata: {name: calico-typha, namespace: kube-system}
spec:
  %s
  template:
    spec:
      containers:
        - name: calico-typha
"""


DATASTORE = "            - {name: DATASTORE_TYPE, value: kubernetes}"


def objects(env: str = DATASTORE, typha: str = "") -> list[K8sObject]:
    return parse_stream(CALICO_NODE % env + typha, "v1/calico.yaml")


SUBNET = Fact("10.250.0.0/16", CONTROLLER_DEFAULT, "BKE controller default podSubnet")
IPV4 = Fact("ipv4", CONTROLLER_DEFAULT, "default")


def extract(objs: Any, ip_mod: Fact = IPV4) -> ScaleInputs:
    return extract_inputs(
        objs, nodes=n(601), max_pods=PODS, pod_subnet=SUBNET, ip_mod_version=ip_mod
    )
