"""Release rules: each fires on a broken object, names it and the field, and only then."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from renderer.checks.finding import Finding
from renderer.checks.rules import ERROR, REGISTRY, WARNING, RuleInput, run_rules
from renderer.k8s.parse import K8sObject
from tests.gatehelp import REPO, typha_on_objects

TYPHA = "Deployment kube-system/calico-typha"
PDB = "PodDisruptionBudget kube-system/calico-typha"


def _input(
    change: Callable[[dict[str, Any]], None] | None = None,
    kind: str = "Deployment",
    name: str = "calico-typha",
    nodes: int = 51,
) -> RuleInput:
    objects = []
    for o in typha_on_objects():
        if change is not None and o.kind == kind and o.name == name:
            data = copy.deepcopy(o.data)
            change(data)
            o = K8sObject(o.file, o.index, o.line, data)
        objects.append(o)
    return RuleInput(objects, "v9.1.0", {"repo": REPO}, nodes)


def _pod(data: dict[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = data["spec"]["template"]["spec"]
    return pod


def _only(findings: list[Finding], rule_id: str) -> list[Finding]:
    assert {f.rule for f in findings} == {rule_id}, findings
    return findings


def test_registered_rule_ids() -> None:
    assert sorted(REGISTRY) == [
        "calico-image-tag",
        "calico-one-version",
        "typha-anti-affinity",
        "typha-graceful-shutdown",
        "typha-pdb-allows-drain",
        "typha-pdb-max-one-down",
        "typha-probes",
        "typha-replicas-below-nodes",
        "typha-rolling-update",
    ]
    assert {r.severity for r in REGISTRY.values()} == {ERROR, WARNING}


def test_good_render_has_no_findings() -> None:
    assert run_rules(_input()) == []


def test_rolling_update() -> None:
    def recreate(d: dict[str, Any]) -> None:
        d["spec"]["strategy"] = {"type": "Recreate"}

    [f] = _only(run_rules(_input(recreate)), "typha-rolling-update")
    assert (f.object, f.field, f.severity) == (TYPHA, "spec.strategy.type", ERROR)
    assert f.file == "v9.1.0/001-typha.yaml" and f.line > 0


def test_anti_affinity_missing_or_wrong_topology() -> None:
    def drop(d: dict[str, Any]) -> None:
        del _pod(d)["affinity"]

    def zone(d: dict[str, Any]) -> None:
        term = _pod(d)["affinity"]["podAntiAffinity"][
            "preferredDuringSchedulingIgnoredDuringExecution"
        ]
        term[0]["podAffinityTerm"]["topologyKey"] = "topology.kubernetes.io/zone"

    for change in (drop, zone):
        [f] = _only(run_rules(_input(change)), "typha-anti-affinity")
        assert f.object == TYPHA and f.field == "spec.template.spec.affinity.podAntiAffinity"


def test_anti_affinity_required_term_is_accepted() -> None:
    def required(d: dict[str, Any]) -> None:
        _pod(d)["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "topologyKey": "kubernetes.io/hostname",
                        "labelSelector": {"matchLabels": {"k8s-app": "calico-typha"}},
                    }
                ]
            }
        }

    assert run_rules(_input(required)) == []


def test_graceful_shutdown_grace_and_env() -> None:
    def grace(d: dict[str, Any]) -> None:
        _pod(d)["terminationGracePeriodSeconds"] = 30

    def env(d: dict[str, Any]) -> None:
        _pod(d)["containers"][0]["env"][0]["value"] = "60"

    findings = _only(run_rules(_input(grace)), "typha-graceful-shutdown")
    assert [f.field for f in findings] == ["spec.template.spec.terminationGracePeriodSeconds"]
    [f] = _only(run_rules(_input(env)), "typha-graceful-shutdown")
    assert f.field == "spec.template.spec.containers[0].env[0].value" and "'60'" in f.message


def test_probes() -> None:
    def drop(d: dict[str, Any]) -> None:
        del _pod(d)["containers"][0]["readinessProbe"]

    [f] = _only(run_rules(_input(drop)), "typha-probes")
    assert f.field == "spec.template.spec.containers[0].readinessProbe"


@pytest.mark.parametrize(
    ("spec", "rule_id"),
    [
        ({"maxUnavailable": 2}, "typha-pdb-max-one-down"),
        ({"maxUnavailable": "34%"}, "typha-pdb-max-one-down"),  # rounds up to 2 of 3
        ({"minAvailable": 1}, "typha-pdb-max-one-down"),
        ({"maxUnavailable": 0}, "typha-pdb-allows-drain"),
        ({"minAvailable": 3}, "typha-pdb-allows-drain"),
    ],
)
def test_pdb_budget(spec: dict[str, Any], rule_id: str) -> None:
    def change(d: dict[str, Any]) -> None:
        d["spec"] = {"selector": d["spec"]["selector"], **spec}

    [f] = _only(run_rules(_input(change, "PodDisruptionBudget")), rule_id)
    assert f.object == PDB and f.field == f"spec.{next(iter(spec))}"


@pytest.mark.parametrize("spec", [{"maxUnavailable": "33%"}, {"minAvailable": 2}])
def test_pdb_one_down_is_fine(spec: dict[str, Any]) -> None:
    def change(d: dict[str, Any]) -> None:
        d["spec"] = {"selector": d["spec"]["selector"], **spec}

    assert run_rules(_input(change, "PodDisruptionBudget")) == []


def test_replicas_below_nodes() -> None:
    [f] = _only(run_rules(_input(nodes=3)), "typha-replicas-below-nodes")
    assert f.field == "spec.replicas" and "3 replicas on 3 nodes" in f.message
    assert run_rules(_input(nodes=4)) == []


def test_image_tag_and_repo() -> None:
    def other(d: dict[str, Any]) -> None:
        _pod(d)["containers"][0]["image"] = "docker.io/calico/node:v9.0.9"

    findings = run_rules(_input(other, "DaemonSet", "calico-node"))
    tags = [f for f in findings if f.rule == "calico-image-tag"]
    assert {f.object for f in tags} == {"DaemonSet kube-system/calico-node"}
    assert {f.field for f in tags} == {"spec.template.spec.containers[0].image"}
    assert any("not tagged v9.1.0" in f.message for f in tags)
    assert any("does not start with repo" in f.message for f in tags)
    [mixed] = [f for f in findings if f.rule == "calico-one-version"]
    assert (
        "v9.0.9: node" in mixed.message and "v9.1.0: cni, kube-controllers, typha" in mixed.message
    )


def test_non_calico_images_are_ignored() -> None:
    def other(d: dict[str, Any]) -> None:
        _pod(d)["containers"].append({"name": "sidecar", "image": "busybox:1.36"})

    assert run_rules(_input(other, "DaemonSet", "calico-node")) == []
