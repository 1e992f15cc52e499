"""Typha release rules: each fires on a broken object, names it and the field, and only then."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.calico.rules import ERROR, run_rules
from renderer.finding import Finding
from tests.calico.rules.inputs import pod_spec, rule_input
from tests.clihelp import ref

TYPHA = "Deployment kube-system/calico-typha"
PDB = "PodDisruptionBudget kube-system/calico-typha"


def _only(findings: list[Finding], rule_id: str) -> list[Finding]:
    assert {f.rule for f in findings} == {rule_id}, findings
    return findings


def test_good_render_has_no_findings() -> None:
    assert run_rules(rule_input()) == []


def test_rolling_update() -> None:
    def recreate(d: dict[str, Any]) -> None:
        d["spec"]["strategy"] = {"type": "Recreate"}

    [f] = _only(run_rules(rule_input(recreate)), "typha-rolling-update")
    assert (ref(f.object), f.field, f.severity) == (TYPHA, "spec.strategy.type", ERROR)
    assert f.file == "v9.1.0/001-typha.yaml" and f.line > 0


def test_anti_affinity_missing_or_wrong_topology() -> None:
    def drop(d: dict[str, Any]) -> None:
        del pod_spec(d)["affinity"]

    def zone(d: dict[str, Any]) -> None:
        term = pod_spec(d)["affinity"]["podAntiAffinity"][
            "preferredDuringSchedulingIgnoredDuringExecution"
        ]
        term[0]["podAffinityTerm"]["topologyKey"] = "topology.kubernetes.io/zone"

    for change in (drop, zone):
        [f] = _only(run_rules(rule_input(change)), "typha-anti-affinity")
        assert ref(f.object) == TYPHA and f.field == "spec.template.spec.affinity.podAntiAffinity"


def test_anti_affinity_required_term_is_accepted() -> None:
    def required(d: dict[str, Any]) -> None:
        pod_spec(d)["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "topologyKey": "kubernetes.io/hostname",
                        "labelSelector": {"matchLabels": {"k8s-app": "calico-typha"}},
                    }
                ]
            }
        }

    assert run_rules(rule_input(required)) == []


def test_graceful_shutdown_grace_and_env() -> None:
    def grace(d: dict[str, Any]) -> None:
        pod_spec(d)["terminationGracePeriodSeconds"] = 30

    def env(d: dict[str, Any]) -> None:
        pod_spec(d)["containers"][0]["env"][0]["value"] = "60"

    findings = _only(run_rules(rule_input(grace)), "typha-graceful-shutdown")
    assert [f.field for f in findings] == ["spec.template.spec.terminationGracePeriodSeconds"]
    [f] = _only(run_rules(rule_input(env)), "typha-graceful-shutdown")
    assert f.field == "spec.template.spec.containers[0].env[0].value" and "'60'" in f.message


def test_probes() -> None:
    def drop(d: dict[str, Any]) -> None:
        del pod_spec(d)["containers"][0]["readinessProbe"]

    [f] = _only(run_rules(rule_input(drop)), "typha-probes")
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

    [f] = _only(run_rules(rule_input(change, "PodDisruptionBudget")), rule_id)
    assert ref(f.object) == PDB and f.field == f"spec.{next(iter(spec))}"


@pytest.mark.parametrize("spec", [{"maxUnavailable": "33%"}, {"minAvailable": 2}])
def test_pdb_one_down_is_fine(spec: dict[str, Any]) -> None:
    def change(d: dict[str, Any]) -> None:
        d["spec"] = {"selector": d["spec"]["selector"], **spec}

    assert run_rules(rule_input(change, "PodDisruptionBudget")) == []


def test_replicas_below_nodes() -> None:
    [f] = _only(run_rules(rule_input(nodes=3)), "typha-replicas-below-nodes")
    assert f.field == "spec.replicas" and "3 replicas on 3 nodes" in f.message
    assert run_rules(rule_input(nodes=4)) == []
