"""renderer/api/verbs/addons.py: every addon of the tree rendered as BKE's controller renders
it, the addons a BKECluster lists in the controller's order, and their images per role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer import api
from renderer.bke import addons as addon_rules
from renderer.errors import InputError
from renderer.manifests.tree import list_addons, list_versions, resolve_version
from tests.listedhelp import listed_tree

TREE = Path(__file__).parents[2] / "fixtures" / "addons-tree"


def summary(result: api.AddonResult) -> dict[str, Any]:
    """The whole answer, as a reviewer reads it."""
    return {
        "files": sorted(result.texts()),
        "failed": list(result.failed),
        "exit": result.exit_code,
        "findings": [str(f) for f in result.findings],
        "notes": [n.replace(str(api.default_config()), "<example>") for n in result.notes],
    }


def test_every_addon_of_the_tree_renders_with_the_controllers_context(
    data_regression: DataRegressionFixture,
) -> None:
    """The representative create request's context, per addon: keys the controller sets
    (dnsIP, nodelocaldns's domain, the launcher's params, a script's nodes) render; a
    key only the addon's param could set is named at its template line; a file Go cannot
    parse is an error at its line; a noexecute file is applied as is."""
    report = {}
    for addon in list_addons(TREE):
        for vdir in list_versions(TREE, addon):
            request = api.Request.for_addon(addon, vdir.name, root=TREE, kube=())
            report[f"{addon}/{vdir.name}"] = summary(api.render_addon(request))
    data_regression.check(report)


def test_a_file_failing_on_a_missing_key_stops_nothing_else(tmp_path: Path) -> None:
    version = tmp_path / "kubernetes" / "bkeagent-update" / "latest"
    version.mkdir(parents=True)
    (version / "001-a.yaml").write_text('ips: {{ split .nodesIps "," }}\n')
    (version / "002-b.yaml").write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: b}\n")
    result = api.render_addon(api.Request.for_addon("bkeagent-update", "latest", root=tmp_path))
    assert result.failed == ("001-a.yaml",) and list(result.texts()) == ["002-b.yaml"]
    (found,) = result.errors
    assert (found.rule, found.file, found.line) == (
        "context-missing-key",
        "kubernetes/bkeagent-update/latest/001-a.yaml",
        1,
    )
    assert "never sets nodesIps for bkeagent-update" in found.message
    assert result.exit_code == 1


def test_the_rendered_context_says_where_each_value_came_from() -> None:
    request = api.Request.for_addon("cluster-api", "v1.0.0", root=TREE)
    files = {f.file: f for f in api.render_addon(request).contexts.files}
    webhook, manage = files["001-webhook.yaml"], files["003-manage.yaml"]
    assert webhook.entries["capiCaBundle"].source == addon_rules.PLACEHOLDER
    assert "capiCaBundle" not in manage.entries  # applied later, without the bundles
    assert webhook.entries["dnsIP"].source == "bkecluster"
    assert webhook.entries["repo"].value == ""  # imageRepo without a prefix


def test_calico_through_the_addon_verb_gets_the_controllers_typha_keys() -> None:
    request = api.Request.for_addon("calico", "v3.31.3", nodes=601)
    result = api.render_addon(request)
    assert result.decision is not None and result.decision.context() == {
        "allowTypha": "true",
        "typhaReplicas": "4",
    }
    assert not result.failed and result.objects
    coredns = api.render_addon(api.Request.for_addon("coredns", "v1.0.0", root=TREE))
    assert coredns.decision is None
    assert "allowTypha" not in coredns.contexts.files[0].entries


def test_the_addons_a_bkecluster_lists_in_the_controllers_order(tmp_path: Path) -> None:
    config = tmp_path / "cluster.yaml"
    config.write_text(
        "apiVersion: bke.bocloud.com/v1beta1\nkind: BKECluster\n"
        "metadata: {name: c, namespace: c}\nspec:\n  clusterConfig:\n    addons:\n"
        "      - {name: nodelocaldns, version: v1.0.0, param: {localdns: 169.254.20.10}}\n"
        "      - {name: coredns, version: v1.10.1}\n"
        "      - {name: kube-prometheus, version: v1, type: chart}\n"
        "      - {name: coredns, version: v1.0.0}\n"
        "      - {name: bocoperator, version: v1.0.0}\n",
        encoding="utf-8",
    )
    listed = api.listed_addons(config, root=TREE)
    assert [(a.name, a.version, a.request is not None) for a in listed] == [
        ("nodelocaldns", "v1.0.0", True),
        ("coredns", "v1.10.1", False),
        ("kube-prometheus", "v1", False),
        ("coredns", "v1.0.0", True),
        ("bocoperator", "v1.0.0", False),
    ]
    assert "versions: v1.0.0" in listed[1].skipped and "Helm chart" in listed[2].skipped
    assert "no kubernetes/bocoperator/v1.0.0/" in listed[4].skipped
    first = listed[0].request
    assert first is not None
    assert api.render_addon(first).contexts.files[0].entries["localdns"].value == "169.254.20.10"


def test_the_default_cluster_lists_the_create_requests_addons() -> None:
    assert [a.name for a in api.listed_addons(root=TREE)] == [
        "kubeproxy",
        "calico",
        "coredns",
        "bkeagent-deployer",
        "openfuyao-system-controller",
    ]


def test_images_per_role_follow_where_pods_may_run() -> None:
    """The launcher's DaemonSet tolerates every taint: every kubelet node pulls it; the
    Prometheus Deployment asks for a master and tolerates the cordon; coredns runs on
    any schedulable node; a dedicated etcd node pulls nothing."""
    launcher = api.addon_images(api.Request.for_addon("bkeagent", "latest", root=TREE))
    image = "cr.openfuyao.cn/openfuyao/bkeagent-launcher:1.0.1"
    assert launcher.images == {
        "master": (image,), "master/node": (image,), "node": (image,), "etcd": (),
    }  # fmt: skip
    assert launcher.daemons == launcher.images
    prometheus = api.addon_images(api.Request.for_addon("prometheus", "v1.0.0", root=TREE))
    assert prometheus.images == {
        "master": ("prometheus:v1.0.0",), "master/node": ("prometheus:v1.0.0",),
        "node": (), "etcd": (),
    }  # fmt: skip
    coredns = api.addon_images(api.Request.for_addon("coredns", "v1.0.0", root=TREE))
    assert coredns.images["master"] == () and coredns.daemons["node"] == ()
    assert coredns.images["node"] == ("registry.example.com/coredns:v1.0.0",)


def test_a_request_for_an_addon_needs_a_version_it_can_find(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        api.Request.for_addon("nodelocaldns", root=TREE)
    assert err.value.argument == "version" and "lists no addon named nodelocaldns" in str(err.value)
    with pytest.raises(InputError) as err:
        api.Request.for_addon("coredns", resolve_version("v1.0.0", TREE, "kubeproxy"), root=TREE)
    assert "kubeproxy's, not coredns's" in err.value.message
    with pytest.raises(InputError, match="unknown coredns version"):
        api.Request.for_addon("coredns", "v9.9", root=TREE)
    with pytest.raises(InputError) as err:
        api.Request.for_addon("../calico", "v1", root=TREE)
    assert err.value.argument == "addon"


def test_the_version_a_bkecluster_lists_must_name_a_directory_exactly(tmp_path: Path) -> None:
    config = tmp_path / "cluster.yaml"
    config.write_text(
        "kind: BKECluster\nmetadata: {name: c}\nspec:\n  clusterConfig:\n    addons:\n"
        "      - {name: coredns, version: v1.0}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        api.Request.for_addon("coredns", config=config, root=TREE)
    assert err.value.key == "spec.clusterConfig.addons[0].version"
    assert "must be exactly a directory" in err.value.message


def test_a_strict_request_whose_params_change_nothing_is_bad_input() -> None:
    request = api.Request.for_addon("coredns", "v1.0.0", root=TREE, sets=("unused=1",), strict=True)
    with pytest.raises(InputError, match="change nothing"):
        api.render_addon(request)


def test_the_schema_check_runs_on_the_configs_kubernetes_minor() -> None:
    request = api.Request.for_addon("coredns", "v1.0.0", root=TREE, kube=())
    assert request.kube_versions == ("1.28",)
    assert "kubernetesVersion v1.28.8" in request.kube_note
    result = api.render_addon(request)
    assert result.kube_versions == ("1.28",) and not result.errors


def test_render_listed_renders_every_addon_in_the_controllers_order(tmp_path: Path) -> None:
    root, config = listed_tree(tmp_path)
    result = api.render_listed(config, root=root, nodes=3, kube=["1.33"])
    assert [(a.name, a.version, a.status) for a in result.addons] == [
        ("kubeproxy", "v1.0.0", "rendered"),
        ("calico", "v9.1.0", "rendered"),
        ("kube-prometheus", "v1", "skipped"),
        ("bkeagent", "latest", "rendered"),
        ("clusterextra", "install-helm.sh", "failed"),
        ("coredns", "v1.0.0", "rendered"),
    ]
    calico = result.addons[1].result
    assert isinstance(calico, api.RenderResult) and calico.decision.nodes == 3
    # bkeagent's CRD checks clusterextra's Command: the IPs written beside matchLabels
    extra = result.addons[4]
    assert {(f.rule, f.field.split(".")[1]) for f in extra.findings if f.stage == "schema"} == {
        ("schema-invalid", "nodeSelector")
    }
    assert result.exit_code == 1
    sources = [line.split()[2] for line in result.stream().splitlines() if "# Source:" in line]
    assert list(dict.fromkeys(s.split("/")[0] for s in sources)) == [
        "kubeproxy",
        "calico",
        "bkeagent",
        "clusterextra",
        "coredns",
    ]
    narrowed = api.render_listed(config, root=root, nodes=3, addons=["coredns", "calico"])
    assert [a.name for a in narrowed.addons] == ["calico", "coredns"]  # the listed order


def test_render_listed_refuses_what_the_controller_cannot_install(tmp_path: Path) -> None:
    root, config = listed_tree(tmp_path)
    with pytest.raises(InputError) as exc:
        api.render_listed(config, root=root, nodes=3, addons=["nodelocaldns"])
    assert exc.value.argument == "addon" and "lists no addon named nodelocaldns" in str(exc.value)
    with pytest.raises(InputError) as exc:
        api.render_listed(config, root=root, nodes=3, sets=["a=b"])
    assert exc.value.argument == "addon"
    config.write_text(
        config.read_text().replace("coredns, version: v1.0.0", "coredns, version: v2")
    )
    with pytest.raises(InputError) as exc:
        api.render_listed(config, root=root, nodes=3)
    assert exc.value.key == "spec.clusterConfig.addons[5].version"
    assert "kubernetes/coredns/v2/, which does not exist (versions: v1.0.0)" in str(exc.value)
    # narrowed to the others, the cluster renders
    assert api.render_listed(config, root=root, nodes=3, addons=["calico"]).exit_code == 0
