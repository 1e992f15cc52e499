"""BKE's admission defaults: what the webhook fills into a BKECluster before the
controller reads it, each filled path reported, nothing the file set overwritten."""

from __future__ import annotations

from typing import Any

from renderer.bke import admission
from renderer.bke.admission import (
    DEFAULT_API_PORT,
    DEFAULT_LB_PORT,
    admit,
)

AT = "spec.clusterConfig"


def test_an_empty_config_gets_every_default_and_each_filled_path() -> None:
    got = admit({}, {}, where=AT)
    cluster = got.install["cluster"]
    assert cluster["imageRepo"] == {
        "domain": "deploy.bocloud.k8s",
        "port": "40443",
        "prefix": "kubernetes",
    }
    assert cluster["httpRepo"] == {"domain": "http.bocloud.k8s", "port": "40080"}
    assert cluster["networking"] == {
        "dnsDomain": "cluster.local",
        "serviceSubnet": "10.96.0.0/16",
        "podSubnet": "10.250.0.0/16",
    }
    assert cluster["kubernetesVersion"] == "v1.34.3-of.1"
    assert cluster["containerRuntime"] == {
        "cri": "containerd",
        "param": {"data-root": "/var/lib/containerd"},
    }
    assert cluster["kubelet"]["extraVolumes"] == [
        {"name": "kubelet-root-dir", "hostPath": "/var/lib/kubelet"}
    ]
    assert got.filled[f"{AT}.cluster.imageRepo.domain"] == "deploy.bocloud.k8s"
    assert got.filled[f"{AT}.cluster.networking.podSubnet"] == "10.250.0.0/16"
    assert got.filled[f"{AT}.cluster.kubelet.extraVolumes[0].hostPath"] == "/var/lib/kubelet"
    assert got.filled[f"{AT}.cluster.containerRuntime.param.data-root"] == "/var/lib/containerd"
    assert got.spec == {"controlPlaneEndpoint": {}}  # no masters, no host: nothing to fill


def test_values_the_file_sets_are_kept_and_not_reported_as_filled() -> None:
    install = {
        "cluster": {
            "imageRepo": {"domain": "registry.example.com", "prefix": ""},
            "networking": {"podSubnet": "192.168.0.0/16"},
            "containerRuntime": {"cri": "docker"},
            "kubelet": {"extraVolumes": [{"name": "kubelet-root-dir", "hostPath": "/data/k"}]},
        }
    }
    got = admit(install, {}, where=AT)
    cluster = got.install["cluster"]
    # a foreign registry gets neither BKE's port nor its prefix
    assert cluster["imageRepo"] == {"domain": "registry.example.com", "prefix": ""}
    assert cluster["networking"]["podSubnet"] == "192.168.0.0/16"
    assert cluster["containerRuntime"] == {
        "cri": "docker",
        "param": {"data-root": "/var/lib/docker"},
    }
    assert cluster["kubelet"]["extraVolumes"] == [
        {"name": "kubelet-root-dir", "hostPath": "/data/k"}
    ]
    for path in (
        "imageRepo.domain",
        "imageRepo.port",
        "imageRepo.prefix",
        "networking.podSubnet",
        "containerRuntime.cri",
    ):
        assert f"{AT}.cluster.{path}" not in got.filled
    assert not any("extraVolumes" in path for path in got.filled)


def test_the_input_is_not_mutated() -> None:
    install: dict[str, Any] = {"cluster": {"imageRepo": {}}}
    spec: dict[str, Any] = {}
    admit(install, spec, where=AT, master_ips=["10.0.0.1"])
    assert install == {"cluster": {"imageRepo": {}}} and spec == {}


def test_the_endpoint_is_the_first_master_on_the_api_port() -> None:
    got = admit({}, {}, where=AT, master_ips=["10.0.0.2", "10.0.0.1"])
    assert got.spec["controlPlaneEndpoint"] == {"host": "10.0.0.2", "port": DEFAULT_API_PORT}
    assert got.filled["spec.controlPlaneEndpoint.host"] == "10.0.0.2"
    assert got.filled["spec.controlPlaneEndpoint.port"] == DEFAULT_API_PORT


def test_a_set_host_without_port_gets_the_load_balancer_port() -> None:
    spec = {"controlPlaneEndpoint": {"host": "lb.example.com"}}
    got = admit({}, spec, where=AT, master_ips=["10.0.0.1"])
    assert got.spec["controlPlaneEndpoint"] == {"host": "lb.example.com", "port": DEFAULT_LB_PORT}
    assert "spec.controlPlaneEndpoint.host" not in got.filled
    assert got.filled["spec.controlPlaneEndpoint.port"] == DEFAULT_LB_PORT


def test_a_full_endpoint_is_kept() -> None:
    spec = {"controlPlaneEndpoint": {"host": "lb.example.com", "port": 8443}}
    got = admit({}, spec, where=AT, master_ips=["10.0.0.1"])
    assert got.spec["controlPlaneEndpoint"] == {"host": "lb.example.com", "port": 8443}
    assert not any(path.startswith("spec.controlPlaneEndpoint") for path in got.filled)


def test_disable_and_as_written_switch_admission_off_until_restored() -> None:
    assert admission.enabled()
    restore = admission.disable()
    assert not admission.enabled()
    restore()
    assert admission.enabled()
    with admission.as_written():
        assert not admission.enabled()
    assert admission.enabled()


def test_a_kubeproxy_addon_writes_its_proxy_mode_into_custom_extra() -> None:
    """Whatever customExtra held: nodelocaldns's context reads it from there."""
    listed = {"addons": [{"name": "kubeproxy"}], "customExtra": {"proxyMode": "ipvs"}}
    got = admit(listed, {}, where=AT)
    assert got.install["customExtra"]["proxyMode"] == "iptables"
    assert got.filled[f"{AT}.customExtra.proxyMode"] == "iptables"
    own = admit({"addons": [{"name": "kubeproxy", "param": {"proxyMode": "ipvs"}}]}, {}, where=AT)
    assert own.install["customExtra"] == {"proxyMode": "ipvs"}
    assert "customExtra" not in admit({"addons": []}, {}, where=AT).install


def test_victoriametrics_gets_the_params_it_does_not_set() -> None:
    install: dict[str, Any]
    install = {"addons": [{"name": "x"}, {"name": "victoriametrics-controller",
                                         "param": {"useVMSingle": "true"}}]}  # fmt: skip
    got = admit(install, {}, where=AT)
    params = got.install["addons"][1]["param"]
    assert len(params) == len(admission.VICTORIAMETRICS_PARAMS)
    assert (params["useVMSingle"], params["grafanaNodePort"]) == ("true", "30010")
    assert got.filled[f"{AT}.addons[1].param.vmAgentReplicaCount"] == "2"
    assert f"{AT}.addons[1].param.useVMSingle" not in got.filled
    assert install["addons"][1]["param"] == {"useVMSingle": "true"}  # not mutated


def test_bocoperator_gets_the_first_master_as_its_pipeline_server() -> None:
    got = admit({"addons": [{"name": "bocoperator"}]}, {}, where=AT, master_ips=["10.0.0.1"])
    assert got.install["customExtra"] == {
        "pipelineServer": "10.0.0.1",
        "pipelineServerEnableCleanImages": "false",
    }
    kept = admit(
        {"addons": [{"name": "bocoperator"}], "customExtra": {"pipelineServer": "10.0.0.9"}},
        {},
        where=AT,
    )
    assert kept.install["customExtra"]["pipelineServer"] == "10.0.0.9"
