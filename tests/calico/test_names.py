"""One answer to "is this Typha?" and "is this calico-node?" on plain object dicts."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.calico import names


def obj(kind: str, name: Any, labels: Any = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": names.NAMESPACE}
    if labels is not None:
        meta["labels"] = labels
    out: dict[str, Any] = {"kind": kind, "metadata": meta}
    if spec:
        out["spec"] = spec
    return out


TYPHA_SELECTOR = {"matchLabels": {"k8s-app": "calico-typha"}}


@pytest.mark.parametrize(
    "data",
    [
        obj("Deployment", "calico-typha"),
        obj("Service", "calico-typha"),
        obj("PodDisruptionBudget", "calico-typha"),
        obj("ServiceAccount", "calico-typha"),
        obj("Secret", "certs", {"k8s-app": "calico-typha"}),
        obj("Service", "typha-svc", selector={"k8s-app": "calico-typha"}),
        obj("PodDisruptionBudget", "budget", selector=TYPHA_SELECTOR),
        obj("Deployment", "felix-fanout", selector=TYPHA_SELECTOR),
    ],
)
def test_typha_by_name_label_or_selector(data: dict[str, Any]) -> None:
    assert names.is_typha(data)


@pytest.mark.parametrize(
    "data",
    [
        obj("ConfigMap", "not-typha-related"),
        obj("Deployment", "calico-typha-autoscaler"),
        obj("Service", "typha"),
        obj("DaemonSet", "calico-node", {"k8s-app": "calico-node"}),
        obj("Service", "x", selector=TYPHA_SELECTOR),  # a Service's selector is a plain map
        obj("NetworkPolicy", "x", podSelector=TYPHA_SELECTOR),
        obj("Deployment", "x", selector={}),
        {"kind": "Deployment", "metadata": "calico-typha"},
        {"kind": "Deployment", "metadata": {"labels": ["calico-typha"]}},
    ],
)
def test_a_name_containing_typha_is_not_typha(data: dict[str, Any]) -> None:
    assert not names.is_typha(data)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (obj("DaemonSet", "calico-node"), True),
        (obj("DaemonSet", "node", {"k8s-app": "calico-node"}), True),
        (obj("DaemonSet", "calico-node-extra"), False),
        (obj("Deployment", "calico-node"), False),
        (obj("ConfigMap", "calico-config"), False),
    ],
)
def test_calico_node_is_the_daemonset_by_name_or_label(
    data: dict[str, Any], expected: bool
) -> None:
    assert names.is_calico_node(data) is expected


def test_calico_config_is_the_configmap_by_name() -> None:
    assert names.is_calico_config(obj("ConfigMap", "calico-config"))
    assert not names.is_calico_config(obj("Secret", "calico-config"))


def test_images_are_under_the_calico_org() -> None:
    assert names.image(names.CNI_COMPONENT) == "calico/cni"
    assert names.image(names.NODE_COMPONENT) == "calico/node"
    assert set(names.PREPULLED_COMPONENTS) <= set(names.IMAGE_COMPONENTS)
