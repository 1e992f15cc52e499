"""Pure phase planning: every plan shape, its gates, drift and odd input shapes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from renderer.calico.plan import (
    BUILDERS,
    SHAPES,
    ObjectRef,
    Side,
    drift_warnings,
    make_plan,
    shape_of,
    split_objects,
)
from tests.calico.plan.objects import base_objects, checked, names, obj, side, typha_objects

ROLLOUT_NODE = "kubectl -n kube-system rollout status daemonset/calico-node --timeout=30m"


def test_every_shape_has_one_builder() -> None:
    assert list(BUILDERS) == list(SHAPES)


@pytest.mark.parametrize(
    ("source_typha", "target_typha", "compatibility", "shape"),
    [
        (False, True, False, "introduce-typha"),
        (True, True, False, "typha-upgrade"),
        (True, False, False, "remove-typha"),
        (True, False, True, "remove-typha"),
        (False, False, False, "direct"),
        (False, False, True, "compatibility"),
    ],
)
def test_shape_follows_where_each_side_runs_typha(
    source_typha: bool, target_typha: bool, compatibility: bool, shape: str
) -> None:
    assert shape_of(source_typha, target_typha, compatibility) == shape


def test_introduce_typha_on_upgrade_from_a_version_without_it() -> None:
    plan = make_plan(
        side("v3.27.3", 601, False, typha=False),
        side("v3.31.3", 601, True, typha=True),
    )
    data = checked(plan)
    assert data["shape"] == "introduce-typha" and data["operation"] == "upgrade"
    assert data["to"]["typhaReplicas"] == 4
    prereq, first, second = data["phases"]
    assert [n for n, _ in plan.numbered()] == [0, 1, 2]
    # Phase 0: the CRDs the target's Typha lists; its RBAC is the same in both versions.
    assert prereq["name"] == "prerequisites"
    assert names(prereq["apply"]) == [
        "CustomResourceDefinition/felixconfigurations.crd.projectcalico.org",
    ]
    assert prereq["gate"]["command"] == (
        "kubectl wait --for condition=established --timeout=2m "
        "crd/felixconfigurations.crd.projectcalico.org"
    )
    # The descriptions (RBAC unchanged, calico-node stays on the API server while Typha
    # starts) are pinned whole by test_introduce_plan_regression.
    # Phase 1: exactly Typha's Service, Deployment and PDB.
    assert first["name"] == "typha"
    assert names(first["apply"]) == [
        "Service/calico-typha",
        "PodDisruptionBudget/calico-typha",
        "Deployment/calico-typha",
    ]
    gate = first["gate"]
    assert (
        "readyReplicas" in gate["command"]
        and "get endpointslices -l kubernetes.io/service-name=calico-typha" in gate["command"]
    )
    assert gate["command"].count("-ge 3") == 2
    assert names(second["apply"]) == [
        "ServiceAccount/calico-node",
        "ConfigMap/calico-config",
        "ClusterRole/calico-node",
        "ClusterRoleBinding/calico-node",
        "DaemonSet/calico-node",
        "Deployment/calico-kube-controllers",
    ]
    assert second["gate"]["command"] == ROLLOUT_NODE
    assert all(p["delete"] == [] for p in data["phases"])


@pytest.mark.parametrize(("before", "after"), [(50, 51), (10, 600)])
def test_introduce_typha_when_growing_past_50(before: int, after: int) -> None:
    plan = make_plan(
        side("v3.31.3", before, True, typha=False),
        side("v3.31.3", after, True, typha=True),
    )
    assert plan.shape == "introduce-typha"
    assert [p.name for p in plan.phases] == ["prerequisites", "typha", "calico-node"]
    assert plan.target["typhaReplicas"] == 3


def test_remove_typha_when_shrinking_to_50() -> None:
    plan = make_plan(
        side("v3.31.3", 51, True, typha=True),
        side("v3.31.3", 50, True, typha=False),
    )
    data = checked(plan)
    assert data["shape"] == "remove-typha"
    first, second = data["phases"]
    assert first["name"] == "calico-node-to-apiserver"
    assert names(first["apply"]) == ["ConfigMap/calico-config", "DaemonSet/calico-node"]
    assert first["delete"] == []
    assert first["gate"]["command"] == ROLLOUT_NODE
    assert second["name"] == "remove-typha"
    assert names(second["delete"]) == [
        "Deployment/calico-typha",
        "PodDisruptionBudget/calico-typha",
        "Service/calico-typha",
    ]
    # Gone (all three, none left behind), and calico-node still rolled out after it.
    assert second["gate"]["command"] == (
        '[ -z "$(kubectl -n kube-system get service/calico-typha '
        "poddisruptionbudget/calico-typha deployment/calico-typha --ignore-not-found "
        '-o name)" ] && kubectl -n kube-system rollout status daemonset/calico-node '
        "--timeout=10m"
    )
    assert "ConfigMap/calico-config" not in names(second["apply"])


def test_rollback_to_a_version_without_typha() -> None:
    plan = make_plan(
        side("v3.31.3", 601, True, typha=True),
        side("v3.27.3", 601, False, typha=False),
    )
    assert plan.shape == "remove-typha" and plan.operation == "rollback"
    assert [p.name for p in plan.phases] == ["calico-node-to-apiserver", "remove-typha"]
    assert any("compatibility path" in w for w in plan.warnings)
    # Typha is only deleted after calico-node is back on the API server.
    assert plan.phases[0].delete == () and plan.phases[1].delete


def test_typha_on_both_sides_upgrades_typha_first() -> None:
    plan = make_plan(
        side("v3.29.3", 601, True, typha=True),
        side("v3.31.3", 601, True, typha=True),
    )
    data = checked(plan)
    assert data["shape"] == "typha-upgrade"
    prereq, first, second = data["phases"]
    assert prereq["name"] == "prerequisites" and names(prereq["apply"]) == [
        "CustomResourceDefinition/felixconfigurations.crd.projectcalico.org"
    ]
    assert names(first["apply"]) == [
        "Service/calico-typha",
        "PodDisruptionBudget/calico-typha",
        "Deployment/calico-typha",
    ]
    assert "DaemonSet/calico-node" not in names(first["apply"])
    assert first["gate"]["command"].startswith(
        "kubectl -n kube-system rollout status deployment/calico-typha"
    )
    assert "DaemonSet/calico-node" in names(second["apply"])
    assert second["gate"]["command"] == ROLLOUT_NODE


def test_target_not_capable_above_50_is_one_compatibility_phase() -> None:
    plan = make_plan(
        side("v3.25.0", 601, False, typha=False),
        side("v3.27.3", 601, False, typha=False),
    )
    data = checked(plan)
    assert data["shape"] == "compatibility"
    assert [p["name"] for p in data["phases"]] == ["compatibility"]
    assert data["to"]["typha"] is False
    assert any(
        "compatibility path" in w and "v3.27.3" in w
        for w in (f["message"] for f in data["findings"])
    )
    assert "DaemonSet/calico-node" in names(data["phases"][0]["apply"])


def test_small_cluster_upgrade_is_one_direct_phase_without_warnings() -> None:
    plan = make_plan(
        side("v3.27.3", 20, False, typha=False),
        side("v3.31.3", 20, True, typha=False),
    )
    assert plan.shape == "direct" and len(plan.phases) == 1 and plan.warnings == ()


def test_objects_the_target_dropped_are_cleaned_up_last_but_crds_kept() -> None:
    source = [
        *base_objects("calico-old-settings"),
        obj("CustomResourceDefinition", "old.crd.projectcalico.org", ""),
    ]
    plan = make_plan(
        Side("v3.27.3", 601, False, split_objects(source)),
        side("v3.31.3", 601, True, typha=True),
    )
    assert [p.name for p in plan.phases] == ["prerequisites", "typha", "calico-node", "cleanup"]
    assert [r.name for r in plan.phases[-1].delete] == ["calico-old-settings"]
    assert any("old.crd.projectcalico.org" in w and "left in place" in w for w in plan.warnings)


def test_unchanged_calico_node_template_asks_for_a_restart() -> None:
    plan = make_plan(
        side("v3.31.3", 50, True, typha=False),
        side("v3.31.3", 51, True, typha=True),
        node_template_changed=False,
    )
    assert any("rollout restart daemonset/calico-node" in w for w in plan.warnings)


def test_capable_target_without_typha_objects_is_a_bug_not_a_plan() -> None:
    with pytest.raises(ValueError, match="renders no Typha Deployment"):
        make_plan(side("a", 10, True, typha=False), side("b", 601, True, typha=False))


def test_changed_typha_rbac_goes_to_the_prerequisites_phase(data_regression: Any) -> None:
    """RBAC of Typha's service account is applied before Typha only when it differs."""
    source = base_objects()
    source[2] = obj("ClusterRole", "calico-node", "", rules=[{"verbs": ["get"]}])
    target = base_objects() + typha_objects()
    target[2] = obj("ClusterRole", "calico-node", "", rules=[{"verbs": ["get", "list"]}])
    target[2]["metadata"]["labels"] = {"version": "new"}
    target[1]["metadata"]["labels"] = {"version": "new"}  # a label is not a permission
    plan = make_plan(
        Side("v3.27.3", 601, False, split_objects(source)),
        Side("v3.31.3", 601, True, split_objects(target)),
    )
    prereq, typha, rest = (p.to_dict() for p in plan.phases)
    assert names(prereq["apply"]) == [
        "CustomResourceDefinition/felixconfigurations.crd.projectcalico.org",
        "ClusterRole/calico-node",
    ]
    assert prereq["gate"]["command"].endswith("&& kubectl get clusterrole/calico-node -o name")
    data_regression.check(prereq)  # the description says the RBAC differs from v3.27.3
    assert [r["kind"] for r in typha["apply"]] == ["Service", "PodDisruptionBudget", "Deployment"]
    assert "ClusterRole/calico-node" not in names(rest["apply"])
    assert "ServiceAccount/calico-node" in names(rest["apply"])


def test_typha_own_service_account_and_unknown_rbac_are_prerequisites() -> None:
    """A Typha with its own ServiceAccount gets it (new) before it starts; a Split built
    without fingerprints counts all Typha RBAC as changed."""
    target = base_objects() + typha_objects()
    target[-3]["spec"]["template"]["spec"]["serviceAccountName"] = "calico-typha"
    target.append(obj("ServiceAccount", "calico-typha"))
    plan = make_plan(
        side("v3.31.3", 50, True, typha=False),
        Side("v3.31.3", 51, True, split_objects(target)),
    )
    assert names(plan.phases[0].to_dict()["apply"]) == [
        "CustomResourceDefinition/felixconfigurations.crd.projectcalico.org",
        "ServiceAccount/calico-typha",
    ]
    assert [r.kind for r in plan.phases[1].apply] == [
        "Service",
        "PodDisruptionBudget",
        "Deployment",
    ]
    split = split_objects(base_objects() + typha_objects())
    blind = Side(
        "v3.31.3",
        601,
        True,
        type(split)(split.typha, split.typha_deps, split.calico_node, split.rest),
    )
    plan = make_plan(side("v3.27.3", 601, False, typha=False), blind)
    assert [r.kind for r in plan.phases[0].apply] == [
        "CustomResourceDefinition",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
    ]


def test_rolling_back_typha_rbac_in_phase_0_is_warned() -> None:
    newer = base_objects() + typha_objects()
    newer[2] = obj("ClusterRole", "calico-node", "", rules=[{"verbs": ["get", "list"]}])
    plan = make_plan(
        Side("v3.31.3", 601, True, split_objects(newer)),
        side("v3.29.3", 601, True, typha=True),
    )
    assert plan.operation == "rollback" and plan.phases[0].name == "prerequisites"
    assert any("ClusterRole calico-node" in w and "grants less" in w for w in plan.warnings)
    upgrade = make_plan(
        side("v3.29.3", 601, True, typha=True), Side("v3.31.3", 601, True, split_objects(newer))
    )
    assert not any("grants less" in w for w in upgrade.warnings)


def test_plan_is_deterministic() -> None:
    def build() -> dict[str, Any]:
        return make_plan(
            side("v3.27.3", 601, False, typha=False), side("v3.31.3", 601, True, typha=True)
        ).to_dict()

    assert build() == build()


def test_introduce_plan_regression(data_regression: Any) -> None:
    plan = make_plan(
        side("v3.27.3", 120, False, typha=False, keys=frozenset({"repo", "calicoMode"})),
        side(
            "v3.31.3",
            601,
            True,
            typha=True,
            keys=frozenset({"repo", "allowTypha", "typhaReplicas", "ipModVersion"}),
        ),
        defaults={"ipModVersion": "ipv4"},
    )
    data_regression.check(checked(plan))


# --- parameter drift ---------------------------------------------------------------------


def test_drift_warns_both_ways_and_skips_policy_keys() -> None:
    out = drift_warnings(
        "v3.27.3",
        frozenset({"repo", "calicoMode", "oldKey", "allowTypha"}),
        "v3.31.3",
        frozenset({"repo", "calicoMode", "allowTypha", "typhaReplicas", "newKey", "podSubnet"}),
        defaults={"podSubnet": "10.244.0.0/16"},
    )
    assert out == [
        "v3.27.3 reads context key 'oldKey' but v3.31.3 does not: a value set for it stops "
        "taking effect",
        "v3.31.3 reads context key 'newKey' that v3.27.3 did not: set it, or it renders as "
        "<no value>",
        "v3.31.3 reads context key 'podSubnet' that v3.27.3 did not: it gets the default "
        "'10.244.0.0/16' unless set",
    ]


def test_no_drift_for_the_same_version() -> None:
    keys = frozenset({"a"})
    assert drift_warnings("v1", keys, "v1", frozenset({"b"})) == []


def test_plan_carries_drift_warnings() -> None:
    plan = make_plan(
        side("v3.27.3", 10, True, typha=False, keys=frozenset({"gone"})),
        side("v3.31.3", 10, True, typha=False, keys=frozenset()),
    )
    assert plan.warnings == (
        "v3.27.3 reads context key 'gone' but v3.31.3 does not: a value set for it stops "
        "taking effect",
    )


ODD_VALUES: tuple[Any, ...] = (None, [], [1, None], 5, "x", {}, True, {"a": None})
#: Fields the split reads that the fixtures leave out, so they get odd values too.
EXTRA_PATHS: tuple[tuple[str | int, ...], ...] = (
    ("metadata", "labels"),
    ("metadata", "labels", "k8s-app"),
    ("spec", "selector"),
    ("spec", "template", "spec", "serviceAccount"),
    ("subjects",),
    ("roleRef",),
)


def _paths(node: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _set(data: Any, path: tuple[str | int, ...], value: Any) -> bool:
    node = data
    for part in path[:-1]:
        if isinstance(node, dict) and isinstance(part, str):
            node = node.setdefault(part, {})
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return False
    last = path[-1]
    if isinstance(node, dict) and isinstance(last, str):
        node[last] = value
        return True
    if isinstance(node, list) and isinstance(last, int) and last < len(node):
        node[last] = value
        return True
    return False


@pytest.mark.slow
def test_split_and_plan_survive_odd_shapes_in_every_field_read() -> None:
    objects = base_objects() + typha_objects()
    source = side("v3.27.0", 10, False, typha=False)
    tried = 0
    for i, original in enumerate(objects):
        paths = sorted(set(_paths(original)) | set(EXTRA_PATHS), key=str)
        for path in paths:
            for value in ODD_VALUES:
                mutated = copy.deepcopy(objects)
                if not _set(mutated[i], path, value):
                    continue
                tried += 1
                split = split_objects(mutated)
                assert all(isinstance(r, ObjectRef) for r in split.all)
                capable = split.find("Deployment", split.typha) is not None
                target = Side("v3.28.0", 601, capable, split)
                plan = make_plan(source, target)
                if all(r.kind and r.name for r in split.all):
                    checked(plan)
    assert tried > 300
