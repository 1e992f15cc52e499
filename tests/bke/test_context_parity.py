"""Proof: ``calico-render --config --nodes-file`` renders byte for byte what BKE's
controller renders.

tests/go/context.go builds each file's context by the controller's rules, independently
of calico-render, from the same BKECluster and BKENode files (converted to JSON here:
Go's standard library has no YAML) and renders with Go's text/template. The matrix
covers image prefix, podSubnet and calicoMode set or not, per-file (dotted) params,
bkeadm's old Typha params, 50/51/601 nodes, on the bundled tree (split files) and on
BKE's single-file layout (BKE's released v3.31.3 calico.yaml). For the other addons of
bke-manifests (rendered through the library, ``render_addon``): nodelocaldns by proxy
mode, cluster-api with and without ``manage`` (its deferred 003-manage.yaml), bocoperator,
fabric's expanded ``excludeIps``, the agent's launcher and the node scripts the
controller installs itself, victoriametrics-controller's admission defaults, coredns.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from renderer import api
from renderer.manifests.tree import resolve_version
from renderer.store.files import OWNED_FILES
from tests.clihelp import one_error, run

HERE = Path(__file__).resolve().parents[1]
BKE_LAYOUT = HERE / "fixtures" / "bke-real"  # BKE's single-file layout
VERSION = "v3.31.3"
TREES = {"bundled": None, "bke-layout": BKE_LAYOUT}

CLUSTER = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata:
  name: parity
  namespace: parity-ns
spec:
{endpoint}  clusterConfig:
    cluster:
      kubernetesVersion: v1.28.8
{cluster}    addons:
      - name: kubeproxy
        version: v1.28.8
      - name: calico
        version: {version}
        param:
{params}
"""

#: name: (cluster lines under spec.clusterConfig.cluster, calico params, endpoint lines)
CONFIGS: dict[str, tuple[str, dict[str, str], str]] = {
    "prefix-subnet-mode": (
        "      imageRepo: {domain: deploy.bocloud.k8s, ip: 192.168.10.10, port: '40443', "
        "prefix: openfuyao}\n      networking: {podSubnet: 10.60.0.0/16}\n",
        {"calicoMode": "ipip"},
        "",
    ),
    "bare": ("", {}, ""),
    "no-prefix-bgp": (
        "      imageRepo: {domain: reg.example.com, port: '5000'}\n",
        {"calicoMode": "bgp"},
        "",
    ),
    "dotted": (
        "      imageRepo: {ip: 10.0.0.5, prefix: kubernetes}\n",
        {
            "calico.calicoMode": "ipip",
            "002-calico.calicoMode": "bgp",
            "ClusterCidr.Ipv6": "fd00::/48",
            "ipAutoDetectionMethod": "interface=eth0",
        },
        "",
    ),
    "old-typha-params": (
        "      networking: {podSubnet: 10.96.0.0/12, serviceSubnet: 10.112.0.0/12}\n",
        {
            "calicoMode": "vxlan",
            "ipAutoDetectionMethod": "skip-interface=nerdctl*",
            "allowTypha": "false",
            "typhaReplicas": "1",
            "repo": "ignored.example.com/",
        },
        "  controlPlaneEndpoint: {host: 10.0.0.100, port: 36443}\n",
    ),
    "port-443": (
        "      imageRepo: {domain: hub.example.com, port: '443', prefix: mirror}\n",
        {"calicoMode": "vxlan"},
        "",
    ),
}
NODE_COUNTS = (50, 51, 601)


def cluster_yaml(name: str) -> str:
    cluster, params, endpoint = CONFIGS[name]
    lines = "".join(f"          {k}: {json.dumps(v)}\n" for k, v in params.items())
    return CLUSTER.format(
        endpoint=endpoint,
        cluster=cluster,
        version=VERSION,
        params=lines.rstrip("\n") or "          {}",
    )


def nodes_yaml(count: int) -> str:
    """3 masters with etcd, workers, and (above 600) split-role nodes of seed 001;
    none at all for 0."""
    if count == 0:
        return "# no BKENodes\n"
    roles = ["[master, etcd]"] * 3 + ["[node]"] * (count - 3)
    if count > 600:
        roles[-2:] = ["[etcd-event, etcd-pod]", "[apiserver, scheduler]"]
    docs = [
        "---\napiVersion: bke.bocloud.com/v1beta1\nkind: BKENode\n"
        f"metadata: {{name: n{i}, namespace: parity-ns, "
        "labels: {cluster.x-k8s.io/cluster-name: parity}}\n"
        f"spec: {{ip: 10.1.{i // 250}.{i % 250 + 1}, role: {r}}}\n"
        for i, r in enumerate(roles)
    ]
    return "".join(docs)


def to_json(text: str) -> object:
    docs = [d for d in YAML(typ="safe").load_all(text) if d is not None]
    return docs[0] if len(docs) == 1 and docs[0].get("kind") == "BKECluster" else docs


@pytest.mark.slow
@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize("nodes", NODE_COUNTS)
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_config_render_is_the_controllers(
    go_render: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tree: str,
    nodes: int,
    config: str,
) -> None:
    assert_same_as_controller(go_render, tmp_path, capsys, TREES[tree], config, nodes)


def assert_same_as_controller(
    go_render: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    root: Path | None,
    config: str,
    nodes: int,
    cluster_text: str | None = None,
    as_written: bool = False,
) -> Path:
    """The files Go writes by the controller's rules and ours, byte for byte, by path
    (``as_written``: neither applies BKE's admission defaults); where ours are."""
    cluster_file, nodes_file = tmp_path / "cluster.yaml", tmp_path / "nodes.yaml"
    cluster_file.write_text(cluster_text or cluster_yaml(config), encoding="utf-8")
    nodes_file.write_text(nodes_yaml(nodes), encoding="utf-8")
    (tmp_path / "cluster.json").write_text(json.dumps(to_json(cluster_file.read_text())))
    (tmp_path / "nodes.json").write_text(json.dumps(to_json(nodes_file.read_text())))
    go_out, py_out = tmp_path / "go", tmp_path / "py"
    go_out.mkdir()
    version_dir = resolve_version(VERSION, root).path
    go = subprocess.run(
        [
            str(go_render),
            "context",
            str(tmp_path / "cluster.json"),
            str(tmp_path / "nodes.json"),
            str(version_dir),
            str(go_out),
        ],
        capture_output=True,
        check=False,
        timeout=120,
        env={**os.environ, "BKE_AS_WRITTEN": "1" if as_written else "0"},
    )
    assert go.returncode == 0, go.stderr.decode()
    args = ["--config", str(cluster_file), "--nodes-file", str(nodes_file), "--addon", "calico"]
    args += ["--no-admission-defaults"] if as_written else []
    args += ["--output-dir", str(py_out), "--no-validate"]
    r = run(capsys, *(["--manifests", str(root)] if root else []), *args)
    assert r.code == 0, r.err
    py_version = py_out / "calico" / version_dir.name  # <addon>/<version>/<file>
    go_files = sorted(p.relative_to(go_out).as_posix() for p in go_out.rglob("*") if p.is_file())
    py_files = sorted(
        p.relative_to(py_version).as_posix() for p in py_version.rglob("*") if p.is_file()
    )
    assert sorted(p.name for p in py_out.iterdir()) == [OWNED_FILES, "calico"]
    assert py_files == go_files and go_files
    for name in go_files:
        assert (py_version / name).read_bytes() == (go_out / name).read_bytes(), name
    return py_version


@pytest.mark.parametrize("config", ("bare", "dotted", "no-prefix-bgp"))
def test_config_as_written_is_the_controllers_without_admission(
    go_render: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str
) -> None:
    """--no-admission-defaults: the file as written, as a controller reading it
    undefaulted would render it (no imageRepo: the templates' own registry)."""
    rendered = assert_same_as_controller(
        go_render, tmp_path, capsys, None, config, 51, as_written=True
    )
    if config == "bare":
        assert "deploy.bocloud.k8s" not in (rendered / "002-calico.yaml").read_text()


def test_admission_gives_a_config_without_image_repo_bkes_registry(
    go_render: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No imageRepo: the webhook fills deploy.bocloud.k8s:40443 and prefix kubernetes."""
    rendered = assert_same_as_controller(go_render, tmp_path, capsys, None, "bare", 51)
    text = (rendered / "002-calico.yaml").read_text()
    assert "image: deploy.bocloud.k8s:40443/kubernetes/calico/node:v3.31.3" in text


def walk_tree(base: Path) -> Path:
    """The bundled version with its Typha file in a subdirectory, a second file of the
    same base name deeper down, and files the controller never renders (``.yml``)."""
    bundled = resolve_version(VERSION).path
    version = base / "kubernetes" / "calico" / VERSION
    (version / "typha" / "extra").mkdir(parents=True)
    for name in ("000-crds.yaml", "002-calico.yaml"):
        (version / name).write_bytes((bundled / name).read_bytes())
    (version / "typha" / "001-typha.yaml").write_bytes((bundled / "001-typha.yaml").read_bytes())
    (version / "typha" / "extra" / "001-typha.note.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: note, namespace: kube-system}\n"
        "data: {mode: '{{ .noteKey }}', typha: '{{ .typhaReplicas }}', repo: '{{ .repo }}',"
        " dns: '{{ .dnsIP }}', api: '{{ .apiServerSrcHost }}:{{ .apiServerSrcPort }}',"
        " masters: '{{ .masterReplicas }}', workers: '{{ .workerReplicas }}'}\n"
    )
    (version / "003-never.yml").write_text("broken: {{ .x\n")
    (version / "typha" / "004-never.yml").write_text("broken: {{ .x\n")
    return base


@pytest.mark.parametrize("nodes", (50, 601))
@pytest.mark.parametrize("config", ("dotted", "bare"))
def test_subdirectories_and_yml_files_are_walked_as_the_controller_walks(
    go_render: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], nodes: int, config: str
) -> None:
    """Recursive, ``*.yaml`` only, sorted by path; ``001-typha.K`` params reach every file
    whose base name is 001-typha, in any directory."""
    root = walk_tree(tmp_path / "tree")
    cluster = cluster_yaml(config).replace(
        "        param:\n", '        param:\n          001-typha.noteKey: "per-file"\n', 1
    )
    if config == "bare":
        cluster = cluster.replace("          {}\n", "")
    rendered = assert_same_as_controller(go_render, tmp_path, capsys, root, config, nodes, cluster)
    note = (rendered / "typha" / "extra" / "001-typha.note.yaml").read_text()
    assert "mode: 'per-file'" in note


@pytest.mark.parametrize(
    ("subnet", "dns"),
    [("::ffff:10.96.0.0/112", "10.96.0.10"), ("fd00:10:96::/108", "fd00:10:96::a"),
     ("10.112.0.0/12", "10.112.0.10")],
)  # fmt: skip
def test_dns_ip_is_the_controllers(
    go_render: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    subnet: str,
    dns: str,
) -> None:
    """dnsIP is address 10 of serviceSubnet as Go's net package gives it: an IPv4-mapped
    subnet keeps its IPv4 form."""
    root = walk_tree(tmp_path / "tree")
    cluster = cluster_yaml("bare").replace(
        "    cluster:\n", f"    cluster:\n      networking: {{serviceSubnet: '{subnet}'}}\n", 1
    )
    cluster = cluster.replace("        param:\n          {}\n", "")
    rendered = assert_same_as_controller(go_render, tmp_path, capsys, root, "bare", 51, cluster)
    note = (rendered / "typha" / "extra" / "001-typha.note.yaml").read_text()
    assert f"dns: '{dns}'" in note


def test_the_matrix_reaches_what_it_claims() -> None:
    """The configs differ where the matrix says: otherwise the proof proves less."""
    texts = {name: cluster_yaml(name) for name in CONFIGS}
    assert "prefix:" in texts["prefix-subnet-mode"] and "prefix:" not in texts["no-prefix-bgp"]
    assert "podSubnet" in texts["prefix-subnet-mode"] and "podSubnet" not in texts["bare"]
    assert "calicoMode" not in texts["bare"] and "calico.calicoMode" in texts["dotted"]
    assert "allowTypha" in texts["old-typha-params"]


def test_zero_bkenodes_render_as_the_controller_renders_them(
    go_render: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A nodes file without BKENodes: masterReplicas "0", Typha off, a warning."""
    root = walk_tree(tmp_path / "tree")
    rendered = assert_same_as_controller(go_render, tmp_path, capsys, root, "bare", 0)
    note = (rendered / "typha" / "extra" / "001-typha.note.yaml").read_text()
    assert "masters: '0', workers: '0'" in note and "typha: '0'" in note


TYPED = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: typed, namespace: kube-system}
data:
  port: '{{ printf "%T %v" .apiServerSrcPort .apiServerSrcPort }}'
  portIsDefault: '{{ eq .apiServerSrcPort 6443 }}'
{{- with .nodeSelector }}
  missing: '{{ index . "zz" }}'
  field: '{{ .zz }}'
  type: '{{ printf "%T" . }}'
  all: '{{ printf "%#v" . }}'
  a: '{{ index . "a" }}'
{{- range $k, $v := . }}
  each-{{ $k }}: '{{ printf "%T %q" $v $v }}'
{{- end }}
{{- end }}
"""


def typed_tree(base: Path) -> Path:
    """The walked tree with a template printing the typed values' Go types."""
    root = walk_tree(base)
    (root / "kubernetes" / "calico" / VERSION / "003-typed.yaml").write_text(TYPED)
    return root


ENDPOINT = "  controlPlaneEndpoint: {host: 10.0.0.1, port: 36443}\n"


@pytest.mark.parametrize(
    "selector", ["", "a=b, c ,d=e=f", '{"a": "b", "x": ""}', "003-typed.nodeSelector: a=x"]
)
@pytest.mark.parametrize("endpoint", ["", ENDPOINT])
@pytest.mark.parametrize("as_written", [False, True])
def test_typed_context_values_are_the_controllers(
    go_render: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    selector: str,
    endpoint: str,
    as_written: bool,
) -> None:
    """``nodeSelector`` is a map[string]string (``index`` of a missing key prints "",
    ``%T`` says so) and the endpoint's port an int32, as the controller passes them;
    the default port stays an int."""
    root = typed_tree(tmp_path / "tree")
    cluster = cluster_yaml("bare").replace("        param:\n          {}\n", "")
    if selector:
        key, value = (
            selector.split(": ", 1) if selector.startswith("003") else ("nodeSelector", selector)
        )
        cluster += f"        param:\n          {key}: {json.dumps(value)}\n"
    cluster = cluster.replace("spec:\n", "spec:\n" + endpoint, 1)
    rendered = assert_same_as_controller(
        go_render, tmp_path, capsys, root, "bare", 3, cluster, as_written=as_written
    )
    text = (rendered / "003-typed.yaml").read_text()
    typed = "int32" if endpoint or not as_written else "int"
    assert f"port: '{typed} " in text
    if selector:
        assert "type: 'map[string]string'" in text and "missing: ''" in text
        assert "field: '<no value>'" in text  # a field of a map: the invalid value


def test_an_addon_named_calico_in_another_case_fails_as_in_the_controller(
    go_render: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The controller reads kubernetes/Calico/<version>/, which does not exist, and
    fails; calico-render refuses the config naming the addon's name line (exit 2)."""
    cluster_file = tmp_path / "cluster.yaml"
    text = cluster_yaml("bare").replace("- name: calico\n", "- name: Calico\n")
    cluster_file.write_text(text, encoding="utf-8")
    (tmp_path / "cluster.json").write_text(json.dumps(to_json(text)))
    (tmp_path / "nodes.json").write_text(json.dumps(to_json(nodes_yaml(3))))
    version_dir = resolve_version(VERSION).path
    go = subprocess.run(
        [str(go_render), "context", str(tmp_path / "cluster.json"), str(tmp_path / "nodes.json"),
         str(version_dir), str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert go.returncode == 1 and "kubernetes/Calico/v3.31.3" in go.stderr
    assert "not exist" in go.stderr
    r = run(capsys, "--config", str(cluster_file), "--nodes", "3")
    line = text.splitlines().index("      - name: Calico") + 1
    message = one_error(r, file=cluster_file, line=line, key="spec.clusterConfig.addons[1].name")
    assert "kubernetes/Calico/v3.31.3/, which does not exist" in message


# --- every addon: what the controller adds per addon, the same code path ---------------

ADDON_CLUSTER = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata:
  name: parity
  namespace: parity-ns
spec:
{endpoint}  clusterConfig:
    cluster:
      kubernetesVersion: v1.28.8
      imageRepo: {{domain: deploy.bocloud.k8s, port: '40443', prefix: openfuyao}}
      httpRepo: {{domain: http.example.com, ip: 10.9.9.9, port: '8080'}}
      networking: {{serviceSubnet: 10.112.0.0/12, dnsDomain: corp.local}}
      ntpServer: ntp.example.com:123
      agentHealthPort: '58080'
    customExtra: {extra}
    addons:
{addons}
"""

#: Each file prints what the controller gives its addon; a key it does not set prints
#: <no value> (or Go's own rendering of the missing value) on both sides alike.
ADDON_TEMPLATES: dict[str, dict[str, str]] = {
    "nodelocaldns": {
        "nodelocaldns.yaml": "data:\n  corefile: |\n    {{ .domain }}:53 bind {{ .localdns }} "
        "{{ .DNSserver }} forward {{ .clusterDNS }} dns {{ .dnsIP }}\n",
    },
    "cluster-api": {
        "001-secrets.yaml": '{{ if eq .manage "true" }}token: {{ b64encode .clusterToken }}\n'
        "nodes:\n{{- range .nodes }}\n  - {{ .hostname }} {{ .ip }} {{ .port }} {{ .username }}"
        " {{ .password }}{{ range .role }} {{ . }}{{ end }}\n{{- end }}\n{{ end }}"
        "ca: {{ .capiCaBundle }}/{{ .bkeCaBundle }}\n",
        "003-manage.yaml": 'manage: {{ .manage }} ca: {{ printf "%v" .capiCaBundle }} '
        "token: {{ .clusterToken }}\n",
    },
    "bocoperator": {
        "boc.yaml": '{{ range $k, $v := . }}{{ $k }}: {{ printf "%q" $v }}\n{{ end }}',
    },
    "fabric": {"fabric.yaml": "exclude: {{ .excludeIps }} mode: {{ .clusterNetworkMode }}\n"},
    "bkeagent": {
        "bkeagent.yaml": 'config: |\n  {{ indent .kubeconfig "  " }}\nimage: {{ .launcherImage }}'
        "\nargs: {{ .clusterName }} {{ .ntpServer }} {{ .agentHealthPort }} {{ .debug }}\n",
    },
    "clusterextra": {
        "agent-command.yaml": "nodes: {{ .nodesIps }} http: {{ .httpRepo }} ns: {{ .namespace }}\n",
    },
    "victoriametrics-controller": {
        "vm.yaml": "single: {{ .useVMSingle }} agents: {{ .vmAgentReplicaCount }} "
        "port: {{ .grafanaNodePort }} own: {{ .vmSelectCpuCount }}\n",
    },
    "coredns": {
        "coredns.yaml": "dns: {{ .dnsIP }} {{ .dnsDomain }} {{ .EnableAntiAffinity }} "
        "repo: {{ .repo }}\n",
        "noexecute-rules.yaml": "summary: {{ $labels.instance }}\n",
    },
}

#: name: (addon to render, version directory, addons lines, customExtra flow map, endpoint)
ADDON_CASES: dict[str, tuple[str, str, str, str, str]] = {
    "nodelocaldns-iptables": (
        "nodelocaldns", "v1.0.0",
        "      - {name: kubeproxy, version: v1.28.8}\n"
        "      - {name: nodelocaldns, version: v1.0.0, param: {localdns: 169.254.20.10}}\n",
        "{}", "",
    ),
    "nodelocaldns-ipvs": (
        "nodelocaldns", "v1.0.0",
        "      - {name: kubeproxy, version: v1.28.8, param: {proxyMode: ipvs}}\n"
        "      - {name: nodelocaldns, version: v1.0.0}\n",
        "{proxyMode: iptables}", "",
    ),
    "nodelocaldns-no-kubeproxy": (
        "nodelocaldns", "v1.0.0", "      - {name: nodelocaldns, version: v1.0.0}\n", "{}", "",
    ),
    "cluster-api-manage": (
        "cluster-api", "v1.0.0",
        "      - {name: cluster-api, version: v1.0.0, param: {manage: 'true'}}\n", "{}", "",
    ),
    "cluster-api": (
        "cluster-api", "v1.0.0",
        "      - {name: cluster-api, version: v1.0.0, param: {manage: 'false'}}\n", "{}", "",
    ),
    "bocoperator": (
        "bocoperator", "v1.0.0",
        "      - {name: bocoperator, version: v1.0.0, param: {a.b: c, own: 'yes'}}\n",
        "{pipelineServer: 10.1.0.2}",
        "  controlPlaneEndpoint: {host: 10.0.0.100, port: 36443}\n",
    ),
    "fabric": (
        "fabric", "v1.0.0",
        "      - {name: fabric, version: v1.0.0, "
        "param: {excludeIps: '10.0.0.1,10.0.0.250-10.0.0.252,10.0.0.5-10.0.0.3'}}\n",
        "{}", "",
    ),
    "bkeagent": ("bkeagent", "latest", "      - {name: coredns, version: v1.0.0}\n", "{}", ""),
    "clusterextra-etcdctl": (
        "clusterextra", "install-etcdctl.sh", "      - {name: coredns, version: v1.0.0}\n",
        "{}", "",
    ),
    "clusterextra-runc": (
        "clusterextra", "update-runc.sh", "      - {name: coredns, version: v1.0.0}\n",
        "{host: 10.1.0.1}", "",
    ),
    "clusterextra-nfsutils": (
        "clusterextra", "install-nfsutils.sh", "      - {name: coredns, version: v1.0.0}\n",
        "{}", "",
    ),
    "clusterextra-downloader": (
        "clusterextra", "file-downloader.sh", "      - {name: coredns, version: v1.0.0}\n",
        "{}", "",
    ),
    "victoriametrics": (
        "victoriametrics-controller", "v1.0.0",
        "      - {name: victoriametrics-controller, version: v1.0.0, "
        "param: {vmSelectCpuCount: '2'}}\n",
        "{}", "",
    ),
    "coredns": (
        "coredns", "v1.0.0",
        "      - {name: coredns, version: v1.0.0, param: {EnableAntiAffinity: 'true'}}\n",
        "{}", "",
    ),
}  # fmt: skip


def addon_nodes_yaml() -> str:
    """A master with etcd, a master/node and two workers, with SSH access."""
    nodes = [
        ("m1", "10.1.0.1", "[master, etcd]"),
        ("m2", "10.1.0.2", "[master/node]"),
        ("w1", "10.1.0.3", "[node]"),
        ("w2", "10.1.0.4", "[node]"),
    ]
    return "".join(
        "---\napiVersion: bke.bocloud.com/v1beta1\nkind: BKENode\n"
        f"metadata: {{name: {n}, namespace: parity-ns, "
        "labels: {cluster.x-k8s.io/cluster-name: parity}}\n"
        f"spec: {{ip: {ip}, role: {roles}, hostname: host-{n}, port: '22', username: root, "
        f"password: 'p&ss<{n}>'}}\n"
        for n, ip, roles in nodes
    )


@pytest.mark.parametrize("case", sorted(ADDON_CASES))
def test_every_addons_context_is_the_controllers(
    go_render: Path, tmp_path: Path, case: str
) -> None:
    """Each addon's files render byte for byte as the controller renders them: its
    special params, the params it builds for the addons it installs itself, the CA
    bundles after the merge (not in the deferred 003-manage.yaml, parsed under a name of
    its own), admission's addon defaults, no Typha keys outside Calico."""
    addon, version, addons, extra, endpoint = ADDON_CASES[case]
    root = tmp_path / "tree"
    vdir = root / "kubernetes" / addon / version
    vdir.mkdir(parents=True)
    for name, text in ADDON_TEMPLATES[addon].items():
        (vdir / name).write_text(text, encoding="utf-8")
    text = ADDON_CLUSTER.format(endpoint=endpoint, extra=extra, addons=addons.rstrip("\n"))
    cluster_file, nodes_file = tmp_path / "cluster.yaml", tmp_path / "nodes.yaml"
    cluster_file.write_text(text, encoding="utf-8")
    nodes_file.write_text(addon_nodes_yaml(), encoding="utf-8")
    (tmp_path / "cluster.json").write_text(json.dumps(to_json(text)))
    (tmp_path / "nodes.json").write_text(json.dumps(to_json(nodes_file.read_text())))
    go_out = tmp_path / "go"
    go_out.mkdir()
    go = subprocess.run(
        [str(go_render), "context", str(tmp_path / "cluster.json"), str(tmp_path / "nodes.json"),
         str(vdir), str(go_out)],
        capture_output=True, check=False, timeout=120,
        env={**os.environ, "BKE_ADDON": addon, "BKE_AS_WRITTEN": "0"},
    )  # fmt: skip
    assert go.returncode == 0, go.stderr.decode()
    request = api.Request.for_addon(
        addon, version, config=cluster_file, nodes_file=nodes_file, root=root
    )
    result = api.render_addon(request)
    assert not result.failed
    ours = result.texts()
    theirs = {p.name: p.read_text(encoding="utf-8") for p in go_out.iterdir()}
    assert ours == theirs and ours
    assert "allowTypha" not in json.dumps(result.contexts.to_dict())
