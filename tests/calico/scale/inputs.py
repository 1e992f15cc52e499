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
from renderer.k8s.parse import K8sObject, parse_stream


def n(value: int) -> Fact:
    return Fact(value, FLAG, "--nodes")


PODS = Fact(110, KUBERNETES_DEFAULT, "kubelet maxPods")


def pool(cidr: str, block: int | str = 26, family: int = 4) -> Pool:
    return Pool(family, Fact(cidr, RENDERED, "env"), Fact(block, RENDERED, "env"))


def requests(cpu: str | None, memory: str | None) -> Requests:
    return Requests(Fact(cpu, RENDERED, "cpu"), Fact(memory, RENDERED, "memory"))


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
