"""What the gate renders for an addon other than Calico: the controller's contexts from
the representative cluster, scenarios as the addon's params, failures and missing keys
as findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from renderer.calico.scenarios import Scenario
from renderer.checks import addons
from renderer.manifests.tree import resolve_version
from tests.gatehelp import ADDONS_TREE, GATE_TREE


def _cluster(addon: str, root: Path = GATE_TREE) -> addons.AddonCluster:
    version = resolve_version("v1.0.0", root, addon)
    return addons.addon_cluster(version, root, None)


def test_the_cluster_is_the_example_create_request_after_admission() -> None:
    cluster = _cluster("coredns")
    assert (cluster.cluster, cluster.nodes, cluster.listed) == ("bke-cluster/bke-cluster", 3, True)
    assert cluster.base == Scenario("cluster", 3)
    (ctx,) = cluster.rendered().values()
    assert (ctx["dnsIP"], ctx["dnsDomain"], ctx["repo"]) == ("10.96.0.10", "cluster.local", "")
    # an addon the BKECluster does not list renders as listed without params
    assert not _cluster("nodelocaldns").listed


def test_a_scenario_is_params_of_the_clusters_entry_so_the_controllers_rules_follow() -> None:
    """cluster-api's manage param brings the nodes and the token the controller builds."""
    cluster = _cluster("cluster-api")
    plain = cluster.rendered()["003-manage.yaml"]
    assert "nodes" not in plain and "clusterToken" not in plain
    managed = cluster.rendered((("manage", "true"),))["003-manage.yaml"]
    assert managed["manage"] == "true"
    assert [n["hostname"] for n in managed["nodes"]] == [
        "bke-master-1",
        "bke-worker-1",
        "bke-worker-2",
    ]
    # repo is the image prefix, set last (no param reaches it); None unsets a param
    repo = cluster.rendered((("repo", "registry.example.com/x/"),))["001-webhook.yaml"]
    assert repo["repo"] == "registry.example.com/x/"
    proxy = _cluster("coredns", GATE_TREE)
    assert "clusterNetworkMode" in next(iter(_cluster("coredns").rendered().values()))
    assert "tagVersion" not in next(iter(proxy.rendered((("tagVersion", None),)).values()))


def test_each_distinct_scenario_renders_once_and_files_that_fail_are_findings(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    shutil.copytree(
        ADDONS_TREE / "kubernetes" / "clusterextra", root / "kubernetes" / "clusterextra"
    )
    shutil.copytree(
        ADDONS_TREE / "kubernetes" / "nodelocaldns", root / "kubernetes" / "nodelocaldns"
    )
    version = resolve_version("v1.0.0", root, "nodelocaldns")
    renders = addons.AddonRenders(version, addons.addon_cluster(version, root, None))
    first = renders.get()
    assert renders.get(()) is first
    assert [name for name, _ in first.files] == ["nodelocaldns.yaml"]
    found = {(f.rule, f.severity, f.line, f.details.key) for f in first.findings}  # type: ignore[union-attr]
    assert found == {
        ("context-missing-key", "warning", 9, "localdns"),
        ("context-missing-key", "warning", 30, "localdns"),
    }
    # a param the scenario sets is no missing key
    assert renders.get((("localdns", "169.254.20.10"),)).findings == []


def test_a_file_that_does_not_decode_is_a_templates_error_and_left_out(tmp_path: Path) -> None:
    folder = tmp_path / "kubernetes" / "bad" / "v1.0.0"
    folder.mkdir(parents=True)
    (folder / "a.yaml").write_text("kind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    (folder / "b.yaml").write_text("key: [unclosed\n", encoding="utf-8")
    version = resolve_version("v1.0.0", tmp_path, "bad")
    render = addons.AddonRenders(version, addons.addon_cluster(version, tmp_path, None)).get()
    assert [name for name, _ in render.files] == ["a.yaml"]
    assert [(f.rule, f.file) for f in render.findings] == [("templates-error", "b.yaml")]


@pytest.mark.parametrize(
    ("values", "record"),
    [
        ((), {}),
        ((("manage", "true"), ("repo", None)), {"values": {"manage": "true", "repo": None}}),
    ],
)
def test_the_decision_record_names_the_cluster_and_the_values(
    values: tuple[tuple[str, str | None], ...], record: dict[str, object]
) -> None:
    cluster = _cluster("coredns")
    scenario = Scenario("cluster-x", 3, values=values)
    assert addons.decision_record(scenario, cluster) == {
        "scenario": "cluster-x",
        "cluster": "bke-cluster/bke-cluster",
        "nodes": 3,
        **record,
    }
