"""BKE's admission defaults: what the controller's BKECluster holds that the file did not.

The controller never reads a BKECluster as written: BKE's mutating webhook
(cluster-api-provider-bke, ``webhooks/capbke/bkecluster.go``) defaults it first, with the
rules of ``common/cluster/initialize/defaults.go``. This module applies the defaults that
reach a render context, from the file alone (docs/admission-defaults.md lists them and
the ones left out: those read from the management cluster's ``bke-config`` ConfigMap).

Pure: a config's data in, the defaulted data and every path it filled out. Whether the
defaults apply is a context switch (``--no-admission-defaults`` renders the file as
written), so every command that reads ``--config`` honours it without new arguments.
"""

from __future__ import annotations

import contextvars
import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

#: The origin explain-context gives a value the webhook filled in.
ADMISSION_DEFAULT = "admission-default"
#: ``SetDefaultImageRepo``: a repo without a domain is BKE's own registry, and only for
#: that domain a missing port and prefix are filled.
DEFAULT_IMAGE_DOMAIN = "deploy.bocloud.k8s"
DEFAULT_IMAGE_PORT = "40443"
DEFAULT_IMAGE_PREFIX = "kubernetes"
#: ``SetDefaultHttpRepo``.
DEFAULT_HTTP_DOMAIN = "http.bocloud.k8s"
DEFAULT_HTTP_PORT = "40080"
#: ``SetDefaultClusterNetworking``.
DEFAULT_NETWORKING = (
    ("dnsDomain", "cluster.local"),
    ("serviceSubnet", "10.96.0.0/16"),
    ("podSubnet", "10.250.0.0/16"),
)
#: ``SetDefault{Kubernetes,Etcd,Containerd}Version``: the provider's version manifest
#: (``common/cluster/initialize/versions/versions.yaml``).
DEFAULT_VERSIONS = (
    ("kubernetesVersion", "v1.34.3-of.1"),
    ("etcdVersion", "v3.6.7-of.1"),
    ("containerdVersion", "v2.1.1"),
)
KUBELET_ROOT_VOLUME = "kubelet-root-dir"
DEFAULT_KUBELET_ROOT = "/var/lib/kubelet"
#: ``SetDefaultContainerRuntime``: the runtime and, per runtime, its data root.
DEFAULT_CRI = "containerd"
DEFAULT_DATA_ROOT = {"containerd": "/var/lib/containerd", "docker": "/var/lib/docker"}
#: The webhook's control plane endpoint: the first master on the API server's port, or
#: a set host on the load balancer's port.
DEFAULT_API_PORT = 6443
DEFAULT_LB_PORT = 36443
#: ``setKubeproxyDefaults``: a kubeproxy addon writes its ``proxyMode`` param (this
#: when it has none) into ``customExtra.proxyMode``, which nodelocaldns's context reads.
DEFAULT_PROXY_MODE = "iptables"
#: ``setVictoriaMetricsControllerDefaultConfig``: the params a victoriametrics-controller
#: addon gets when it does not set them.
VICTORIAMETRICS_PARAMS = (
    ("useVMSingle", "false"),
    ("vmSingleStorageSize", "50Gi"),
    ("vmAgentAllowStatefulSet", "true"),
    ("vmAgentCpuCount", "4"),
    ("vmAgentMemorySize", "8Gi"),
    ("vmAgentStorageSize", "60Gi"),
    ("vmAgentReplicaCount", "2"),
    ("vmAgentShareCount", "2"),
    ("vmAgentScrapeInterval", "20s"),
    ("vmSelectCpuCount", "12"),
    ("vmSelectMemorySize", "24Gi"),
    ("vmSelectStorageSize", "35Gi"),
    ("vmSelectReplicaCount", "2"),
    ("vmStorageCPUCount", "5"),
    ("vmStorageMemorySize", "32Gi"),
    ("vmStorageStorageSize", "720Gi"),
    ("vmStorageReplicaCount", "10"),
    ("vmInsertReplicaCount", "6"),
    ("vmInsertCpuCount", "4"),
    ("vmInsertMemorySize", "8Gi"),
    ("vmAlertReplicaCount", "2"),
    ("vmAlertCpuCount", "4"),
    ("vmAlertMemorySize", "16Gi"),
    ("vmAlertManagerReplicaCount", "2"),
    ("vmAlertManagerCpuCount", "4"),
    ("vmAlertManagerMemorySize", "16Gi"),
    ("vmClusterRetentionPeriod", "15d"),
    ("vmClusterReplicationFactor", "2"),
    ("grafanaNodePort", "30010"),
    ("kubeStateMetricsAutoSharding", "true"),
    ("kubeStateMetricsReplicaCount", "3"),
    ("kubeStateMetricsCpuCount", "4"),
    ("kubeStateMetricsMemorySize", "12Gi"),
)

_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("admission", default=True)


def enabled() -> bool:
    """Whether configs are read as the controller reads them (after admission)."""
    return _ENABLED.get()


def disable() -> Callable[[], None]:
    """Read every config as written, in this context (``--no-admission-defaults``),
    until the function returned is called."""
    token = _ENABLED.set(False)
    return lambda: _ENABLED.reset(token)


@contextmanager
def as_written() -> Iterator[None]:
    """Within the block, configs are read as written."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)


class Admitted(NamedTuple):  # far cheaper to define than a frozen dataclass
    """The install config and spec after admission, and each path the webhook filled
    (key path as the context's origins name them, e.g. ``spec.clusterConfig.cluster.
    imageRepo.domain``) with the value it put there."""

    install: dict[str, Any]
    spec: dict[str, Any]
    filled: dict[str, Any]


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _section(parent: dict[str, Any], key: str) -> dict[str, Any]:
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def admit(
    install: Mapping[str, Any],
    spec: Mapping[str, Any],
    *,
    where: str,
    master_ips: Sequence[str] = (),
) -> Admitted:
    """The webhook's defaults applied to ``install`` (``cluster``/``addons``/...) at
    ``where`` and to ``spec`` (the BKECluster's, for ``controlPlaneEndpoint``);
    ``master_ips`` are the cluster's master BKENodes in the API's order (by name)."""
    install_out = copy.deepcopy(dict(install))
    spec_out = copy.deepcopy(dict(spec))
    filled: dict[str, Any] = {}
    cluster = _section(install_out, "cluster")
    at = f"{where}.cluster"

    def fill(section: dict[str, Any], key: str, value: Any, path: str) -> None:
        section[key] = value
        filled[path] = value

    for key, value in DEFAULT_VERSIONS:
        if not _text(cluster.get(key)):
            fill(cluster, key, value, f"{at}.{key}")
    http = _section(cluster, "httpRepo")
    if not _text(http.get("domain")):
        fill(http, "domain", DEFAULT_HTTP_DOMAIN, f"{at}.httpRepo.domain")
    if not _text(http.get("port")) and _text(http.get("domain")) == DEFAULT_HTTP_DOMAIN:
        fill(http, "port", DEFAULT_HTTP_PORT, f"{at}.httpRepo.port")
    repo = _section(cluster, "imageRepo")
    if not _text(repo.get("domain")):
        fill(repo, "domain", DEFAULT_IMAGE_DOMAIN, f"{at}.imageRepo.domain")
    if _text(repo.get("domain")) == DEFAULT_IMAGE_DOMAIN:
        if not _text(repo.get("port")):
            fill(repo, "port", DEFAULT_IMAGE_PORT, f"{at}.imageRepo.port")
        if not _text(repo.get("prefix")):
            fill(repo, "prefix", DEFAULT_IMAGE_PREFIX, f"{at}.imageRepo.prefix")
    networking = _section(cluster, "networking")
    for key, value in DEFAULT_NETWORKING:
        if not _text(networking.get(key)):
            fill(networking, key, value, f"{at}.networking.{key}")
    kubelet = _section(cluster, "kubelet")
    volumes = kubelet.get("extraVolumes")
    if not isinstance(volumes, list):
        volumes = kubelet["extraVolumes"] = []
    if not any(isinstance(v, dict) and v.get("name") == KUBELET_ROOT_VOLUME for v in volumes):
        volumes.append({"name": KUBELET_ROOT_VOLUME, "hostPath": DEFAULT_KUBELET_ROOT})
        filled[f"{at}.kubelet.extraVolumes[{len(volumes) - 1}].hostPath"] = DEFAULT_KUBELET_ROOT
    runtime = _section(cluster, "containerRuntime")
    if not _text(runtime.get("cri")):
        fill(runtime, "cri", DEFAULT_CRI, f"{at}.containerRuntime.cri")
    params = _section(runtime, "param")
    root = DEFAULT_DATA_ROOT.get(_text(runtime.get("cri")))
    if root is not None and "data-root" not in params:
        fill(params, "data-root", root, f"{at}.containerRuntime.param.data-root")
    _addon_defaults(install_out, filled, where, master_ips)
    _endpoint(spec_out, filled, master_ips)
    return Admitted(install_out, spec_out, filled)


def _addon_defaults(
    install: dict[str, Any], filled: dict[str, Any], where: str, master_ips: Sequence[str]
) -> None:
    """``setAddonDefaults``, by addon name: kubeproxy's proxy mode into ``customExtra``
    (whatever it held), victoriametrics-controller's missing params, and for bocoperator
    the pipeline server (the first master) and its image cleaning (off)."""
    addons = install.get("addons")
    if not isinstance(addons, list) or not addons:
        return
    extra = install.get("customExtra")
    if not isinstance(extra, dict):
        extra = install["customExtra"] = {}
    at = f"{where}.customExtra"
    for i, addon in enumerate(addons):
        if not isinstance(addon, dict):
            continue
        raw = addon.get("param")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        name = addon.get("name")
        if name == "kubeproxy":
            mode = _text(params.get("proxyMode")) or DEFAULT_PROXY_MODE
            extra["proxyMode"] = filled[f"{at}.proxyMode"] = mode
        elif name == "victoriametrics-controller":
            own = addon["param"] = dict(params)
            for key, value in VICTORIAMETRICS_PARAMS:
                if key not in own:
                    own[key] = filled[f"{where}.addons[{i}].param.{key}"] = value
        elif name == "bocoperator":
            if master_ips and "pipelineServer" not in extra:
                extra["pipelineServer"] = filled[f"{at}.pipelineServer"] = master_ips[0]
            if "pipelineServerEnableCleanImages" not in extra:
                key = "pipelineServerEnableCleanImages"
                extra[key] = filled[f"{at}.{key}"] = "false"


def _endpoint(spec: dict[str, Any], filled: dict[str, Any], master_ips: Sequence[str]) -> None:
    endpoint = _section(spec, "controlPlaneEndpoint")
    host, port = _text(endpoint.get("host")), endpoint.get("port") or 0
    if master_ips and not host and not port:
        endpoint["host"] = filled["spec.controlPlaneEndpoint.host"] = master_ips[0]
        endpoint["port"] = filled["spec.controlPlaneEndpoint.port"] = DEFAULT_API_PORT
    elif host and not port:
        endpoint["port"] = filled["spec.controlPlaneEndpoint.port"] = DEFAULT_LB_PORT
