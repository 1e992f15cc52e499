"""What BKE's controller adds to the render context of particular addons.

The common parameters and the per-file rule (:mod:`renderer.bke.context`) hold for
every addon of bke-manifests, through one code path of the cluster-api provider
(``pkg/kube/addon.go``). On top of them the controller does, by addon name:

- **special addons** (``enhanceCommonParamForSpecialAddons``): ``nodelocaldns`` gets
  ``domain`` and, by ``customExtra.proxyMode``, ``DNSserver`` and ``clusterDNS``;
  ``cluster-api`` with param ``manage: "true"`` gets ``clusterToken`` and ``nodes``;
  ``bocoperator`` its master and pipeline-server params and ``portalClusterToken``;
  ``fabric`` has its ``excludeIps`` param expanded (ranges listed address by address).
- **cluster-api's CA bundles**: ``capiCaBundle`` and ``bkeCaBundle`` set in every file's
  map after the merge (a create leaves out ``003-manage.yaml``, applied later without
  them, see :func:`renderer.manifests.tree.template_name`).
- **addons it installs itself**, with params it builds: ``bkeagent`` (the agent's
  launcher, version ``latest``) and ``clusterextra`` (one node script per version
  directory, named after the script).

Values the controller reads from a live cluster (a portal token minted on the target
cluster, the webhook CA bundles it ensures there, the management cluster's kubeconfig)
cannot come from a file: they are placeholders, origin :data:`PLACEHOLDER`, and
explain-context says so. What is read from a BKECluster is read after admission
(:mod:`renderer.bke.admission`).

Pure: data in, data out.
"""

from __future__ import annotations

import base64
import ipaddress
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.bke.addresses import go_string, image_repo_address
from renderer.errors import InputError
from renderer.manifests.tree import CLUSTER_API, CLUSTER_API_MANAGE

if TYPE_CHECKING:
    from renderer.bke.cluster import ClusterConfig, Node

#: Origins of the values this module adds (see :data:`renderer.bke.context.SOURCES`).
CONTROLLER_ADDON = "controller-addon"
PLACEHOLDER = "live-placeholder"

NODELOCALDNS = "nodelocaldns"
BOCOPERATOR = "bocoperator"
FABRIC = "fabric"
BKEAGENT = "bkeagent"
CLUSTEREXTRA = "clusterextra"
#: Addons the controller installs itself, with params it builds, whether or not a
#: BKECluster lists them.
CONTROLLER_INSTALLED = (BKEAGENT, CLUSTEREXTRA)

#: What stands for a value the controller reads from a live cluster. Each is valid
#: where the templates put it (base64 for a caBundle, a kubeconfig's YAML) and says
#: what it stands for.
PORTAL_TOKEN = "placeholder-portal-token-minted-on-the-target-cluster"
CA_BUNDLE = base64.b64encode(b"placeholder: the webhook CA bundle the controller ensures").decode()
KUBECONFIG = (
    "apiVersion: v1\n"
    "kind: Config\n"
    "# placeholder: the management cluster's local kubeconfig (a Secret the controller reads)\n"
    "clusters: []\n"
    "contexts: []\n"
    "users: []\n"
)
PLACEHOLDERS: Mapping[str, str] = {
    "portalClusterToken": PORTAL_TOKEN,
    "clusterToken": PORTAL_TOKEN,
    "capiCaBundle": CA_BUNDLE,
    "bkeCaBundle": CA_BUNDLE,
    "kubeconfig": KUBECONFIG,
}

#: nodelocaldns: ``clusterDNS`` under iptables, where node-local-dns finds the cluster's
#: DNS by itself.
PILLAR_CLUSTER_DNS = "__PILLAR__CLUSTER__DNS__"
#: bocoperator's constants (``getBocDefaultParam``).
BOC_CONSTANTS = (("isLocalDB", "true"), ("bocVersion", "v4.0"))
#: The launcher image the controller pushes the agent with, and its default registry.
LAUNCHER_IMAGE = ("bkeagent-launcher", "1.0.1")
DEFAULT_FUYAO_REPO = "cr.openfuyao.cn/openfuyao"
#: clusterextra: the scripts every cluster runs (``commonEnvExtraExecScripts``) get only
#: ``nodesIps``; the others also ``httpRepo``.
COMMON_SCRIPTS = ("file-downloader.sh", "package-downloader.sh")
#: Scripts run on the pipeline server alone (``customExtra.pipelineServer``).
PIPELINE_SCRIPTS = ("install-nfsutils.sh", "clean-docker-images.py")
#: The most addresses an ``excludeIps`` range may list before the render refuses it
#: (the controller's range walk is unbounded: a reversed range wraps around 2^32).
MAX_EXCLUDED = 65536


class Value(NamedTuple):
    """A value the controller sets and where it comes from (as :class:`~renderer.bke.
    context.Entry`, which :mod:`renderer.bke.context` builds from it)."""

    value: Any
    source: str
    detail: str


@dataclass(frozen=True, slots=True)
class AddonExtras:
    """What the controller adds for one addon: ``common`` keys set into the common
    parameters (they win over the common values, lose to the addon's params),
    ``after`` keys set in every file applied with the addon after the merge (they win
    over everything but ``repo``), ``params`` addon params the controller sets itself,
    replacing the config's of the same key (an addon it installs itself, fabric's
    expanded ``excludeIps``), ``notes`` what a reader should know (a placeholder used, a
    script the controller would skip)."""

    common: Mapping[str, Value] = field(default_factory=dict)
    after: Mapping[str, Value] = field(default_factory=dict)
    params: Mapping[str, Value] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def _placeholder(key: str, what: str) -> Value:
    return Value(PLACEHOLDERS[key], PLACEHOLDER, what)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _masters(nodes: Sequence[Node]) -> list[Node]:
    """``Nodes.Master()``: role master, then role master/node, each in the nodes' order."""
    return [n for n in nodes if "master" in n.roles] + [
        n for n in nodes if "master/node" in n.roles
    ]


def extras(
    name: str,
    version: str,
    params: Mapping[str, str],
    config: ClusterConfig,
    nodes: Sequence[Node],
    common: Mapping[str, Any],
    *,
    listed: bool,
) -> AddonExtras:
    """What the controller adds for addon ``name`` at ``version``, whose params are
    ``params`` (``listed``: the BKECluster lists it; else the controller installs it
    itself, or nobody does), for ``config`` and its BKENodes ``nodes``; ``common`` are
    the common parameters' values (``dnsIP``), read, not changed."""
    if name == NODELOCALDNS:
        return AddonExtras(common=_nodelocaldns(config, common))
    if name == CLUSTER_API:
        return _cluster_api(params, nodes, config)
    if name == BOCOPERATOR:
        return AddonExtras(common=_bocoperator(params, config, nodes))
    if name == FABRIC and params.get("excludeIps"):
        expanded = exclude_ips(params["excludeIps"])
        detail = "the addon's param excludeIps, its ranges listed address by address"
        return AddonExtras(params={"excludeIps": Value(expanded, CONTROLLER_ADDON, detail)})
    if not listed and name == BKEAGENT:
        return _bkeagent(config)
    if not listed and name == CLUSTEREXTRA:
        return _clusterextra(version, config, nodes)
    return AddonExtras()


def _nodelocaldns(config: ClusterConfig, common: Mapping[str, Any]) -> dict[str, Value]:
    """``domain`` is the networking's dnsDomain as the BKECluster holds it (not the
    common default); ``DNSserver``/``clusterDNS`` follow ``customExtra.proxyMode``, which
    admission sets from the kubeproxy addon; any other mode sets neither."""
    at = config.config_path
    cluster = _map(config.install.get("cluster"))
    out = {
        "domain": Value(
            go_string(_map(cluster.get("networking")).get("dnsDomain")),
            CONTROLLER_ADDON,
            f"{at}.cluster.networking.dnsDomain",
        )
    }
    mode = go_string(_map(config.install.get("customExtra")).get("proxyMode"))
    why = f"{at}.customExtra.proxyMode {mode}"
    if mode == "iptables":
        out["DNSserver"] = Value(common.get("dnsIP", ""), CONTROLLER_ADDON, f"dnsIP ({why})")
        out["clusterDNS"] = Value(PILLAR_CLUSTER_DNS, CONTROLLER_ADDON, why)
    elif mode == "ipvs":
        out["DNSserver"] = Value("", CONTROLLER_ADDON, why)
        out["clusterDNS"] = Value(common.get("dnsIP", ""), CONTROLLER_ADDON, f"dnsIP ({why})")
    return out


def _cluster_api(
    params: Mapping[str, str], nodes: Sequence[Node], config: ClusterConfig
) -> AddonExtras:
    """With ``manage: "true"``: the portal token and every BKENode as a map; in every
    file applied with the addon: the webhook CA bundles the controller ensures on the
    target cluster."""
    common: dict[str, Value] = {}
    notes = [
        "capiCaBundle and bkeCaBundle are placeholders: the controller reads them from "
        "the webhook secrets it ensures on the target cluster"
    ]
    if params.get("manage") == "true":
        common["clusterToken"] = _placeholder(
            "clusterToken", "a token the controller mints on the target cluster"
        )
        common["nodes"] = Value(
            [manage_node(n) for n in nodes],
            "bkenodes",
            "BKENodes (hostname, ip, username, password, port, role)",
        )
        notes.append("clusterToken is a placeholder: the controller mints it on the target cluster")
    after = {
        key: _placeholder(key, "the webhook CA bundle the controller ensures on the target cluster")
        for key in ("capiCaBundle", "bkeCaBundle")
    }
    return AddonExtras(common=common, after=after, notes=tuple(notes))


def manage_node(node: Node) -> dict[str, Any]:
    """A BKENode as cluster-api's manage template reads it
    (``convertNodesToManageTemplateData``)."""
    return {
        "hostname": node.hostname,
        "ip": node.ip,
        "username": node.username,
        "password": node.password,
        "port": node.port,
        "role": list(node.roles),
    }


def _node_json(node: Node) -> dict[str, Any]:
    """A BKENode's spec as the controller marshals it (``omitempty`` fields left out)."""
    out: dict[str, Any] = {}
    if node.roles:
        out["role"] = list(node.roles)
    out["ip"] = node.ip
    for key, value in (
        ("port", node.port),
        ("username", node.username),
        ("password", node.password),
        ("hostname", node.hostname),
    ):
        if value:
            out[key] = value
    return out


def go_json(value: Any) -> str:
    """``encoding/json``'s compact form: HTML characters escaped as Go escapes them."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escape)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _bocoperator(
    params: Mapping[str, str], config: ClusterConfig, nodes: Sequence[Node]
) -> dict[str, Value]:
    """The first master's SSH access, the pipeline server (``customExtra.pipelineServer``
    when it names a master, else the first master), constants, every master as JSON, the
    control plane host as the database's; then the portal token."""
    masters = _masters(nodes)
    if not masters:
        raise InputError(
            "the bocoperator addon needs a master BKENode: the controller reads the first "
            "master's address (and fails without one)",
            file=config.file,
            key=f"{config.config_path}.addons",
        )
    first = masters[0]
    out: dict[str, Value] = {}
    role = "the first master BKENode"
    for key, attr in (("Ip", "ip"), ("Port", "port"), ("User", "username"), ("Pwd", "password")):
        out[f"masterSsh{key}"] = Value(getattr(first, attr), "bkenodes", f"{role} ({attr})")
    server, why = first, role
    extra = _map(config.install.get("customExtra"))
    wanted = go_string(extra.get("pipelineServer"))
    if wanted:
        try:
            ipaddress.ip_address(wanted)
        except ValueError:
            raise InputError(
                f"invalid pipelineServer IP {wanted!r}: the controller fails the "
                "bocoperator install",
                file=config.file,
                key=f"{config.config_path}.customExtra.pipelineServer",
            ) from None
        chosen = [n for n in masters if n.ip == wanted]
        if len(chosen) == 1:
            server, why = chosen[0], f"the master named by customExtra.pipelineServer {wanted}"
    for key, attr in (
        ("Ip", "ip"),
        ("Port", "port"),
        ("User", "username"),
        ("Pwd", "password"),
        ("Hostname", "hostname"),
    ):
        out[f"pipeLineServer{key}"] = Value(getattr(server, attr), "bkenodes", f"{why} ({attr})")
    for key, value in BOC_CONSTANTS:
        out[key] = Value(value, CONTROLLER_ADDON, "bocoperator's default")
    out["masterServers"] = Value(
        go_json([_node_json(n) for n in masters]), "bkenodes", "master BKENodes as JSON"
    )
    host = go_string(_map(_map(config.spec).get("controlPlaneEndpoint")).get("host"))
    out["dbHost"] = Value(host, "bkecluster", "spec.controlPlaneEndpoint.host")
    for key, value in params.items():
        # the controller merges the addon's params in whole: a dotted key also reaches
        # every file as a key of that name (plain keys win per file anyway)
        if "." in key:
            out[key] = Value(value, "addon-param", f"the addon's param {key}, kept whole")
    out["portalClusterToken"] = _placeholder(
        "portalClusterToken", "a token the controller mints on the target cluster"
    )
    return out


def exclude_ips(raw: str) -> str:
    """fabric's ``excludeIps`` as the controller rewrites it: each comma-separated item an
    address (printed as Go prints it) or an IPv4 range ``a-b`` listed address by address;
    anything else fails the install, so it is bad input here."""
    out: list[str] = []
    for item in raw.split(","):
        if "-" in item:
            out.extend(_ip_range(item))
            continue
        try:
            address = ipaddress.ip_address(item)
        except ValueError:
            raise InputError(
                f"fabric param excludeIps contains an invalid ip {item!r}: the controller "
                "fails the install",
                key="excludeIps",
            ) from None
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        out.append(str(mapped or address))  # Go prints an IPv4-mapped address as IPv4
    return ",".join(out)


def _ip_range(item: str) -> list[str]:
    """An IPv4 range as the controller walks it: the ends swapped when any byte of the
    start is greater than the end's at the same place (its comparison, not numeric
    order), then every address from start up to end, wrapping past 255.255.255.255."""
    parts = item.split("-")
    bad = InputError(
        f"fabric param excludeIps contains an invalid ip range {item!r}: the controller "
        "fails the install",
        key="excludeIps",
    )
    if len(parts) != 2:
        raise bad
    try:
        start, end = (ipaddress.IPv4Address(p) for p in parts)
    except ValueError:
        raise bad from None
    if start != end and any(a > b for a, b in zip(start.packed, end.packed, strict=True)):
        start, end = end, start
    count = (int(end) - int(start)) % 2**32 + 1
    if count > MAX_EXCLUDED:
        raise InputError(
            f"fabric param excludeIps range {item!r} makes the controller list {count} "
            f"addresses (more than {MAX_EXCLUDED}); list fewer",
            key="excludeIps",
        )
    return [str(ipaddress.IPv4Address((int(start) + i) % 2**32)) for i in range(count)]


def _bkeagent(config: ClusterConfig) -> AddonExtras:
    """The launcher the controller pushes the agent with (``createLauncherAddon``)."""
    cluster = _map(config.install.get("cluster"))
    extra = _map(config.install.get("customExtra"))
    at = config.config_path
    repo = _map(cluster.get("imageRepo"))
    prefix = go_string(repo.get("prefix"))
    registry = f"{image_repo_address(repo)}/{prefix}" if prefix else DEFAULT_FUYAO_REPO
    image = f"{registry}/{LAUNCHER_IMAGE[0]}:{LAUNCHER_IMAGE[1]}"
    image_detail = f"{at}.cluster.imageRepo ({LAUNCHER_IMAGE[0]}:{LAUNCHER_IMAGE[1]})"
    if go_string(extra.get("bkeagent-launcher-image")):
        image = go_string(extra.get("bkeagent-launcher-image"))
        image_detail = f"{at}.customExtra.bkeagent-launcher-image"
    params = {
        "clusterName": Value(config.name, CONTROLLER_ADDON, "metadata.name"),
        "ntpServer": Value(
            go_string(cluster.get("ntpServer")), CONTROLLER_ADDON, f"{at}.cluster.ntpServer"
        ),
        "agentHealthPort": Value(
            go_string(cluster.get("agentHealthPort")),
            CONTROLLER_ADDON,
            f"{at}.cluster.agentHealthPort",
        ),
        "debug": Value("true", CONTROLLER_ADDON, "the launcher's setting"),
        "kubeconfig": _placeholder("kubeconfig", "the management cluster's local kubeconfig"),
        "launcherImage": Value(image, CONTROLLER_ADDON, image_detail),
    }
    note = (
        "bkeagent is installed by the controller itself (the agent's launcher); kubeconfig "
        "is a placeholder for the management cluster's local kubeconfig"
    )
    return AddonExtras(params=params, notes=(note,))


def http_repo_base(config: ClusterConfig) -> str:
    """Where the node scripts download from (``BuildYumRepoDownloadBaseURL``): the HTTP
    repository's domain (assumed reachable: the controller probes it and falls back to
    its ip), its port, then its prefix or ``/files``."""
    http = _map(_map(config.install.get("cluster")).get("httpRepo"))
    domain, ip, port = (go_string(http.get(k)) for k in ("domain", "ip", "port"))
    host = domain or ip
    if not host:
        base = f"http://:{port}" if port else "http://"
    elif not port:
        base = f"http://{host}"
    else:
        base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    prefix = go_string(http.get("prefix"))
    if prefix:
        return f"{base}/{prefix}"
    return base + ("files" if base.endswith("/") else "/files")


def _clusterextra(version: str, config: ClusterConfig, nodes: Sequence[Node]) -> AddonExtras:
    """A node script: version ``<script>`` of clusterextra, run on the nodes the controller
    picks for it (``getNodesIpsByScript``) with ``nodesIps``, and ``httpRepo`` unless it
    is one of the scripts every cluster runs."""
    extra = _map(config.install.get("customExtra"))
    at = f"{config.config_path}.customExtra"
    notes: list[str] = []
    all_ips = [n.ip for n in nodes]
    masters = [n.ip for n in _masters(nodes)]
    etcd = [n.ip for n in nodes if "etcd" in n.roles]
    if version == "install-etcdctl.sh":
        ips, why = etcd, "BKENodes with role etcd"
    elif version in ("install-helm.sh", "install-calicoctl.sh"):
        ips, why = masters, "master BKENodes"
    elif version in PIPELINE_SCRIPTS:
        server = go_string(extra.get("pipelineServer"))
        enabled = (
            version != "clean-docker-images.py"
            or extra.get("pipelineServerEnableCleanImages") == "true"
        )
        ips, why = ([server] if server and enabled else []), f"{at}.pipelineServer"
    elif version == "update-runc.sh" and go_string(extra.get("host")):
        ips, why = [ip for ip in all_ips if ip != extra.get("host")], f"BKENodes but {at}.host"
    else:
        ips, why = all_ips, "every BKENode"
    if not ips:
        # the controller skips a script with no node to run on; render it as if it ran
        # on the first master (the pipeline server's admission default), so its template
        # is judged at all
        stand_in = masters[:1] or all_ips[:1]
        shown = stand_in[0] if stand_in else "no node"
        notes.append(
            f"the controller does not run {version} on this cluster: no node to run it on "
            f"({why}); rendered as if it ran on {shown}"
        )
        ips, why = stand_in, f"{why}: none; the first master stands in"
    params = {"nodesIps": Value(",".join(ips), CONTROLLER_ADDON, why)}
    if version not in COMMON_SCRIPTS:
        params["httpRepo"] = Value(
            http_repo_base(config), CONTROLLER_ADDON, f"{config.config_path}.cluster.httpRepo"
        )
    runtime = _map(_map(config.install.get("cluster")).get("containerRuntime"))
    if version == "update-runc.sh" and runtime.get("cri") == "containerd":
        notes.append("the controller does not run update-runc.sh with containerd")
    return AddonExtras(params=params, notes=tuple(notes))


def layout_notes(name: str, files: Sequence[str]) -> tuple[str, ...]:
    """What the controller expects of an addon version's files that it does not hold:
    cluster-api's ``003-manage.yaml``, which a later phase of every cluster listing
    cluster-api reads (``EnsureClusterAPIManagerManifest``)."""
    if name != CLUSTER_API or CLUSTER_API_MANAGE in files:
        return ()
    other = [f for f in files if f.rsplit("/", 1)[-1].endswith("-manage.yaml")]
    instead = (
        f"; it has {', '.join(other)}, which a create applies with the addon, before the "
        "nodes' postprocess the manage file was deferred for"
        if other
        else ""
    )
    return (
        f"the controller's phase after the nodes' postprocess applies cluster-api's "
        f"{CLUSTER_API_MANAGE}, which this version does not have{instead}: that phase "
        "fails reading it",
    )


def supplied_keys(name: str, version: str, *, listed: bool) -> dict[str, str]:
    """The keys the controller itself sets for addon ``name`` beyond the common
    parameters, each with the condition it depends on ("" when it always does): the
    question a missing key asks (see :mod:`renderer.bke.missing`)."""
    out: dict[str, str] = {}
    if name == NODELOCALDNS:
        out["domain"] = ""
        for key in ("DNSserver", "clusterDNS"):
            out[key] = (
                'when customExtra.proxyMode is "iptables" or "ipvs" (admission sets it '
                "from the kubeproxy addon)"
            )
    elif name == CLUSTER_API:
        for key in ("clusterToken", "nodes"):
            out[key] = 'when the addon\'s param manage is "true"'
        for key in ("capiCaBundle", "bkeCaBundle"):
            out[key] = ""
    elif name == BOCOPERATOR:
        for key in (
            *(f"masterSsh{k}" for k in ("Ip", "Port", "User", "Pwd")),
            *(f"pipeLineServer{k}" for k in ("Ip", "Port", "User", "Pwd", "Hostname")),
            "isLocalDB", "bocVersion", "masterServers", "dbHost", "portalClusterToken",
        ):  # fmt: skip
            out[key] = ""
    elif name == BKEAGENT and not listed:
        for key in (
            "clusterName",
            "ntpServer",
            "agentHealthPort",
            "debug",
            "kubeconfig",
            "launcherImage",
        ):
            out[key] = ""
    elif name == CLUSTEREXTRA and not listed:
        out["nodesIps"] = ""
        if version not in COMMON_SCRIPTS:
            out["httpRepo"] = ""
    return out
