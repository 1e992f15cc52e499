"""renderer/bke/addons.py: what the controller adds to particular addons' contexts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from renderer.bke import addons
from renderer.bke.cluster import ClusterConfig, Node, load_config
from renderer.errors import InputError

CLUSTER = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata: {{name: c1, namespace: ns1}}
spec:
  controlPlaneEndpoint: {{host: 10.0.0.100, port: 36443}}
  clusterConfig:
    cluster:
      imageRepo: {repo}
      httpRepo: {http}
      networking: {{dnsDomain: corp.local}}
      ntpServer: ntp.example.com
      agentHealthPort: "58080"
      containerRuntime: {{cri: {cri}}}
    customExtra: {extra}
    addons: []
"""

NODES = (
    Node("w1", ("node",), "10.1.0.3", "host-w1", port="22", username="root", password="p"),
    Node("m2", ("master/node",), "10.1.0.2", "host-m2", port="22", username="u", password="q"),
    Node("m1", ("master", "etcd"), "10.1.0.1", "host-m1", port="2222", username="root"),
)


def config(
    tmp_path: Path,
    *,
    repo: str = "{domain: reg.example.com, port: '5000', prefix: mirror}",
    http: str = "{domain: http.example.com, ip: 10.9.9.9, port: '8080'}",
    extra: str = "{}",
    cri: str = "containerd",
) -> ClusterConfig:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER.format(repo=repo, http=http, extra=extra, cri=cri), encoding="utf-8")
    return load_config(path)


def values(found: addons.AddonExtras, part: str = "common") -> dict[str, Any]:
    return {k: v.value for k, v in getattr(found, part).items()}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("iptables", {"DNSserver": "10.96.0.10", "clusterDNS": "__PILLAR__CLUSTER__DNS__"}),
        ("ipvs", {"DNSserver": "", "clusterDNS": "10.96.0.10"}),
        ("", {}),
    ],
)
def test_nodelocaldns_follows_the_proxy_mode(
    tmp_path: Path, mode: str, expected: dict[str, str]
) -> None:
    cfg = config(tmp_path, extra=f"{{proxyMode: '{mode}'}}")
    found = addons.extras(
        "nodelocaldns", "v1", {}, cfg, NODES, {"dnsIP": "10.96.0.10"}, listed=True
    )
    assert values(found) == {"domain": "corp.local", **expected}


def test_cluster_api_manage_gets_the_token_and_every_node(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    found = addons.extras("cluster-api", "v1", {"manage": "true"}, cfg, NODES, {}, listed=True)
    common = values(found)
    assert common["clusterToken"] == addons.PORTAL_TOKEN
    assert found.common["clusterToken"].source == addons.PLACEHOLDER
    assert common["nodes"][2] == {
        "hostname": "host-m1", "ip": "10.1.0.1", "username": "root", "password": "",
        "port": "2222", "role": ["master", "etcd"],
    }  # fmt: skip
    assert values(found, "after") == {
        "capiCaBundle": addons.CA_BUNDLE,
        "bkeCaBundle": addons.CA_BUNDLE,
    }
    unmanaged = addons.extras("cluster-api", "v1", {"manage": "yes"}, cfg, NODES, {}, listed=True)
    assert values(unmanaged) == {} and values(unmanaged, "after")


def test_bocoperator_reads_the_first_master_and_the_named_pipeline_server(tmp_path: Path) -> None:
    cfg = config(tmp_path, extra="{pipelineServer: 10.1.0.2}")
    found = addons.extras(
        "bocoperator", "v1", {"a.b": "c", "own": "x"}, cfg, NODES, {}, listed=True
    )
    common = values(found)
    # Nodes.Master(): role master first, then master/node
    assert (common["masterSshIp"], common["masterSshPort"]) == ("10.1.0.1", "2222")
    assert (common["pipeLineServerIp"], common["pipeLineServerUser"]) == ("10.1.0.2", "u")
    assert common["masterServers"] == (
        '[{"role":["master","etcd"],"ip":"10.1.0.1","port":"2222","username":"root",'
        '"hostname":"host-m1"},{"role":["master/node"],"ip":"10.1.0.2","port":"22",'
        '"username":"u","password":"q","hostname":"host-m2"}]'
    )
    assert (common["dbHost"], common["isLocalDB"], common["bocVersion"]) == (
        "10.0.0.100", "true", "v4.0",
    )  # fmt: skip
    assert common["a.b"] == "c" and "own" not in common  # plain params win per file anyway
    assert found.common["portalClusterToken"].source == addons.PLACEHOLDER


def test_bocoperator_without_a_master_or_with_a_bad_pipeline_server_is_bad_input(
    tmp_path: Path,
) -> None:
    with pytest.raises(InputError, match="needs a master BKENode"):
        addons.extras("bocoperator", "v1", {}, config(tmp_path), NODES[:1], {}, listed=True)
    bad = config(tmp_path, extra="{pipelineServer: not-an-ip}")
    with pytest.raises(InputError) as err:
        addons.extras("bocoperator", "v1", {}, bad, NODES, {}, listed=True)
    assert err.value.key == "spec.clusterConfig.customExtra.pipelineServer"


def test_go_json_escapes_as_encoding_json() -> None:
    assert addons.go_json({"p": "<a&b>\u2028"}) == '{"p":"\\u003ca\\u0026b\\u003e\\u2028"}'


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("10.0.0.1", "10.0.0.1"),
        ("10.0.0.1,10.0.0.3-10.0.0.5", "10.0.0.1,10.0.0.3,10.0.0.4,10.0.0.5"),
        ("10.0.0.5-10.0.0.3", "10.0.0.3,10.0.0.4,10.0.0.5"),  # swapped
        ("10.0.0.7-10.0.0.7", "10.0.0.7"),
        ("::ffff:10.0.0.1", "10.0.0.1"),  # printed as Go prints it
        ("fd00::0001", "fd00::1"),
    ],
)
def test_fabric_exclude_ips_are_listed_address_by_address(raw: str, expected: str) -> None:
    assert addons.exclude_ips(raw) == expected


@pytest.mark.parametrize(
    "raw", ["10.0.0.1,", " 10.0.0.1", "10.0.0.1-x", "1-2-3", "fd00::1-fd00::2"]
)
def test_a_fabric_exclude_ip_the_controller_refuses_is_bad_input(raw: str) -> None:
    with pytest.raises(InputError) as err:
        addons.exclude_ips(raw)
    assert err.value.key == "excludeIps"


def test_a_range_the_controller_walks_around_the_address_space_is_refused() -> None:
    """The controller swaps the ends when any byte of the start is greater than the end's:
    10.0.0.250-10.0.1.2 becomes 10.0.1.2 up to 10.0.0.250, wrapping past 255.255.255.255."""
    with pytest.raises(InputError, match="list 4294967289 addresses"):
        addons.exclude_ips("10.0.0.250-10.0.1.2")


def test_fabric_gets_its_expanded_param(tmp_path: Path) -> None:
    found = addons.extras(
        "fabric",
        "v1",
        {"excludeIps": "10.0.0.1-10.0.0.2"},
        config(tmp_path),
        NODES,
        {},
        listed=True,
    )
    assert values(found, "params") == {"excludeIps": "10.0.0.1,10.0.0.2"}


@pytest.mark.parametrize(
    ("repo", "extra", "image"),
    [
        ("{domain: reg.example.com, port: '5000', prefix: mirror}", "{}",
         "reg.example.com:5000/mirror/bkeagent-launcher:1.0.1"),
        ("{domain: reg.example.com}", "{}", "cr.openfuyao.cn/openfuyao/bkeagent-launcher:1.0.1"),
        ("{}", "{bkeagent-launcher-image: 'my/launcher:2'}", "my/launcher:2"),
    ],
)  # fmt: skip
def test_the_agents_launcher_gets_the_params_the_controller_builds(
    tmp_path: Path, repo: str, extra: str, image: str
) -> None:
    found = addons.extras("bkeagent", "latest", {}, config(tmp_path, repo=repo, extra=extra),
                          NODES, {}, listed=False)  # fmt: skip
    params = values(found, "params")
    assert params["launcherImage"] == image
    assert (params["clusterName"], params["ntpServer"], params["agentHealthPort"]) == (
        "c1", "ntp.example.com", "58080",
    )  # fmt: skip
    assert found.params["kubeconfig"].source == addons.PLACEHOLDER
    listed = addons.extras("bkeagent", "latest", {}, config(tmp_path), NODES, {}, listed=True)
    assert values(listed, "params") == {}  # a BKECluster listing it gives its own params


@pytest.mark.parametrize(
    ("script", "extra", "ips"),
    [
        ("file-downloader.sh", "{}", "10.1.0.3,10.1.0.2,10.1.0.1"),
        ("install-etcdctl.sh", "{}", "10.1.0.1"),
        ("install-helm.sh", "{}", "10.1.0.1,10.1.0.2"),
        ("install-nfsutils.sh", "{pipelineServer: 10.1.0.2}", "10.1.0.2"),
        ("update-runc.sh", "{host: 10.1.0.3}", "10.1.0.2,10.1.0.1"),
        ("kernel.sh", "{}", "10.1.0.3,10.1.0.2,10.1.0.1"),
    ],
)
def test_a_node_script_runs_where_the_controller_runs_it(
    tmp_path: Path, script: str, extra: str, ips: str
) -> None:
    found = addons.extras("clusterextra", script, {}, config(tmp_path, extra=extra), NODES, {},
                          listed=False)  # fmt: skip
    params = values(found, "params")
    assert params["nodesIps"] == ips
    assert ("httpRepo" in params) == (script != "file-downloader.sh")


def test_a_script_the_controller_would_skip_renders_on_the_first_master_with_a_note(
    tmp_path: Path,
) -> None:
    found = addons.extras("clusterextra", "install-nfsutils.sh", {}, config(tmp_path), NODES, {},
                          listed=False)  # fmt: skip
    assert values(found, "params")["nodesIps"] == "10.1.0.1"
    assert "does not run install-nfsutils.sh on this cluster" in found.notes[0]
    runc = addons.extras("clusterextra", "update-runc.sh", {}, config(tmp_path), NODES, {},
                         listed=False)  # fmt: skip
    assert "does not run update-runc.sh with containerd" in runc.notes[-1]


@pytest.mark.parametrize(
    ("http", "url"),
    [
        ("{domain: http.example.com, ip: 10.9.9.9, port: '8080'}", "http://http.example.com:8080/files"),
        ("{ip: 10.9.9.9, port: '8080', prefix: repo}", "http://10.9.9.9:8080/repo"),
        ("{ip: 'fd00::9', port: '80'}", "http://[fd00::9]:80/files"),
        ("{domain: h}", "http://h/files"),
        ("{port: '80'}", "http://:80/files"),
        ("{}", "http://files"),
    ],
)  # fmt: skip
def test_the_scripts_download_from_the_http_repository(tmp_path: Path, http: str, url: str) -> None:
    assert addons.http_repo_base(config(tmp_path, http=http)) == url


def test_any_other_addon_gets_nothing_more(tmp_path: Path) -> None:
    assert addons.extras("coredns", "v1", {"x": "y"}, config(tmp_path), NODES, {}, listed=True) == (
        addons.AddonExtras()
    )


def test_the_keys_the_controller_sets_per_addon_say_when() -> None:
    assert addons.supplied_keys("cluster-api", "v1", listed=True)["nodes"].startswith("when")
    assert addons.supplied_keys("cluster-api", "v1", listed=True)["capiCaBundle"] == ""
    assert addons.supplied_keys("clusterextra", "file-downloader.sh", listed=False) == {
        "nodesIps": ""
    }
    assert addons.supplied_keys("clusterextra", "kernel.sh", listed=True) == {}
    assert addons.supplied_keys("coredns", "v1", listed=True) == {}


def test_a_cluster_api_version_without_the_manage_file_the_controller_reads_is_noted() -> None:
    assert addons.layout_notes("cluster-api", ["002-capi.yaml", "003-manage.yaml"]) == ()
    (note,) = addons.layout_notes("cluster-api", ["003-bke.yaml", "004-manage.yaml"])
    assert "does not have; it has 004-manage.yaml, which a create applies" in note
    assert "that phase fails" in addons.layout_notes("cluster-api", ["a.yaml"])[0]
    assert addons.layout_notes("coredns", []) == ()
