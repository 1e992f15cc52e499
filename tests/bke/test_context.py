"""renderer/bke/context.py: each file's context by the controller's rules."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.bke import cluster as bc_cluster
from renderer.bke import context as bc
from renderer.bke.addons import CONTROLLER_ADDON
from renderer.bke.admission import ADMISSION_DEFAULT
from renderer.bke.cluster import Node, load_config, load_nodes
from renderer.errors import InputError
from renderer.finding import Finding
from renderer.manifests.tree import resolve_version
from tests.clihelp import one_error, run

ROOT = Path(__file__).parents[1] / "fixtures" / "context-tree"
VERSION = "v1.0.0"

CONFIG = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata:
  name: c1
  namespace: ns1
spec:
  controlPlaneEndpoint: {{host: 10.0.0.100, port: 36443}}
  clusterConfig:
    cluster:
      imageRepo: {{domain: reg.example.com, port: "443", prefix: openfuyao}}
      networking: {{serviceSubnet: 10.100.0.0/16}}
    addons:
      - name: calico
        version: v1.0.0
        param:
{params}
"""

NODES = """\
---
kind: BKENode
metadata: {{name: {name}, labels: {{cluster.x-k8s.io/cluster-name: c1}}}}
spec: {{ip: {ip}, role: {roles}}}
"""


def write_config(tmp_path: Path, params: dict[str, str]) -> Path:
    lines = "\n".join(f"          {k}: {v!r}" for k, v in params.items()) or "          {}"
    path = tmp_path / "cluster.yaml"
    path.write_text(CONFIG.format(params=lines), encoding="utf-8")
    return path


def write_nodes(tmp_path: Path, roles: list[str]) -> Path:
    path = tmp_path / "nodes.yaml"
    path.write_text(
        "".join(NODES.format(name=f"n{i}", ip=f"10.0.1.{i}", roles=r) for i, r in enumerate(roles)),
        encoding="utf-8",
    )
    return path


def contexts(
    tmp_path: Path, addon_params: dict[str, str], roles: list[str] | None = None, **kw: Any
) -> bc.VersionContexts:
    config = load_config(write_config(tmp_path, addon_params))
    addon = config.calico()
    assert addon is not None
    nodes = load_nodes(write_nodes(tmp_path, roles)).nodes if roles is not None else None
    inputs = bc.for_config(config, addon, nodes, **kw)
    return bc.build(
        resolve_version(VERSION, ROOT), inputs, {"allowTypha": "false", "typhaReplicas": "0"}
    )


def test_controller_defaults() -> None:
    common = bc.common_params(None)
    assert common["podSubnet"] == bc.Entry("10.250.0.0/16", bc.CONTROLLER_DEFAULT)
    assert common["apiServerSrcPort"].value == 6443
    assert "calicoMode" not in common  # the controller has no calicoMode default


def test_no_calico_mode_param_leaves_the_key_missing(tmp_path: Path) -> None:
    out = contexts(tmp_path, {})
    for f in out.files:
        assert "calicoMode" not in f.entries


def test_dotted_param_reaches_only_its_file(tmp_path: Path) -> None:
    out = contexts(tmp_path, {"calico.calicoMode": "ipip", "ipModVersion": "ipv4"})
    by = {f.file: f for f in out.files}
    assert by["calico.yaml"].entries["calicoMode"] == bc.Entry(
        "ipip", bc.FILE_PARAM, "spec.clusterConfig.addons[0].param.calico.calicoMode"
    )
    assert "calicoMode" not in by["001-typha.yaml"].entries
    assert by["001-typha.yaml"].entries["ipModVersion"].source == bc.ADDON_PARAM
    assert by["noexecute-rules.yaml"].verbatim and not by["noexecute-rules.yaml"].entries


def test_param_naming_no_file_warns(tmp_path: Path) -> None:
    out = contexts(tmp_path, {"ClusterCidr.Ipv6": "fd00::/48"})
    assert any("'ClusterCidr.Ipv6'" in w and "reaches no template" in w for w in out.warnings)
    assert all("ClusterCidr" not in f.entries for f in out.files)


def test_per_file_wins_over_every_file_and_the_race_is_named(tmp_path: Path) -> None:
    out = contexts(tmp_path, {"calicoMode": "bgp", "calico.calicoMode": "ipip"})
    by = {f.file: f.context for f in out.files}
    assert by["calico.yaml"]["calicoMode"] == "ipip"
    assert by["001-typha.yaml"]["calicoMode"] == "bgp"
    assert any("Go's map order" in w for w in out.warnings)


def test_user_params_win_over_the_configs(tmp_path: Path) -> None:
    user = (bc.Param("calicoMode", "bgp", bc.USER, "--set calicoMode"),)
    out = contexts(tmp_path, {"calico.calicoMode": "ipip"}, params=user)
    assert {f.context.get("calicoMode") for f in out.files if not f.verbatim} == {"bgp"}


def test_repo_is_set_last_from_image_repo(tmp_path: Path) -> None:
    out = contexts(tmp_path, {"repo": "other.example.com/"})
    assert out.files[0].entries["repo"] == bc.Entry(
        "reg.example.com/openfuyao/", bc.BKECLUSTER, "spec.clusterConfig.cluster.imageRepo"
    )
    assert any("'repo'" in w and "never reaches" in w for w in out.warnings)
    flagged = contexts(tmp_path, {}, repo="x.example/")
    assert flagged.files[0].entries["repo"] == bc.Entry("x.example/", bc.USER, "--repo")


def test_common_params_from_cluster_and_nodes(tmp_path: Path) -> None:
    roles = ["[master, etcd]", "[master/node]", "[node]", "[node]", "[etcd-event]"]
    ctx = contexts(tmp_path, {"x": "y"}, roles).files[1].context
    assert ctx["serviceSubnet"] == "10.100.0.0/16" and ctx["dnsIP"] == "10.100.0.10"
    assert ctx["podSubnet"] == "10.250.0.0/16"
    assert ctx["apiServerSrcHost"] == "10.0.0.100" and ctx["apiServerSrcPort"] == 36443
    assert ctx["etcdEndpoints"] == "https://10.0.1.0:2379" and ctx["etcdIps"] == "10.0.1.0"
    assert ctx["masterReplicas"] == "2" and ctx["workerReplicas"] == "2"
    assert ctx["namespace"] == "ns1" and ctx["clusterNetworkMode"] == "calico"
    assert ctx["imageRepo"] == "reg.example.com:443" and ctx["imageRepoPrefix"] == "openfuyao"


def test_split_params_keeps_the_second_part_only() -> None:
    out, warnings = bc.split_params([bc.Param("calico.a.b", "v", bc.ADDON_PARAM, "d")], ["calico"])
    assert out["calico"]["a"].value == "v"
    assert any("keeps only calico.a" in w for w in warnings)


def test_render_per_file_and_verbatim(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, {"calico.calicoMode": "ipip"}))
    calico = config.calico()
    assert calico is not None
    inputs = bc.for_config(config, calico, None)
    result = api.render(replace(api.Request.of(VERSION, 3, root=ROOT), inputs=inputs))
    texts = {f.name: f.text for f in result.files}
    assert "mode: ipip" in texts["v1.0.0/calico.yaml"]
    assert "mode: no-match" in texts["v1.0.0/001-typha.yaml"]
    assert "{{ $labels.instance }}" in texts["v1.0.0/noexecute-rules.yaml"]


def test_cli_set_is_per_file_without_config(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(
        capsys,
        *("--manifests", str(ROOT), "--version", VERSION, "--nodes", "3", "--no-validate"),
        *("--set", "calico.calicoMode=ipip"),
    )
    assert r.code == 0, r.err
    typha, calico = r.out.split("# Source: calico/v1.0.0/")[1:3]
    assert "mode: ipip" in calico and 'calicoMode: "vxlan"' in typha  # bkeadm's default
    assert 'podSubnet: "10.250.0.0/16"' in calico


def test_nodes_with_split_roles_are_accepted_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roles = ["[master, etcd]", "[apiserver]", "[etcd-event, etcd-pod]", "[node]", "[scheduler]"]
    nodes = load_nodes(write_nodes(tmp_path, roles))
    assert nodes.count == 5 and nodes.dedicated == 3
    assert [n.dedicated for n in nodes.nodes] == [False, True, True, False, True]
    config = write_config(tmp_path, {})
    r = run(
        capsys,
        *(
            "--manifests",
            str(ROOT),
            "--config",
            str(config),
            "--nodes-file",
            str(tmp_path / "nodes.yaml"),
        ),
        "--no-validate",
    )
    assert r.code == 0, r.err
    assert "3 of 5 BKENodes are dedicated" in r.err


def test_node_fields_are_plain() -> None:
    assert Node("a", ("etcd",)).dedicated and not Node("a", ("node",)).dedicated


def _key(f: Finding) -> str:
    assert isinstance(f.details, bc.ContextDetails)
    return f.details.key


def test_unreachable_keys_are_the_map_reads_but_node_selector() -> None:
    found = bc.unreachable_keys({"b.yaml": {"ClusterCidr", "nodeSelector"}, "a.yaml": {"X"}})
    assert [(f.file, _key(f), f.rule, f.severity) for f in found] == [
        ("a.yaml", "X", "context-unreachable-key", "warning"),
        ("b.yaml", "ClusterCidr", "context-unreachable-key", "warning"),
    ]


def test_capability_reports_the_unreachable_key(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(
        capsys, "capability", "--manifests", str(ROOT), "--version", VERSION, "--format", "json"
    )
    data = json.loads(r.out)
    (f,) = [f for f in data["findings"] if f["stage"] == "context"]
    assert (f["rule"], f["severity"], f["details"]) == (
        "context-unreachable-key",
        "warning",
        {"key": "ClusterCidr"},
    )
    # the template line reading .ClusterCidr.Ipv6, relative to ROOT as check has it
    assert f["location"] == {
        "path": f"kubernetes/calico/{VERSION}/calico.yaml",
        "line": 21,
        "column": None,
    }


def test_check_reports_the_unreachable_key_as_a_context_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = run(
        capsys,
        *("check", "--manifests", str(ROOT), "--golden", str(tmp_path / "g"), "--format", "json"),
    )
    data = json.loads(r.out)
    found = [f for v in data["versions"] for f in v["findings"] if f["stage"] == "context"]
    assert [(f["rule"], f["severity"], f["location"]) for f in found] == [
        (
            "context-unreachable-key",
            "warning",
            {"path": "kubernetes/calico/v1.0.0/calico.yaml", "line": 21, "column": None},
        )
    ]


def test_explain_context_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_regression: Any
) -> None:
    config = write_config(tmp_path, {"calico.calicoMode": "ipip", "ClusterCidr.Ipv6": "fd00::/48"})
    nodes = write_nodes(tmp_path, ["[master, etcd]", "[node]"])
    r = run(
        capsys,
        *("explain-context", "--manifests", str(ROOT), "--config", str(config)),
        *("--nodes-file", str(nodes), "--format", "json", "--set", "001-typha.extra=1"),
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert [f["file"] for f in data["files"]] == [
        "001-typha.yaml",
        "calico.yaml",
        "noexecute-rules.yaml",
    ]
    calico = data["files"][1]["values"]
    assert calico["calicoMode"]["source"] == "file-param"
    assert calico["workerReplicas"] == {
        "value": "1",
        "source": "bkenodes",
        "detail": "BKENodes with role node",
    }
    assert data["files"][0]["values"]["extra"]["source"] == "user-file"
    assert data["files"][2] == {
        "file": "noexecute-rules.yaml",
        "base": "noexecute-rules",
        "verbatim": True,
        "values": {},
    }
    for f in data["findings"]:
        f["message"] = f["message"].replace(str(tmp_path), "TMP")
    data["tool_version"] = "VERSION"
    data_regression.check(data)


def test_explain_context_text_and_bad_input(
    capsys: pytest.CaptureFixture[str], file_regression: Any
) -> None:
    r = run(
        capsys, "explain-context", "--manifests", str(ROOT), "--version", VERSION, "--nodes", "3"
    )
    assert r.code == 0, r.err
    # Per file: each value and its source (calicoMode a bkeadm default), noexecute verbatim.
    file_regression.check(r.out, basename="explain_context_text", extension=".txt")
    r = run(capsys, "explain-context", "--manifests", str(ROOT), "--version", VERSION)
    assert "--nodes" in one_error(r)  # a usage error names the flag it needs


def test_plan_takes_set_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = run(
        capsys,
        *("plan", "--manifests", str(ROOT), "--to-version", VERSION, "--nodes", "3"),
        *("--set", "calico.calicoMode=ipip", "--output-dir", str(tmp_path / "out")),
    )
    assert r.code == 0, r.err
    applied = "".join(p.read_text() for p in sorted((tmp_path / "out").glob("*.apply.yaml")))
    calico = applied.split("name: calico-context")[1]
    typha = applied.split("name: typha-context")[1].split("---")[0]
    assert "mode: ipip" in calico and "mode: no-match" in typha


def test_bad_service_subnet_names_file_line_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, {})
    path.write_text(path.read_text().replace("10.100.0.0/16", "10.100.0.0/30"))
    r = run(capsys, "--manifests", str(ROOT), "--config", str(path), "--nodes", "3")
    one_error(r, file=path, line=11, key="spec.clusterConfig.cluster.networking.serviceSubnet")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a=b, c = d", {"a": "b", "c": "d"}),
        ("role", {"role": ""}),
        ('{"x": "y"}', {"x": "y"}),
        ("", {}),
    ],
)
def test_node_selector_becomes_a_map(raw: str, expected: dict[str, str]) -> None:
    assert bc.node_selector(raw) == expected


def test_node_selector_param_is_a_map_in_the_context(tmp_path: Path) -> None:
    out = contexts(tmp_path, {"nodeSelector": "zone=a"})
    assert out.files[0].context["nodeSelector"] == {"zone": "a"}
    with pytest.raises(InputError):
        bc.node_selector("=x")


@pytest.mark.parametrize(
    ("given", "chosen"),
    [
        ("v1.26.8", "1.26"),
        ("v1.28.8", "1.26"),
        ("v1.34.3-of.1", "1.34"),
        ("1.40.0", "1.37"),
        ("v1.20.1", "1.25"),
        ("latest", None),
    ],
)
def test_kube_version_for_the_config(given: str, chosen: str | None) -> None:
    shipped = ("1.25", "1.26", "1.34", "1.37")
    found, why = bc.kube_version_for(given, shipped)
    assert found == chosen and (bool(why) == (chosen is not None))


def test_config_selects_schemas_by_kubernetes_version(capsys: pytest.CaptureFixture[str]) -> None:
    example = Path(__file__).parents[2] / "examples"
    args = ("--config", str(example / "bkecluster-601.yaml"), "--nodes", "3")
    r = run(capsys, *args)
    assert r.code == 0 and "Kubernetes 1.28" in r.err
    r = run(capsys, *args, "--kube-version", "1.34")
    assert r.code == 0 and "kubernetesVersion" not in r.err


def test_an_addons_context_labels_what_the_controller_adds(tmp_path: Path) -> None:
    """Admission's params of an addon, the controller's rewriting of fabric's, the keys
    it sets after the merge: each with its origin."""
    path = tmp_path / "cluster.yaml"
    path.write_text(
        "kind: BKECluster\nmetadata: {name: c, namespace: ns}\nspec:\n  clusterConfig:\n"
        "    addons:\n      - {name: victoriametrics-controller, version: v1,"
        " param: {useVMSingle: 'true'}}\n"
        "      - {name: fabric, version: v1, param: {excludeIps: 10.0.0.1-10.0.0.2}}\n",
        encoding="utf-8",
    )
    config = bc_cluster.admitted_config(load_config(path), None)
    vm = bc.for_addon(config, "victoriametrics-controller", "v1", None,
                      listed=config.addon("victoriametrics-controller"))  # fmt: skip
    params = {p.key: (p.value, p.source) for p in vm.params}
    assert params["useVMSingle"] == ("true", bc.ADDON_PARAM)
    assert params["vmAgentCpuCount"] == ("4", ADMISSION_DEFAULT)
    fabric = bc.for_addon(config, "fabric", "v1", None, listed=config.addon("fabric"))
    (exclude,) = fabric.params
    assert (exclude.value, exclude.source) == ("10.0.0.1,10.0.0.2", CONTROLLER_ADDON)
    assert fabric.common["clusterNetworkMode"].value == "fabric"
