"""The Typha contract, judged on parsed renders of fixture and bundled versions."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from renderer.calico.capability import (
    CONTRACT_ITEMS,
    assess_capability,
    check_contract,
    typha_traces,
)
from renderer.checks import pipeline
from renderer.checks.renders import Renders, assess
from renderer.checks.verdict import capability_of, render_objects
from renderer.k8s.parse import K8sObject
from renderer.manifests.tree import VersionDir, list_versions, resolve_version
from tests.clihelp import run
from tests.gatehelp import TREE, typha_on_objects


def _failed(version: str) -> set[str]:
    report = capability_of(resolve_version(version, TREE))
    return {i.id for i in report.items if not i.ok}


def _with(objects: list[K8sObject], kind: str, name: str, change: object) -> list[K8sObject]:
    out = []
    for o in objects:
        if o.kind == kind and o.name == name:
            data = copy.deepcopy(o.data)
            change(data)  # type: ignore[operator]
            o = K8sObject(o.file, o.index, o.line, data)
        out.append(o)
    return out


def _off(objects: list[K8sObject]) -> list[K8sObject]:
    typha = {("Service", "calico-typha"), ("Deployment", "calico-typha")}
    kept = [o for o in objects if (o.kind, o.name) not in typha and o.kind != "PodDisruptionBudget"]

    def none(data: dict) -> None:  # type: ignore[type-arg]
        data["data"]["typha_service_name"] = "none"

    return _with(kept, "ConfigMap", "calico-config", none)


def test_contract_pure_capable() -> None:
    on = {3: typha_on_objects(replicas=3), 4: typha_on_objects(replicas=4)}
    items = check_contract(_off(on[3]), on)
    assert [i.id for i in items] == list(CONTRACT_ITEMS)
    assert all(i.ok for i in items), [i for i in items if not i.ok]


def test_contract_needs_two_replica_counts() -> None:
    with pytest.raises(ValueError, match="two different replica counts"):
        check_contract([], {3: typha_on_objects()})


def test_v1beta1_pdb_is_not_the_contract_pdb() -> None:
    def beta(data: dict) -> None:  # type: ignore[type-arg]
        data["apiVersion"] = "policy/v1beta1"

    on = {
        r: _with(typha_on_objects(replicas=r), "PodDisruptionBudget", "calico-typha", beta)
        for r in (3, 4)
    }
    items = {i.id: i for i in check_contract(_off(on[3]), on)}
    assert not items["typha-pdb"].ok
    assert "policy/v1beta1" in items["typha-pdb"].detail


def test_off_render_pointing_at_typha_is_named(data_regression: Any) -> None:
    on = {r: typha_on_objects(replicas=r) for r in (3, 4)}
    off = [o for o in on[3] if not (o.kind != "PodDisruptionBudget" and o.name == "calico-typha")]
    failed = {i.id: i.detail for i in check_contract(off, on) if not i.ok}
    # calico-node still reads typha_service_name, and the PDB selecting Typha pods stayed:
    # the details name the key, the env var and the object.
    assert set(failed) == {"off-node-direct", "off-no-typha"}
    data_regression.check(failed)


def test_felix_env_as_literal_is_not_from_config() -> None:
    def literal(data: dict) -> None:  # type: ignore[type-arg]
        env = data["spec"]["template"]["spec"]["containers"][0]["env"]
        env[1] = {"name": "FELIX_TYPHAK8SSERVICENAME", "value": "calico-typha"}

    on = {
        r: _with(typha_on_objects(replicas=r), "DaemonSet", "calico-node", literal) for r in (3, 4)
    }
    items = {i.id: i for i in check_contract(_off(typha_on_objects()), on)}
    assert not items["node-felix-env"].ok


def test_service_port_and_selector_checked() -> None:
    def wrong(data: dict) -> None:  # type: ignore[type-arg]
        data["spec"]["ports"][0]["port"] = 5474
        data["spec"]["selector"] = {"k8s-app": "calico-node"}

    on = {r: _with(typha_on_objects(replicas=r), "Service", "calico-typha", wrong) for r in (3, 4)}
    item = {i.id: i for i in check_contract(_off(on[3]), on)}["typha-service"]
    assert not item.ok and "5473" in item.detail and "calico-node" in item.detail


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["spec"]["ports"][0].update(targetPort=5999), "targetPort 5999"),
        (lambda d: d["spec"]["ports"][0].update(targetPort="typha"), "targetPort 'typha'"),
        (lambda d: d["metadata"].update(namespace="default"), "namespace 'default'"),
    ],
)
def test_service_must_reach_typha_where_calico_node_looks(change: Any, words: str) -> None:
    on = {r: _with(typha_on_objects(replicas=r), "Service", "calico-typha", change) for r in (3, 4)}
    item = {i.id: i for i in check_contract(_off(on[3]), on)}["typha-service"]
    assert not item.ok and words in item.detail


def test_fixture_good_version_is_capable() -> None:
    report = capability_of(resolve_version("v9.1.0", TREE))
    assert report.capable and report.missing == []
    assert [s.name for s in report.scenarios] == ["off", "on-3", "on-4"]


def test_render_is_the_callers_and_each_context_renders_once() -> None:
    version = resolve_version("v9.4.0", TREE)
    asked: list[dict[str, str]] = []

    def counting(v: VersionDir, typha: Mapping[str, str]) -> Any:
        asked.append(dict(typha))
        return render_objects(v, typha)

    report = assess_capability(version, render=counting)
    assert asked == [
        {"allowTypha": "false", "typhaReplicas": "0"},
        {"allowTypha": "true", "typhaReplicas": "3"},
        {"allowTypha": "true", "typhaReplicas": "4"},
    ]
    assert [(s.name, s.replicas) for s in report.scenarios] == [
        ("off", 0),
        ("on-3", 3),
        ("on-4", 4),
    ]
    assert report.typha_on(4).name == "on-4"
    with pytest.raises(KeyError):
        report.typha_on(0)
    on = report.typha_on(3)
    assert on.context["typhaReplicas"] == "3"
    # Release rules judge the 3-replica render of the report they are given.
    cap = assess(Renders(version))
    found = pipeline.release_rules(report)
    assert [f.rule for f in found] == ["typha-anti-affinity"]
    assert [(f.stage, f.rule) for f in pipeline.release_rules(cap)] == [
        ("rules", "typha-anti-affinity")
    ]


def test_text_search_trap_is_not_capable() -> None:
    vdir = resolve_version("v9.2.0", TREE)
    text = vdir.files[0].path.read_text()
    for keyword in (
        "kind: Service",
        "name: calico-typha",
        "typha_service_name",
        "FELIX_TYPHAK8SSERVICENAME",
        "PodDisruptionBudget",
    ):
        assert keyword in text
    report = capability_of(vdir)
    assert not report.capable
    assert {
        "typha-service",
        "typha-deployment",
        "typha-replicas",
        "typha-pdb",
        "config-service-name",
    } <= {i.id for i in report.items if not i.ok}
    assert any(
        m.startswith("Service calico-typha selecting k8s-app: calico-typha on port 5473")
        for m in report.missing
    )


def test_hard_coded_replicas_is_not_capable(data_regression: Any) -> None:
    assert _failed("v9.3.0") == {"typha-replicas"}
    report = capability_of(resolve_version("v9.3.0", TREE))
    item = {i.id: i for i in report.items}["typha-replicas"]
    data_regression.check(item.to_dict())  # the detail: asked 4, rendered 3


def test_incomplete_typha_templates_are_not_legacy() -> None:
    report = capability_of(resolve_version("v9.3.0", TREE))
    assert not report.capable and not report.legacy
    assert "Deployment kube-system/calico-typha" in report.typha
    assert report.verdict == (
        "Typha templates incomplete: missing Deployment calico-typha replicas "
        "following typhaReplicas"
    )


@pytest.mark.parametrize("version", ["v9.0.0", "v9.2.0"])
def test_no_typha_objects_is_legacy(version: str) -> None:
    """v9.2.0 mentions Typha only in comments and unrelated objects: still legacy."""
    report = capability_of(resolve_version(version, TREE))
    assert not report.capable and report.legacy and report.typha == ()
    assert report.verdict == "legacy: no Typha templates"


def test_any_typha_object_or_pointer_in_an_on_render_is_a_trace() -> None:
    on = {r: typha_on_objects(replicas=r) for r in (3, 4)}
    assert typha_traces(on) == (
        "Deployment kube-system/calico-typha",
        "Service kube-system/calico-typha",
        "PodDisruptionBudget kube-system/calico-typha",
        "ConfigMap calico-config typha_service_name: calico-typha",
        "calico-node: FELIX_TYPHAK8SSERVICENAME reads calico-config.typha_service_name = "
        "'calico-typha'",
    )
    off = _off(on[3])
    assert typha_traces({3: off, 4: off}) == ()

    def literal(data: dict) -> None:  # type: ignore[type-arg]
        env = data["spec"]["template"]["spec"]["containers"][0]["env"]
        env[1] = {"name": "FELIX_TYPHAK8SSERVICENAME", "value": "calico-typha"}

    pointed = _with(off, "DaemonSet", "calico-node", literal)
    assert typha_traces({3: pointed, 4: off}) == (
        "calico-node: FELIX_TYPHAK8SSERVICENAME is 'calico-typha'",
    )


def test_capability_text_says_incomplete_or_legacy(
    capsys: pytest.CaptureFixture[str], file_regression: Any
) -> None:
    args = ("--manifests", str(TREE), "--kube-version", "1.30")
    for version in ("v9.3.0", "v9.2.0"):  # incomplete, legacy
        r = run(capsys, "capability", "--version", version, *args)
        assert r.code == 1
        text = r.out.replace(str(TREE), "TREE")
        file_regression.check(text, basename=f"capability-{version}", extension=".txt")
    r = run(capsys, "versions", "--manifests", str(TREE))
    assert r.code == 0
    assert r.err == (
        "calico-render: warning: v9.3.0: Typha templates incomplete: missing Deployment "
        "calico-typha replicas following typhaReplicas\n"
    )


def test_legacy_fixture_names_every_missing_item() -> None:
    assert _failed("v9.0.0") == {
        "typha-service",
        "typha-deployment",
        "typha-replicas",
        "typha-pdb",
        "config-service-name",
    }


def test_no_anti_affinity_is_still_capable() -> None:
    assert _failed("v9.4.0") == set()


@pytest.mark.parametrize(
    ("version", "capable"),
    [
        ("v3.25.0", False),
        ("v3.27.3", False),
        ("v3.28.2", True),
        ("v3.29.3", True),
        ("v3.31.3", True),
    ],
)
def test_bundled_capability(version: str, capable: bool) -> None:
    report = capability_of(resolve_version(version))
    assert report.capable is capable, report.missing
    assert report.legacy is not capable


def test_every_bundled_version_is_judged() -> None:
    assert [v.name for v in list_versions()] == [
        "v3.25.0",
        "v3.27.3",
        "v3.28.2",
        "v3.29.3",
        "v3.31.3",
    ]
