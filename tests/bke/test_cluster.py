"""BKECluster/BKEConfig/BKENode input: every rule of the design, and bad input as exit 2."""

from __future__ import annotations

import inspect
import subprocess
import sys
import time
from pathlib import Path

import pytest

from renderer import api
from renderer.bke import cluster as cluster_mod
from renderer.bke.cluster import (
    Addon,
    calico_addon,
    load_config,
    load_nodes,
    render_args,
    resolve_inputs,
)
from renderer.data import schemas
from renderer.errors import InputError
from renderer.k8s import objects, yamlio
from renderer.k8s import schema as kubeschema
from renderer.k8s.yamlio import MAX_EXPANDED_NODES, load_all
from tests.bke.installer import create_request
from tests.clihelp import one_error, run

ROOT = Path(__file__).parents[1] / "fixtures" / "tree"
BKE = Path(__file__).parents[1] / "fixtures" / "bke"
EXAMPLES = Path(__file__).parents[2] / "examples"

CLUSTER = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata:
  name: c1
spec:
  clusterConfig:
    cluster:
      imageRepo:
        domain: reg.example.com
        prefix: openfuyao
      networking:
        podSubnet: 10.50.0.0/16
    addons:
      - name: kubeproxy
        version: v1.28.8
{addons}
"""

CALICO = """\
      - name: calico
        version: {version}
        param:
          calicoMode: vxlan
          allowTypha: "false"
          typhaReplicas: "1"
"""


def write(tmp_path: Path, text: str, name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def cluster(tmp_path: Path, *versions: str) -> Path:
    addons = "".join(CALICO.format(version=v) for v in versions)
    return write(tmp_path, CLUSTER.format(addons=addons))


def test_example_cluster_reads_addon_prefix_and_subnet() -> None:
    cfg = load_config(EXAMPLES / "bkecluster-601.yaml")
    addon = cfg.calico()
    assert addon is not None and addon.version == "v3.31.3"
    assert cfg.repo == "deploy.bocloud.k8s:40443/openfuyao/"
    assert cfg.user_values(addon) == {
        "podSubnet": "10.96.0.0/12",
        "calicoMode": "vxlan",
        "ipAutoDetectionMethod": "skip-interface=nerdctl*",
        "allowTypha": "false",
        "typhaReplicas": "1",
    }


def test_example_nodes_count_and_roles() -> None:
    inv = load_nodes(EXAMPLES / "bkenodes-601.yaml")
    assert (inv.count, inv.masters, inv.workers) == (601, 3, 598)


def test_nodes_as_a_list_and_master_node_role() -> None:
    inv = load_nodes(BKE / "nodes-list.yaml")
    assert inv.count == 2
    assert inv.nodes[0].is_master and inv.nodes[0].is_worker
    assert (inv.masters, inv.workers) == (1, 2)


def test_bare_bkeconfig_uses_spec_addons_and_ip_address() -> None:
    cfg = load_config(BKE / "bkeconfig-bare.yaml")
    assert cfg.kind == "BKEConfig"
    addon = cfg.calico()
    assert addon is not None and addon.params == {"calicoMode": "ipip"}
    assert cfg.repo == "10.0.0.5/kubernetes/"


def test_no_prefix_means_the_manifests_default_registry(tmp_path: Path) -> None:
    text = CLUSTER.format(addons=CALICO.format(version="v9.1.0")).replace(
        "        prefix: openfuyao\n", ""
    )
    assert load_config(write(tmp_path, text)).repo == ""


def test_no_calico_addon_is_not_an_error(tmp_path: Path) -> None:
    inputs = resolve_inputs(cluster(tmp_path), root=ROOT)
    assert inputs.addon is None and inputs.user == {} and inputs.version is None
    assert any("no addon named calico" in n for n in inputs.notes)


@pytest.mark.parametrize("version", ['""', "", "null"])
def test_empty_version_is_refused_with_key_and_line(tmp_path: Path, version: str) -> None:
    path = cluster(tmp_path, version)
    with pytest.raises(InputError) as exc:
        resolve_inputs(path, root=ROOT)
    err = exc.value
    assert err.key == "spec.clusterConfig.addons[1].version"
    assert err.line == 16 and "no default is guessed" in err.message


def test_two_calico_addons_are_refused_naming_both(tmp_path: Path) -> None:
    path = cluster(tmp_path, "v9.1.0", "v9.0.0")
    with pytest.raises(InputError) as exc:
        resolve_inputs(path, root=ROOT)
    msg = str(exc.value)
    assert "spec.clusterConfig.addons[1] (line 16)" in msg
    assert "spec.clusterConfig.addons[2] (line 22)" in msg


def test_calico_addon_is_pure() -> None:
    a = Addon("calico", "v1", {}, "addons[0]")
    assert calico_addon([Addon("coredns", "v1", {}, "addons[1]"), a]) is a
    assert calico_addon([]) is None


def test_version_must_exist_in_root(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"v9\.9\.9.*available: v9\.0\.0"):
        resolve_inputs(cluster(tmp_path, "v9.9.9"), root=ROOT)


def test_version_is_an_exact_directory_not_a_minor(tmp_path: Path) -> None:
    # The controller uses the version as the directory name; v9.1 is not one.
    with pytest.raises(InputError) as exc:
        resolve_inputs(cluster(tmp_path, "v9.1"), root=ROOT)
    # Refused, not resolved to v9.1.0: the key, its line and the versions to choose from.
    assert exc.value.key == "spec.clusterConfig.addons[1].version"
    assert "'v9.1'" in exc.value.message and "v9.0.0, v9.1.0" in exc.value.message


def test_version_with_path_separator_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        resolve_inputs(cluster(tmp_path, "../../etc"), root=ROOT)


def test_valid_input_resolves_everything(tmp_path: Path) -> None:
    inputs = resolve_inputs(cluster(tmp_path, "v9.1.0"), root=ROOT)
    assert inputs.version is not None and inputs.version.name == "v9.1.0"
    assert inputs.repo == "reg.example.com/openfuyao/"
    assert inputs.user["podSubnet"] == "10.50.0.0/16"


def test_nodes_flag_wins_over_nodes_file(tmp_path: Path) -> None:
    args = render_args(
        cluster(tmp_path, "v9.1.0"),
        BKE / "nodes-list.yaml",
        version=None,
        nodes=75,
        root=ROOT,
        repo=None,
    )
    assert args.nodes == 75 and any(
        "a given node count of 75 overrides the 2 BKENodes" in n for n in args.notes
    )
    args = render_args(
        cluster(tmp_path, "v9.1.0"),
        BKE / "nodes-list.yaml",
        version=None,
        nodes=None,
        root=ROOT,
        repo="other.example.com/x/",
    )
    assert (args.nodes, args.repo, args.version) == (2, "other.example.com/x/", "v9.1.0")


def test_version_and_config_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not both"):
        render_args(
            cluster(tmp_path, "v9.1.0"), None, version="v9.1.0", nodes=3, root=ROOT, repo=None
        )


# --- wrong types and hostile files -----------------------------------------------------


@pytest.mark.parametrize(
    ("replace", "key", "line"),
    [
        ("version: v9.1.0", "spec.clusterConfig.addons.1.version", 17),
        ("calicoMode: vxlan", "spec.clusterConfig.addons.1.param.calicoMode", 19),
        ("podSubnet: 10.50.0.0/16", "spec.clusterConfig.cluster.networking.podSubnet", 12),
    ],
)
def test_wrong_type_names_key_and_line(tmp_path: Path, replace: str, key: str, line: int) -> None:
    text = CLUSTER.format(addons=CALICO.format(version="v9.1.0"))
    bad = {
        "version: v9.1.0": "version: 3.27",
        "calicoMode: vxlan": "calicoMode: {nested: map}",
        "podSubnet: 10.50.0.0/16": "podSubnet: [a, b]",
    }[replace]
    path = write(tmp_path, text.replace(replace, bad))
    with pytest.raises(InputError) as exc:
        load_config(path)
    assert exc.value.key is not None
    assert exc.value.key.replace("[", ".").replace("]", "") == key
    assert exc.value.line == line and exc.value.file == str(path)


def test_addons_not_a_list(tmp_path: Path) -> None:
    text = "kind: BKEConfig\nspec:\n  addons: calico\n"
    with pytest.raises(InputError) as exc:
        load_config(write(tmp_path, text))
    assert exc.value.key == "spec.addons" and exc.value.line == 3


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "kind: BKECluster\nspec:\n  clusterConfig: [unclosed\n")
    with pytest.raises(InputError) as exc:
        load_config(path)
    assert exc.value.line is not None and "invalid YAML" in exc.value.message


def test_alias_bomb_fails_fast(tmp_path: Path) -> None:
    """Refused after a bounded amount of work, not a bounded wall time (a loaded machine
    must not fail it): the CLI, limited to 20 s of CPU and 1.5 GB of address space,
    exits 2 with one line naming the file and the node limit. Without the limit the
    10**12 nodes behind the aliases are walked until the CPU limit kills the process."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("kind: BKECluster\nspec: {}")
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InputError, match="alias bomb"):
        load_config(path)
    cli = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (20, 20))\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1500 << 20, 1500 << 20))\n"
        "from renderer._entry import main\n"
        "sys.argv = ['calico-render', '--config', sys.argv[1]]\n"
        "main()\n"
    )
    # the wall timeout only keeps a broken run from hanging the suite; the bound is CPU
    proc = subprocess.run(
        [sys.executable, "-c", cli, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.splitlines() == [
        f"calico-render: error: {path}: YAML expands to more than "
        f"{MAX_EXPANDED_NODES} nodes (alias bomb?)"
    ]


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"kind: BKECluster\nspec:\n  x: caf\xe9\n")
    with pytest.raises(InputError, match="UTF-8") as exc:
        load_config(path)
    assert exc.value.line == 3


def test_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"# " + b"x" * (17 * 1024 * 1024) + b"\n")
    with pytest.raises(InputError, match="larger than"):
        load_nodes(path)


def test_wrong_kind_and_missing_cluster(tmp_path: Path) -> None:
    wrong = write(tmp_path, "kind: Deployment\nspec: {}\n", "wrong.yaml")
    with pytest.raises(InputError) as exc:
        load_config(wrong)
    assert exc.value.file == str(wrong) and "'Deployment'" in exc.value.message
    nodes = write(tmp_path, "kind: BKENode\nmetadata: {name: a}\nspec: {role: [node]}\n")
    with pytest.raises(InputError) as exc:
        load_config(nodes)
    assert exc.value.file == str(nodes) and "BKECluster" in exc.value.message


def test_scalar_document_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not an object"):
        load_config(write(tmp_path, "just text\n"))


NODE = "---\nkind: BKENode\nmetadata:\n  name: {name}\nspec:\n  role: {role}\n"


def test_unknown_role_names_key_and_line(tmp_path: Path) -> None:
    text = NODE.format(name="a", role="[node]") + NODE.format(name="b", role="[worker]")
    with pytest.raises(InputError) as exc:
        load_nodes(write(tmp_path, text, "nodes.yaml"))
    assert exc.value.key == "spec.role[0]"
    assert exc.value.line == 12 and "'worker' is not allowed" in exc.value.message


def test_duplicate_node_is_refused(tmp_path: Path) -> None:
    text = NODE.format(name="a", role="[node]") + NODE.format(name="a", role="[node]")
    with pytest.raises(InputError, match="appears twice") as exc:
        load_nodes(write(tmp_path, text, "nodes.yaml"))
    assert exc.value.line == 10


def test_nodes_file_without_nodes_is_zero_nodes(tmp_path: Path) -> None:
    """The controller renders a cluster without BKENodes (masterReplicas "0")."""
    path = write(tmp_path, "# nothing\n", "nodes.yaml")
    inventory = load_nodes(path)
    assert (inventory.file, inventory.count) == (str(path), 0)


def test_missing_role_in_list_item(tmp_path: Path) -> None:
    text = (
        "kind: List\nitems:\n  - kind: BKENode\n    metadata: {name: a}\n    spec: {ip: 1.2.3.4}\n"
    )
    with pytest.raises(InputError) as exc:
        load_nodes(write(tmp_path, text, "nodes.yaml"))
    assert exc.value.key == "items[0].spec.role" and exc.value.line == 5


# --- through the CLI: one line, exit 2, nothing rendered ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        CLUSTER.format(addons=CALICO.format(version='""')),
        CLUSTER.format(addons=CALICO.format(version="v9.1.0") + CALICO.format(version="v9.1.0")),
        CLUSTER.format(addons=CALICO.format(version="[v9]")),
        "kind: BKECluster\nspec: [\n",
    ],
)
def test_cli_bad_config_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    path = write(tmp_path, text)
    for args in (
        ("--manifests", str(ROOT), "--config", str(path), "--nodes", "3"),
        ("images", "--manifests", str(ROOT), "--config", str(path)),
    ):
        r = run(capsys, *args)
        one_error(r, file=path)
        assert r.out == ""


def test_cli_config_without_calico_renders_what_it_lists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The bundled tree holds Calico alone: the addons the config lists are named as
    not rendered, and no Typha decision is made."""
    r = run(
        capsys,
        "--config",
        str(EXAMPLES / "bkecluster-no-calico.yaml"),
        "--nodes-file",
        str(EXAMPLES / "bkenodes-601.yaml"),
    )
    assert r.code == 0 and r.out == ""
    assert [line.split(": skipped: ")[0] for line in r.err.splitlines()] == [
        "calico-render: kubeproxy v1.28.8",
        "calico-render: coredns v1.10.1",
    ]
    assert "it has no kubernetes/kubeproxy/" in r.err and "allowTypha" not in r.err


def test_cli_config_needs_a_node_count(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--config", str(EXAMPLES / "bkecluster-601.yaml"))
    assert "--nodes" in one_error(r)  # a usage error: names the flag it needs


def test_nodes_file_alone_gives_the_count_for_a_version_render() -> None:
    args = render_args(
        None, BKE / "nodes-list.yaml", version="v9.1.0", nodes=None, root=ROOT, repo=None
    )
    assert (args.version, args.nodes, args.user, args.skip) == ("v9.1.0", 2, {}, False)


def test_one_position_loader_and_one_key_path_format() -> None:
    """BKE input errors use yamlio's position loader and the shared key-path format."""
    assert "YAML(" not in inspect.getsource(cluster_mod)
    assert vars(cluster_mod)["locate"] is yamlio.locate
    assert vars(cluster_mod)["key_path"] is objects.key_path
    assert "def _key_path" not in inspect.getsource(cluster_mod)
    assert "for part in" not in inspect.getsource(kubeschema._path)
    assert objects.key_path(["spec", "addons", 0, "param"]) == "spec.addons[0].param"
    assert objects.key_path([]) == ""


def test_best_error_is_the_one_check_raises() -> None:
    data = {"apiVersion": "x", "kind": "BKENode", "metadata": {"name": "n"}, "spec": {}}
    best = schemas.best_error(cluster_mod.BKE_INPUT, data)
    assert best is not None
    with pytest.raises(InputError) as exc:
        schemas.check(cluster_mod.BKE_INPUT, data)
    assert exc.value.message == schemas.describe(best)[1]
    assert schemas.best_error(cluster_mod.BKE_INPUT, {"kind": "BKENode"}) is not None


# --- addon params are checked against the render-context schema at load time ------------


@pytest.mark.parametrize(
    "param", ["calicoMode: IPIP", "ipModVersion: ipv5", "podSubnet: not-a-cidr",
              "ipAutoDetectionMethod: 'first-found '"],
)  # fmt: skip
def test_a_param_the_controller_renders_is_taken_as_given(tmp_path: Path, param: str) -> None:
    """Never stricter than the controller: a value no branch names is a warning of the
    render (param-value-unmatched), not bad input."""
    text = CLUSTER.format(addons=CALICO.format(version="v9.1.0")).replace(
        "calicoMode: vxlan", param
    )
    addon = load_config(write(tmp_path, text)).calico()
    key, _, value = param.partition(": ")
    assert addon is not None and addon.params[key] == value.strip("'")


def test_params_the_schema_does_not_define_or_the_policy_overrides_pass(tmp_path: Path) -> None:
    text = CLUSTER.format(addons=CALICO.format(version="v9.1.0")).replace(
        'typhaReplicas: "1"', 'typhaReplicas: "many"\n          repo: no-slash\n          x: y'
    )
    other = (
        "      - name: coredns\n        version: v1\n        param:\n          calicoMode: foo\n"
    )
    cfg = load_config(write(tmp_path, text + other))
    addon = cfg.calico()
    assert addon is not None and addon.params["typhaReplicas"] == "many"


def test_cli_renders_a_param_no_branch_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = CLUSTER.format(addons=CALICO.format(version="v9.1.0")).replace(
        "calicoMode: vxlan", "calicoMode: foo"
    )
    path = write(tmp_path, text)
    for args in (
        ("--manifests", str(ROOT), "--config", str(path), "--nodes", "3", "--no-validate"),
        ("images", "--manifests", str(ROOT), "--config", str(path)),
    ):
        r = run(capsys, *args)
        assert r.code == 0, r.err
        assert "render context" not in r.err


# --- BKENodes of several clusters -------------------------------------------------------

MARKED = """\
---
kind: BKENode
metadata:
  name: {name}
  namespace: {namespace}
  labels:
    cluster.x-k8s.io/cluster-name: {cluster}
spec:
  role: [node]
"""
OWNED = """\
---
kind: BKENode
metadata:
  name: {name}
  ownerReferences:
    - {{apiVersion: bke.bocloud.com/v1beta1, kind: BKECluster, name: {cluster}, uid: x}}
spec:
  role: [node]
"""


def nodes_of(tmp_path: Path, counts: dict[str, int], *, unmarked: int = 0, ns: str = "") -> Path:
    text = ""
    for name, count in counts.items():
        text += "".join(
            MARKED.format(name=f"{name}-{i}", namespace=ns or name, cluster=name)
            for i in range(count)
        )
    text += "".join(NODE.format(name=f"free-{i}", role="[node]") for i in range(unmarked))
    return write(tmp_path, text, "nodes.yaml")


def named_cluster(tmp_path: Path, name: str, namespace: str = "") -> Path:
    text = CLUSTER.format(addons=CALICO.format(version="v9.1.0"))
    meta = f"  name: {name}\n" + (f"  namespace: {namespace}\n" if namespace else "")
    return write(tmp_path, text.replace("  name: c1\n", meta))


def test_config_counts_only_its_own_cluster(tmp_path: Path) -> None:
    nodes = nodes_of(tmp_path, {"a": 30, "b": 30})
    inputs = resolve_inputs(named_cluster(tmp_path, "a"), nodes_file=nodes, root=ROOT)
    assert inputs.nodes == 30
    assert any(
        "counted 30 BKENodes of cluster 'a'" in n and "skipped 30" in n for n in inputs.notes
    )
    assert any("(b)" in n for n in inputs.notes)


def test_unmarked_nodes_count_and_the_note_says_so(tmp_path: Path) -> None:
    nodes = nodes_of(tmp_path, {"a": 30, "b": 30}, unmarked=5)
    inputs = resolve_inputs(named_cluster(tmp_path, "a"), nodes_file=nodes, root=ROOT)
    assert inputs.nodes == 35
    assert any("5 without a cluster marker" in n and "skipped 30" in n for n in inputs.notes)
    # Only unmarked nodes, or only this cluster's: nothing skipped, no note.
    only = nodes_of(tmp_path, {"a": 3}, unmarked=2)
    inputs = resolve_inputs(named_cluster(tmp_path, "a"), nodes_file=only, root=ROOT)
    assert inputs.nodes == 5 and inputs.notes == ()


def test_owner_reference_and_namespace_name_the_cluster(tmp_path: Path) -> None:
    text = "".join(OWNED.format(name=f"o{i}", cluster="a") for i in range(4))
    text += "".join(OWNED.format(name=f"p{i}", cluster="b") for i in range(6))
    inv = load_nodes(write(tmp_path, text, "nodes.yaml"))
    assert inv.clusters == {"a": 4, "b": 6}
    assert inv.of_cluster("a")[0].count == 4
    # Same cluster name in another namespace is another cluster.
    marked = load_nodes(nodes_of(tmp_path, {"a": 3}, ns="elsewhere"))
    assert marked.of_cluster("a", "elsewhere")[0].count == 3
    assert marked.of_cluster("a", "home")[0].count == 0


def test_config_whose_cluster_has_no_node_in_the_file_is_refused(tmp_path: Path) -> None:
    nodes = nodes_of(tmp_path, {"a": 30, "b": 30})
    with pytest.raises(InputError, match=r"no BKENode of cluster 'c'.*a \(30\), b \(30\)") as exc:
        resolve_inputs(named_cluster(tmp_path, "c"), nodes_file=nodes, root=ROOT)
    assert exc.value.file == str(nodes)


def test_without_config_nodes_of_several_clusters_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    nodes = nodes_of(tmp_path, {"a": 30, "b": 30})
    with pytest.raises(InputError, match=r"2 clusters: a \(30\), b \(30\)"):
        render_args(None, nodes, version="v9.1.0", nodes=None, root=ROOT, repo=None)
    r = run(capsys, "--manifests", str(ROOT), "--version", "v9.1.0", "--nodes-file", str(nodes))
    assert "a (30), b (30)" in one_error(r, file=nodes) and r.out == ""
    one = nodes_of(tmp_path, {"a": 30}, unmarked=2)
    args = render_args(None, one, version="v9.1.0", nodes=None, root=ROOT, repo=None)
    assert args.nodes == 32


def test_example_nodes_are_all_of_the_example_cluster() -> None:
    inputs = resolve_inputs(
        EXAMPLES / "bkecluster-601.yaml", nodes_file=EXAMPLES / "bkenodes-601.yaml"
    )
    assert inputs.nodes == 601 and inputs.notes == ()
    assert load_nodes(EXAMPLES / "bkenodes-601.yaml").clusters == {"bke-large": 601}


def _bke_nodes(count: int, *, bad_at: int | None = None) -> str:
    docs = []
    for i in range(count):
        role = "[nodes]" if i == bad_at else "[node]"
        docs.append(
            f"apiVersion: bke.bocloud.com/v1beta1\nkind: BKENode\nmetadata:\n  name: n{i}\n"
            f"spec:\n  role: {role}\n  ip: 10.{i // 65536}.{i // 256 % 256}.{i % 256}\n"
        )
    return "---\n".join(docs)


@pytest.mark.slow
def test_twenty_thousand_bke_nodes_render_with_twenty_typha_replicas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nodes.yaml"
    path.write_text(_bke_nodes(20_000))
    assert load_nodes(path).count == 20_000
    r = run(capsys, "--version", "v3.28", "--nodes-file", str(path), "--no-validate")
    assert r.code == 0
    typha = [
        d
        for d in load_all(r.out, "out")
        if isinstance(d, dict)
        and d.get("kind") == "Deployment"
        and d["metadata"]["name"] == "calico-typha"
    ]
    assert [d["spec"]["replicas"] for d in typha] == [20]  # min(20, ceil(20000/200))


@pytest.mark.slow
def test_a_bad_node_among_thousands_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "nodes.yaml"
    path.write_text(_bke_nodes(5_000, bad_at=4_321))
    with pytest.raises(InputError) as exc:
        load_nodes(path)
    # each node is 7 lines and a separator, its role on the 6th
    assert exc.value.key == "spec.role[0]" and exc.value.line == 4_321 * 8 + 6


# --- a create request: installer-service's one stream of BKENodes and the BKECluster ----


def _request(tmp_path: Path, text: str) -> Path:
    return write(tmp_path, text, "create.yaml")


def test_a_create_request_counts_its_own_bkenodes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--config`` alone renders a create request: the BKENodes in front of its
    BKECluster are the count, in the CLI and the library alike, and a note says so."""
    path = _request(tmp_path, create_request(60, version="v3.31.3"))
    alone = run(capsys, "--config", str(path), "--no-validate")
    assert alone.code == 0, alone.err
    assert f"{path}: counted its own 60 BKENodes (--nodes-file wins when given)" in alone.err
    assert "allowTypha=true typhaReplicas=3 (60 nodes > 50" in alone.err
    both = run(capsys, "--config", str(path), "--nodes-file", str(path), "--no-validate")
    assert both.code == 0 and both.out == alone.out
    request = api.Request.from_config(path)
    assert request.nodes == 60 and request.inventory is not None
    assert request.inventory.masters == 3
    assert any("counted its own 60 BKENodes" in n for n in request.notes)


def test_the_nodes_given_win_over_the_streams_and_a_note_says_which_counted(
    tmp_path: Path,
) -> None:
    path = _request(tmp_path, create_request(60, version="v3.31.3"))
    other = write(tmp_path, create_request(2, version="v3.31.3"), "other.yaml")
    args = render_args(path, other, version=None, nodes=None, root=None, repo=None)
    assert args.nodes == 2
    assert args.notes == (
        f"{path} holds 60 BKENodes too; the BKENodes of the nodes_file argument {other} "
        "are the ones counted",
    )
    args = render_args(path, None, version=None, nodes=7, root=None, repo=None)
    assert args.nodes == 7 and args.inventory is not None and args.inventory.count == 60
    assert args.notes == (f"a given node count of 7 overrides the 60 BKENodes of {path}",)


def test_bkenodes_of_other_clusters_in_the_stream_are_skipped(tmp_path: Path) -> None:
    path = _request(tmp_path, create_request(60, version="v3.31.3", others=5))
    args = render_args(path, None, version=None, nodes=None, root=None, repo=None)
    assert args.nodes == 60
    assert args.notes == (
        f"{path}: counted 60 BKENodes of cluster 'bke-cluster'; skipped 5 of other "
        "clusters (bke-cluster-other)",
    )


def test_skipping_other_clusters_is_linear() -> None:
    """20,000 BKENodes, half of another cluster: each node is judged once (comparing
    each with every kept one took minutes here)."""
    nodes = tuple(
        cluster_mod.Node(f"n{i}", ("node",), cluster="a" if i % 2 else "b") for i in range(20_000)
    )
    start = time.process_time()
    kept, note = cluster_mod.NodeInventory("nodes.yaml", nodes).of_cluster("a")
    assert time.process_time() - start < 2.0
    assert kept.count == 10_000 and note is not None and "skipped 10000" in note


_NODE_WITHOUT_SPEC = (
    "apiVersion: bke.bocloud.com/v1beta1\nkind: BKENode\nmetadata:\n    name: bare\n"
    "    labels:\n        cluster.x-k8s.io/cluster-name: bke-cluster\n---\n"
)


def _bad_requests() -> dict[str, tuple[str, str, str, str]]:
    """name: (text, key, the line's text, what the message says)."""
    good = create_request(3, version="v3.31.3")
    cluster = good[good.index("apiVersion: bke.bocloud.com/v1beta1\nkind: BKECluster") :]
    params = {"calicoMode": "vxlan", "typhaReplicas": "5"}
    return {
        "two clusters": (
            good + "---\n" + cluster,
            "kind",
            "kind: BKECluster",
            "a second BKECluster (a BKECluster is at line",
        ),
        "node without spec": (
            _NODE_WITHOUT_SPEC + good,
            "spec",
            "apiVersion: bke.bocloud.com/v1beta1",
            "is required",
        ),
        "integer param": (
            create_request(3, version="v3.31.3", params=params),
            "spec.clusterConfig.addons[1].param.typhaReplicas",
            "typhaReplicas: 5",
            '5 is not of type "string" or "null": the CRD\'s params are strings',
        ),
        "boolean param": (
            create_request(3, version="v3.31.3", params={"allowTypha": "false"}),
            "spec.clusterConfig.addons[1].param.allowTypha",
            "allowTypha: false",
            "false is not of type",
        ),
        "float param on another addon": (
            good.replace("tagVersion: latest", "tagVersion: 1.5"),
            "spec.clusterConfig.addons[3].param.tagVersion",
            "tagVersion: 1.5",
            "1.5 is not of type",
        ),
        "Calico": (
            good.replace("name: calico\n", "name: Calico\n"),
            "spec.clusterConfig.addons[1].name",
            "name: Calico",
            "kubernetes/Calico/v3.31.3/, which does not exist",
        ),
    }


@pytest.mark.parametrize("case", sorted(_bad_requests()))
def test_a_bad_create_request_is_one_line_naming_file_line_and_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str
) -> None:
    """Exit 2 with one line, and the library's InputError carries the same fields."""
    text, key, needle, words = _bad_requests()[case]
    path = _request(tmp_path, text)
    # the line the error names: the second BKECluster's kind, else the first match
    lines = [i for i, t in enumerate(text.splitlines(), 1) if t.strip() == needle]
    line = lines[1] if case == "two clusters" else lines[0]
    r = run(capsys, "--config", str(path), "--no-validate")
    assert words in one_error(r, file=path, line=line, key=key)
    with pytest.raises(InputError) as exc:
        api.Request.from_config(path)
    assert (exc.value.file, exc.value.line, exc.value.key) == (str(path), line, key)
    assert words in exc.value.message


# --- every addon ------------------------------------------------------------------------


def test_bkenodes_keep_their_ssh_access_and_addons_their_type(tmp_path: Path) -> None:
    """cluster-api's manage template and bocoperator read a node's SSH access; a chart
    addon is not rendered from bke-manifests."""
    stream = create_request(2)
    path = tmp_path / "create.yaml"
    path.write_text(stream.replace("name: coredns", "name: coredns\n              type: chart"))
    config, inventory = cluster_mod.load_stream(path)
    assert inventory is not None
    node = inventory.nodes[0]
    assert (node.port, node.username, node.password) == ("22", "root", "")
    assert config.addon("coredns") is not None and config.addon("coredns").type == "chart"  # type: ignore[union-attr]


def test_an_addon_listed_twice_is_found_by_its_version(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        "kind: BKECluster\nmetadata: {name: c}\nspec:\n  clusterConfig:\n    addons:\n"
        "      - {name: coredns, version: v1}\n      - {name: coredns, version: v2}\n"
    )
    config = load_config(path)
    assert [config.addon("coredns", v).where for v in (None, "v2", "v3")] == [  # type: ignore[union-attr]
        "spec.clusterConfig.addons[0]",
        "spec.clusterConfig.addons[1]",
        "spec.clusterConfig.addons[0]",
    ]
    assert config.addon("kubeproxy") is None


def test_an_addon_the_bkecluster_does_not_list_is_read_as_if_listed(tmp_path: Path) -> None:
    """Admission defaults a listed addon: victoriametrics-controller gets its params."""
    path = tmp_path / "create.yaml"
    path.write_text(create_request(3))
    found = resolve_inputs(path, addon="victoriametrics-controller", check_version=False)
    assert found.addon is not None and found.addon.assumed
    assert found.addon.where == "spec.clusterConfig.addons[4]"
    assert found.addon.params["grafanaNodePort"] == "30010"
    assert "lists no addon named victoriametrics-controller" in found.notes[0]
    internal = resolve_inputs(path, addon="bkeagent", check_version=False)
    assert internal.addon is None  # the controller installs it itself, listed or not
    assert internal.notes[-1].endswith("no addon named bkeagent")


def test_an_addons_listed_version_must_be_a_directory_of_that_addon(tmp_path: Path) -> None:
    path = tmp_path / "create.yaml"
    path.write_text(create_request(3))
    with pytest.raises(InputError) as err:
        resolve_inputs(path, addon="coredns", root=ROOT)
    assert err.value.key == "spec.clusterConfig.addons[2].version"
    assert "kubernetes/coredns/" in err.value.message
