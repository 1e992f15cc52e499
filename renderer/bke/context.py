"""The render context of each template file, built by the rules of BKE's controller.

The controller (cluster-api-provider-bke, ``pkg/kube/addon.go``) does not render a
version with one context: for every file it starts from the addon's params (a key
without a dot reaches every file, ``F.K`` only the file whose name up to its first dot
is ``F``, as key ``K``), fills missing keys from its common parameters (its own defaults,
then values derived from the BKECluster and its BKENodes), overwrites the Typha keys
from the node count and finally sets ``repo`` from ``cluster.imageRepo``. This module
does the same, records where each value came from (for ``explain-context``) and says
what a config asks for that can never reach a template.

Pure: data in, data out; files are read by the callers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.bke import TYPHA_KEYS
from renderer.bke import addons as addon_rules
from renderer.bke.addons import CONTROLLER_ADDON, PLACEHOLDER
from renderer.bke.addresses import DNS_IP_INDEX, dns_ip, go_string, image_prefix
from renderer.bke.admission import ADMISSION_DEFAULT
from renderer.engine.govalues import Int32, StringMap
from renderer.engine.render import is_verbatim
from renderer.errors import InputError, remedy
from renderer.finding import CONTEXT, ERROR, WARNING, Details, Finding
from renderer.k8s.gcpause import gc_paused
from renderer.k8s.injection import find_injections
from renderer.manifests.tree import VersionDir

if TYPE_CHECKING:
    from renderer.bke.cluster import Addon, ClusterConfig, ClusterInputs, Node
    from renderer.engine.render import RenderedFile

# --- where a value comes from -----------------------------------------------------------

CONTROLLER_DEFAULT = "controller-default"
BKECLUSTER = "bkecluster"
BKENODES = "bkenodes"
ADDON_PARAM = "addon-param"
FILE_PARAM = "file-param"
BKEADM_DEFAULT = "bkeadm-default"
USER = "user"
USER_FILE = "user-file"
POLICY = "policy"
SOURCES = (
    CONTROLLER_DEFAULT,
    ADMISSION_DEFAULT,
    BKECLUSTER,
    BKENODES,
    ADDON_PARAM,
    FILE_PARAM,
    BKEADM_DEFAULT,
    USER,
    USER_FILE,
    POLICY,
    CONTROLLER_ADDON,
    PLACEHOLDER,
)
#: A dotted param of these sources is per file, and says so.
_PER_FILE = {ADDON_PARAM: FILE_PARAM, USER: USER_FILE}

#: The controller's own defaults (``initializeDefaultParams``): key, value. Integers stay
#: integers, as the controller passes them. ``version`` and ``k8sVersion`` describe the
#: controller's build: these are the provider's source defaults (a release build may
#: stamp another ``version``).
CONTROLLER_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("replicas", 1),
    ("kubeConfigDir", "/etc/kubernetes"),
    ("ipModVersion", "ipv4"),
    ("apiServerSrcPort", 6443),
    ("podSubnet", "10.250.0.0/16"),
    ("serviceSubnet", "10.96.0.0/16"),
    ("dnsIP", "10.96.0.10"),
    ("dnsDomain", "cluster.local"),
    ("ingressReplicas", 1),
    ("etcdEndpoints", ""),
    ("version", "v1.0.0"),
    ("kubeletDataRoot", "/var/lib/kubelet"),
    ("dockerDataRoot", "/var/lib/docker"),
    ("k8sVersion", "v1.34.3-of.1"),
    ("masterReplicas", "1"),
    ("workerReplicas", "1"),
    ("namespace", "cluster-system"),
    ("clusterNetworkMode", ""),
    ("product", "boc"),
)
#: The calico params bkeadm writes into a new config; a render without ``--config``
#: starts from them, as a cluster installed from bkeadm's defaults would.
BKEADM_CALICO_PARAMS: tuple[tuple[str, str], ...] = (
    ("calicoMode", "vxlan"),
    ("ipAutoDetectionMethod", "skip-interface=nerdctl*"),
    ("allowTypha", "false"),
    ("typhaReplicas", "1"),
)
#: Addon params the controller turns into maps (``normalizeNodeSelector``).
MAP_PARAMS = frozenset({"nodeSelector"})


class Entry(NamedTuple):
    """One context value and its origin: a source of :data:`SOURCES` and a detail
    (a field path, a param key, a flag). A named tuple, not a frozen dataclass: a values
    file of 200,000 keys builds one per key, and a tuple is built in a third of the time."""

    value: Any
    source: str
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "detail": self.detail}


class Param(NamedTuple):
    """An addon param as given (key possibly ``F.K``), in the order given (a named tuple,
    as :class:`Entry`)."""

    key: str
    value: Any
    source: str
    detail: str


@dataclass(frozen=True, slots=True)
class ContextInputs:
    """What the contexts are built from, besides the version's files and the Typha keys.

    ``params`` are addon params in order (a later one wins for the same key);
    ``nested`` are map values from a ``--values`` file, given to every file (a config's
    params are strings and cannot give one); ``after`` are keys the controller sets in
    every file applied with the addon once the maps are merged (cluster-api's CA
    bundles); ``repo`` is set last in every file. ``notes`` say what the controller does
    for this addon that a reader should know (placeholders, scripts it would skip).
    """

    common: Mapping[str, Entry]
    params: tuple[Param, ...]
    repo: Entry
    nested: Mapping[str, Entry] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    after: Mapping[str, Entry] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileContext:
    """The context one template file receives; ``verbatim`` files are not rendered."""

    file: str
    base: str
    entries: Mapping[str, Entry]
    verbatim: bool = False

    @property
    def context(self) -> dict[str, Any]:
        """A new dict of the values each time: callers may change it."""
        return dict(self.values)

    @cached_property
    def values(self) -> Mapping[str, Any]:
        """The values of the entries, made once: a render reads them several times."""
        return {k: e.value for k, e in self.entries.items()}


class VersionContexts(NamedTuple):
    version: str
    files: tuple[FileContext, ...]
    warnings: tuple[str, ...] = ()

    def contexts(self) -> dict[str, dict[str, Any]]:
        """File name to its context, as :func:`renderer.engine.render.render_version` takes it."""
        return {f.file: f.context for f in self.files}

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "files": [
                {
                    "file": f.file,
                    "base": f.base,
                    "verbatim": f.verbatim,
                    "values": {k: f.entries[k].to_dict() for k in sorted(f.entries)},
                }
                for f in self.files
            ],
            "warnings": list(self.warnings),
        }


# --- common parameters ------------------------------------------------------------------


def controller_defaults() -> dict[str, Entry]:
    return {k: Entry(v, CONTROLLER_DEFAULT) for k, v in CONTROLLER_DEFAULTS}


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _role_count(nodes: Sequence[Node], role: str) -> int:
    return sum(1 for n in nodes if role in n.roles)


def _put(
    out: dict[str, Entry], key: str, value: Any, detail: str, source: str = BKECLUSTER
) -> None:
    out[key] = Entry(value, source, detail)


def common_params(
    install: Mapping[str, Any] | None,
    *,
    spec: Mapping[str, Any] | None = None,
    namespace: str | None = None,
    nodes: Sequence[Node] | None = None,
    where: str = "spec",
    admitted: Iterable[str] = (),
) -> dict[str, Entry]:
    """The controller's common parameters: its defaults, then (with an install config)
    the values it derives from the BKECluster (``install`` is ``cluster``/``addons``/
    ``customExtra``, ``spec`` the object's spec) and its BKENodes (objects with ``roles``
    and ``ip``; None: not given, the defaults stand). The steps run in the controller's
    order, which is the order of the keys they add. ``admitted``: the paths BKE's
    admission webhook filled; a value read from one has that origin."""
    out = _common_params(install, spec=spec, namespace=namespace, nodes=nodes, where=where)
    filled = tuple(admitted)
    for key, entry in out.items():
        if entry.source == BKECLUSTER and any(
            path == entry.detail or path.startswith(entry.detail + ".") for path in filled
        ):
            out[key] = Entry(entry.value, ADMISSION_DEFAULT, entry.detail)
    if "dnsIP" in out and out["dnsIP"].source != CONTROLLER_DEFAULT:
        dns = out["dnsIP"]
        out["dnsIP"] = Entry(dns.value, out["serviceSubnet"].source, dns.detail)
    return out


def _common_params(
    install: Mapping[str, Any] | None,
    *,
    spec: Mapping[str, Any] | None,
    namespace: str | None,
    nodes: Sequence[Node] | None,
    where: str,
) -> dict[str, Entry]:
    out = controller_defaults()
    if install is None:
        return out
    cluster = _map(install.get("cluster"))
    at = f"{where}.cluster"
    _repository_params(out, cluster, _map(install.get("customExtra")), at, where)
    if namespace is not None:
        _put(out, "namespace", namespace, "metadata.namespace")
    _network_params(out, cluster, _map((spec or {}).get("controlPlaneEndpoint")), at)
    if nodes is not None:
        _node_params(out, nodes)
    _addon_params(out, install.get("addons"), where)
    subnet = out["serviceSubnet"]
    _put(
        out,
        "dnsIP",
        dns_ip(str(subnet.value), subnet.detail or "serviceSubnet"),
        f"address {DNS_IP_INDEX} of serviceSubnet",
        subnet.source,
    )
    if nodes is not None:
        ips = ",".join(n.ip for n in nodes if "etcd" in n.roles)
        _put(out, "etcdIps", ips, "BKENodes with role etcd", BKENODES)
    _host_params(out, cluster, at)
    return out


def _repository_params(
    out: dict[str, Entry],
    cluster: Mapping[str, Any],
    extra: Mapping[str, Any],
    at: str,
    where: str,
) -> None:
    """The image and HTTP repositories, NTP, the agent's port and NFS."""
    repo = _map(cluster.get("imageRepo"))
    address = f"{go_string(repo.get('domain'))}:{go_string(repo.get('port'))}"
    _put(out, "imageRepo", address, f"{at}.imageRepo")
    for name, attr in (("Domain", "domain"), ("Port", "port"), ("Ip", "ip"), ("Prefix", "prefix")):
        _put(out, f"imageRepo{name}", go_string(repo.get(attr)), f"{at}.imageRepo.{attr}")
    http = _map(cluster.get("httpRepo"))
    address = f"http://{go_string(http.get('domain'))}:{go_string(http.get('port'))}"
    _put(out, "httpRepo", address, f"{at}.httpRepo")
    for name, attr in (("Domain", "domain"), ("Port", "port"), ("Ip", "ip"), ("Prefix", "prefix")):
        _put(out, f"httpRepo{name}", go_string(http.get(attr)), f"{at}.httpRepo.{attr}")
    _put(out, "ntpServer", go_string(cluster.get("ntpServer")), f"{at}.ntpServer")
    _put(out, "agentHealthPort", go_string(cluster.get("agentHealthPort")), f"{at}.agentHealthPort")
    for key in ("nfsServer", "nfsRootDir", "nfsVersion"):
        _put(out, key, go_string(extra.get(key)), f"{where}.customExtra.{key}")


def _network_params(
    out: dict[str, Entry], cluster: Mapping[str, Any], endpoint: Mapping[str, Any], at: str
) -> None:
    """Subnets and DNS domain when set, and the control plane endpoint."""
    networking = _map(cluster.get("networking"))
    for key in ("podSubnet", "serviceSubnet", "dnsDomain"):
        if go_string(networking.get(key)):
            _put(out, key, go_string(networking.get(key)), f"{at}.networking.{key}")
    if go_string(endpoint.get("host")):
        _put(
            out,
            "apiServerSrcHost",
            go_string(endpoint.get("host")),
            "spec.controlPlaneEndpoint.host",
        )
    port = endpoint.get("port")
    if isinstance(port, int) and not isinstance(port, bool) and port:
        # the endpoint's port is an int32 field: Go keeps its type in the context
        _put(out, "apiServerSrcPort", Int32(port), "spec.controlPlaneEndpoint.port")


def _node_params(out: dict[str, Entry], nodes: Sequence[Node]) -> None:
    """The etcd endpoints and replica counts, from the BKENodes' roles."""
    etcd = [n for n in nodes if "etcd" in n.roles]
    endpoints = ",".join(f"https://{n.ip}:2379" for n in etcd)
    _put(out, "etcdEndpoints", endpoints, "BKENodes with role etcd", BKENODES)
    masters = _role_count(nodes, "master") + _role_count(nodes, "master/node")
    _put(out, "masterReplicas", str(masters), "BKENodes with role master or master/node", BKENODES)
    workers = str(_role_count(nodes, "node"))
    _put(out, "workerReplicas", workers, "BKENodes with role node", BKENODES)


def _addon_params(out: dict[str, Entry], addons: Any, where: str) -> None:
    """What the addon list decides: ingress replicas (beyondELB) and the network mode."""
    for i, addon in enumerate(addons if isinstance(addons, list) else []):
        addon = _map(addon)
        name = go_string(addon.get("name")).lower()
        detail = f"{where}.addons[{i}]"
        if name == "beyondelb":
            lb = go_string(_map(addon.get("param")).get("lbNodes"))
            _put(out, "ingressReplicas", len(lb.split(",")), f"{detail}.param.lbNodes")
        elif name in ("calico", "fabric"):
            _put(out, "clusterNetworkMode", name, f"{detail}.name")


def _host_params(out: dict[str, Entry], cluster: Mapping[str, Any], at: str) -> None:
    """Kubelet and container runtime data directories, and component versions when set."""
    kubelet = _map(cluster.get("kubelet"))
    volumes = kubelet.get("extraVolumes")
    for i, volume in enumerate(volumes if isinstance(volumes, list) else []):
        volume = _map(volume)
        if volume.get("name") == "kubelet-root-dir":
            detail = f"{at}.kubelet.extraVolumes[{i}].hostPath"
            _put(out, "kubeletDataRoot", go_string(volume.get("hostPath")), detail)
    runtime = _map(cluster.get("containerRuntime"))
    data_root = _map(runtime.get("param")).get("data-root")
    if runtime.get("cri") == "docker" and data_root is not None:
        _put(out, "dockerDataRoot", go_string(data_root), f"{at}.containerRuntime.param.data-root")
    for key, attr in (
        ("k8sVersion", "kubernetesVersion"),
        ("etcdVersion", "etcdVersion"),
        ("containerdVersion", "containerdVersion"),
    ):
        if go_string(cluster.get(attr)):
            _put(out, key, go_string(cluster.get(attr)), f"{at}.{attr}")


# --- addon params, per file -------------------------------------------------------------


def file_base(name: str) -> str:
    """The controller's key for a file's params: its base name (``sub/x.yaml`` is
    ``x.yaml``) up to the first dot. Files of the same base share one set of params."""
    return name.rsplit("/", 1)[-1].split(".")[0]


def split_params(
    params: Iterable[Param], bases: Sequence[str]
) -> tuple[dict[str, dict[str, Entry]], list[str]]:
    """Addon params per file base, as the controller spreads them, and warnings for
    params that reach no template or whose value the controller leaves to chance."""
    out: dict[str, dict[str, Entry]] = {b: {} for b in bases}
    warnings: list[str] = []
    # The controller walks a Go map (random order): a per-file key and a key for every
    # file that land on the same slot make its result random. Per file wins here.
    # A later layer (the user's params after the config's) still wins over both.
    per_file: dict[tuple[str, str], Param] = {}
    layers = list(out.values())
    # Params for every file, gathered until a per-file one comes and then given to each
    # file in one update: one entry per param (entries are frozen), not one per file
    # (200,000 keys for nine files made 1.8 million).
    common: dict[str, Entry] = {}
    for p in params:
        if "." not in p.key:
            entry = Entry(p.value, p.source, p.detail)
            if not per_file:
                common[p.key] = entry
                continue
            for base in bases:
                earlier = per_file.get((base, p.key))
                if earlier is not None and earlier.source == p.source:
                    continue
                out[base][p.key] = entry
            continue
        parts = p.key.split(".")
        if common:
            for layer in layers:
                layer.update(common)
            common = {}
        base, key = parts[0], parts[1]
        if len(parts) > 2:
            warnings.append(
                f"param {p.key!r} ({p.detail}): the controller keeps only {base}.{key} "
                f"and drops the rest of the key"
            )
        if base not in out:
            files = ", ".join(bases) or "none"
            warnings.append(
                f"param {p.key!r} ({p.detail}) reaches no template: the controller gives a "
                f"dotted key only to the file named {base!r} (files here: {files}); "
                f"a template reading .{base}.{key} cannot be set through the config"
            )
            continue
        if not key:
            warnings.append(
                f"param {p.key!r} ({p.detail}) names an empty key: no template reads it"
            )
        slot = (base, key)
        shadowed = out[base].get(key)
        earlier = per_file.get(slot)
        same_layer = earlier.source if earlier is not None else getattr(shadowed, "source", "")
        if shadowed is not None and same_layer == p.source:
            warnings.append(
                f"param {p.key!r} ({p.detail}) and {key!r} ({shadowed.detail}) both set {key} "
                f"for {base}: the controller's choice depends on Go's map order; "
                f"calico-render uses {p.key!r}"
            )
        per_file[slot] = p
        out[base][key] = Entry(p.value, _PER_FILE.get(p.source, p.source), p.detail)
    for layer in layers:
        layer.update(common)
    return out, warnings


# --- putting it together ----------------------------------------------------------------


def build(
    version: VersionDir,
    inputs: ContextInputs,
    typha: Mapping[str, str] | None,
    *,
    typha_reason: str = "Typha policy",
    verbatim: Sequence[str] = (),
) -> VersionContexts:
    """Each file's context: addon params (per-file rule), then map values, common
    params fill missing keys, the Typha policy overwrites its keys, ``repo`` is set last.
    ``verbatim`` names files applied as is (they get no context)."""
    verbatim = [*verbatim, *(tf.name for tf in version.files if is_verbatim(version, tf))]
    with gc_paused():  # an entry per key of a big values file, no cycles
        return _build(version, inputs, typha, typha_reason, verbatim)


def _build(
    version: VersionDir,
    inputs: ContextInputs,
    typha: Mapping[str, str] | None,
    typha_reason: str,
    verbatim: Sequence[str],
) -> VersionContexts:
    names = [tf.name for tf in version.files]
    bases = sorted({file_base(n) for n in names})
    per_base, warnings = split_params(inputs.params, bases)
    files = []
    order: list[str] | None = None
    order_keys: set[str] = set()
    # a file's entries follow from its base's params alone (the rest is the same for
    # every file): bases with equal params share one mapping and one dict of values
    # (200,000 values keys were copied, sorted and turned into values once per file)
    built: list[tuple[dict[str, Entry], bool, FileContext]] = []
    # the keys set after the merge reach the files applied with the addon, not one
    # applied in a later phase under a template name of its own
    with_addon = {tf.name: tf.template == version.addon for tf in version.files}
    for name in names:
        base = file_base(name)
        if name in verbatim:
            files.append(FileContext(name, base, {}, verbatim=True))
            continue
        layer = per_base[base]
        after = with_addon[name]
        same = next((fc for seen, a, fc in built if seen == layer and a == after), None)
        if same is not None:
            files.append(FileContext(name, base, same.entries))
            continue
        entries: dict[str, Entry] = dict(layer)
        for key in MAP_PARAMS & entries.keys():
            entry = entries[key]
            if isinstance(entry.value, str):
                entries[key] = Entry(
                    node_selector(entry.value, entry.detail), entry.source, entry.detail
                )
        for key, entry in inputs.nested.items():
            entries.setdefault(key, entry)
        for key, entry in inputs.common.items():
            entries.setdefault(key, entry)
        for key, value in (typha or {}).items():
            entries[key] = Entry(value, POLICY, typha_reason)
        if after:
            entries.update(inputs.after)
        entries["repo"] = inputs.repo
        # files of one version mostly hold the same keys: sorted once, not per file
        if order is None or len(order) != len(entries) or entries.keys() != order_keys:
            order = sorted(entries)
            order_keys = set(order)
        files.append(FileContext(name, base, {k: entries[k] for k in order}))
        built.append((layer, after, files[-1]))
    return VersionContexts(version.name, tuple(files), (*inputs.warnings, *warnings))


def node_selector(raw: str, where: str = "nodeSelector") -> StringMap:
    """A ``nodeSelector`` param as the controller turns it into a ``map[string]string``
    (typed: ``index .nodeSelector "zz"`` prints "", not ``<no value>``): a JSON object,
    or ``k=v,k2=v2`` (a key without ``=`` maps to ""); an empty key is bad input."""
    raw = raw.strip()
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise InputError(f"not a JSON object: {exc}", key=where) from None
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise InputError("a JSON nodeSelector maps strings to strings", key=where)
        return StringMap({str(k): v for k, v in value.items()})
    out = StringMap()
    for pair in raw.split(","):
        if not pair.strip():
            continue
        key, _, value = pair.partition("=")
        if not key.strip():
            raise InputError(f"invalid nodeSelector entry {pair.strip()!r}", key=where)
        out[key.strip()] = value.strip()
    return out


def overridden_params(params: Iterable[Param]) -> list[str]:
    """Warnings for a ``repo`` param: the controller sets ``repo`` last, so it never
    reaches a template."""
    out = []
    for p in params:
        key = p.key.split(".")[1] if "." in p.key else p.key
        if key == "repo":
            hint = remedy("use {} or imageRepo.prefix", "repo")
            out.append(
                f"param {p.key!r} ({p.detail}) never reaches a template: the controller sets "
                f"repo last, from cluster.imageRepo ({hint})"
            )
    return out


def nested_warnings(nested: Mapping[str, Entry]) -> list[str]:
    """Map values (from a values file) are something production never passes."""
    return [
        f"{key} is a map ({entry.detail}): BKE's controller never passes one (a config's "
        "params are strings), so this render shows what production cannot render"
        for key, entry in sorted(nested.items())
        if key not in MAP_PARAMS
    ]


def without_config(
    *,
    repo: str | None = None,
    params: Sequence[Param] = (),
    nested: Mapping[str, Entry] | None = None,
) -> ContextInputs:
    """A render without a config: the controller's defaults, bkeadm's calico params,
    then the user's ``--values``/``--set`` params."""
    defaults = tuple(
        Param(k, v, BKEADM_DEFAULT, "bkeadm's default config") for k, v in BKEADM_CALICO_PARAMS
    )
    repo_entry = (
        Entry(repo, USER, "--repo") if repo is not None else Entry("", CONTROLLER_DEFAULT, "")
    )
    return ContextInputs(
        controller_defaults(),
        (*defaults, *params),
        repo_entry,
        dict(nested or {}),
        (*overridden_params(params), *nested_warnings(nested or {})),
    )


def for_config(
    config: ClusterConfig,
    addon: Addon,
    nodes: Sequence[Node] | None,
    *,
    repo: str | None = None,
    params: Sequence[Param] = (),
    nested: Mapping[str, Entry] | None = None,
) -> ContextInputs:
    """A render of a BKECluster (:class:`renderer.bke.cluster.ClusterConfig`) and its calico
    ``addon``: see :func:`for_addon`."""
    return for_addon(
        config, addon.name, addon.version, nodes, listed=addon, repo=repo, params=params,
        nested=nested,
    )  # fmt: skip


def for_addon(
    config: ClusterConfig,
    name: str,
    version: str,
    nodes: Sequence[Node] | None,
    *,
    listed: Addon | None,
    repo: str | None = None,
    params: Sequence[Param] = (),
    nested: Mapping[str, Entry] | None = None,
) -> ContextInputs:
    """A render of addon ``name`` at ``version`` for a BKECluster and its BKENodes, as
    the controller builds it: common params from the cluster and ``nodes``, what the
    controller adds for this addon (:mod:`renderer.bke.addons`), the addon's params
    (``listed``, the BKECluster's entry for it; None: it lists none) and then the
    user's; ``repo`` from ``cluster.imageRepo`` unless ``--repo`` is given."""
    common = common_params(
        config.install,
        spec=config.spec if config.kind == "BKECluster" else None,
        namespace=config.namespace or "default",
        nodes=nodes,
        where=config.config_path,
        admitted=config.admitted,
    )
    if not config.namespace:
        ns = common["namespace"]
        common["namespace"] = Entry(ns.value, ns.source, "metadata.namespace (absent: default)")
    given = dict(listed.params) if listed is not None else {}
    extra = addon_rules.extras(
        name,
        version,
        given,
        config,
        nodes or (),
        {k: e.value for k, e in common.items()},
        listed=listed is not None,
    )
    for key, value in extra.common.items():
        common[key] = Entry(*value)
    where = listed.where if listed is not None else f"{config.config_path}.addons"

    def param(key: str, value: str) -> Param:
        if key in extra.params:
            return Param(key, *extra.params[key])
        path = f"{where}.param.{key}"
        return Param(
            key, value, ADMISSION_DEFAULT if path in config.admitted else ADDON_PARAM, path
        )

    own = tuple(param(k, v) for k, v in given.items()) + tuple(
        Param(k, *v) for k, v in extra.params.items() if k not in given
    )
    image_repo = _map(_map(config.install.get("cluster")).get("imageRepo"))
    repo_path = f"{config.config_path}.cluster.imageRepo"
    repo_source = (
        ADMISSION_DEFAULT
        if any(p.startswith(repo_path + ".") for p in config.admitted)
        else BKECLUSTER
    )
    repo_entry = (
        Entry(repo, USER, "--repo")
        if repo is not None
        else Entry(image_prefix(image_repo), repo_source, repo_path)
    )
    return ContextInputs(
        common,
        (*own, *params),
        repo_entry,
        dict(nested or {}),
        (*overridden_params((*own, *params)), *nested_warnings(nested or {})),
        after={key: Entry(*value) for key, value in extra.after.items()},
        notes=extra.notes,
    )


def for_cluster(
    found: ClusterInputs,
    name: str,
    version: str,
    *,
    repo: str | None = None,
    params: Sequence[Param] = (),
    nested: Mapping[str, Entry] | None = None,
) -> ContextInputs:
    """:func:`for_addon` of what a BKECluster and its BKENodes give a render of addon
    ``name`` (:func:`renderer.bke.cluster.resolve_inputs`): its install config, its
    BKENodes and its entry for the addon."""
    nodes = found.inventory.nodes if found.inventory is not None else None
    return for_addon(
        found.config,
        name,
        version,
        nodes,
        listed=found.addon,
        repo=repo,
        params=params,
        nested=nested,
    )


def typha_params(params: Iterable[Param]) -> dict[str, Any]:
    """The Typha keys a config or the user set (the policy replaces them; bkeadm's
    defaults are not worth a warning)."""
    out: dict[str, Any] = {}
    for p in params:
        key = p.key
        if "." in key:  # one split per dotted key only (200,000 plain keys split none)
            key = key.rsplit(".", 1)[1]
        if key in TYPHA_KEYS and p.source != BKEADM_DEFAULT:
            out[key] = p.value
    return out


def from_mapping(
    user: Mapping[str, Any], detail: str = "user value"
) -> tuple[tuple[Param, ...], dict[str, Entry]]:
    """A library caller's values: maps are nested values for every file, the rest params."""
    params = []
    nested = {}
    for key, value in user.items():
        if isinstance(value, Mapping | list):
            nested[key] = Entry(value, USER, detail)
        else:
            params.append(Param(key, go_string(value), USER, f"{detail} {key}"))
    return tuple(params), nested


# --- what no config can set -------------------------------------------------------------

UNREACHABLE_RULE = "context-unreachable-key"
CONTEXT_STAGE = CONTEXT


@dataclass(frozen=True, slots=True)
class ContextDetails(Details):
    """The context key a finding is about and, for a value that changed the YAML its
    template wrote, that value; for a key the context lacks, the addon and who sets the
    key (:mod:`renderer.bke.missing`)."""

    key: str
    value: str | None = None
    addon: str | None = None
    supplier: str | None = None


def unreachable_keys(
    nested: Mapping[str, Iterable[str]], lines: Mapping[str, Mapping[str, int]] | None = None
) -> list[Finding]:
    """Keys read as maps (``.ClusterCidr.Ipv6``), per file, that production cannot fill:
    the controller's common parameters are scalars and a config's params are strings (a
    dotted ``ClusterCidr.Ipv6`` goes to a file named ClusterCidr instead), so the key is
    missing and Go prints ``<no value>`` wherever the access runs (a string param of
    that name would make it fail instead). ``lines``: per file, the template line of
    each key's first read, to locate the finding."""
    out = []
    for file in sorted(nested):
        for key in sorted(set(nested[file]) - MAP_PARAMS):
            line = (lines or {}).get(file, {}).get(key)
            out.append(
                Finding(
                    UNREACHABLE_RULE,
                    WARNING,
                    f"{file} reads .{key}.<field>, but the controller never sets {key} and a "
                    f"config cannot: its params are strings and a dotted {key}.<field> param "
                    f"only reaches a file named {key}; where it runs, it renders <no value>",
                    stage=CONTEXT_STAGE,
                    file=file,
                    line=line or 0,
                    details=ContextDetails(key),
                )
            )
    return out


INJECTS_RULE = "context-value-injects-yaml"


def injection_findings(files: Iterable[RenderedFile]) -> list[Finding]:
    """Values that changed the YAML structure their template wrote (errors): the
    controller renders them, and the object, key or list item that exists only because
    of a value's text is then applied (see :mod:`renderer.k8s.injection`). ``file``
    is each rendered file's name (``<version>/<file>``), ``line`` the template line."""
    out = []
    for f in files:
        for found in find_injections(f.text, f.printed):
            shown = found.value if len(found.value) <= 80 else found.value[:77] + "..."
            out.append(
                Finding(
                    INJECTS_RULE,
                    ERROR,
                    f"the value of {found.key} ({shown!r}) changes the YAML structure the "
                    f"template wrote at line {found.line}: an object, key or list item "
                    "exists only because of its text",
                    stage=CONTEXT_STAGE,
                    file=f.name,
                    line=found.line,
                    details=ContextDetails(found.key, found.value),
                )
            )
    return out


#: Compiled (and kept by ``re``) only for a config that names a Kubernetes version.
_KUBE_VERSION = r"^v?(\d+)\.(\d+)"


def kube_version_for(kubernetes_version: str, shipped: Sequence[str]) -> tuple[str | None, str]:
    """The schema version (``X.Y`` of ``shipped``) for a cluster's ``kubernetesVersion``
    (``v1.34.3-of.1``): its own minor when shipped, else the nearest one; and a note
    saying which. None when the value names no version (the defaults apply)."""
    m = re.match(_KUBE_VERSION, kubernetes_version.strip())
    if not m or not shipped:
        return None, ""
    want = (int(m.group(1)), int(m.group(2)))
    minors = {tuple(int(p) for p in v.split(".")): v for v in shipped}
    if want in minors:
        chosen = minors[want]
        return chosen, (
            f"schema check on Kubernetes {chosen}, the config's kubernetesVersion "
            f"{kubernetes_version} ({remedy('{}', 'kube_version')} to choose)"
        )
    nearest = min(minors, key=lambda v: (abs(v[0] - want[0]) * 1000 + abs(v[1] - want[1]), v))
    chosen = minors[nearest]
    return chosen, (
        f"no schemas for the config's kubernetesVersion {kubernetes_version} "
        f"(Kubernetes {want[0]}.{want[1]}); using the nearest shipped, {chosen}"
    )
