"""Read BKECluster/BKEConfig and BKENode YAML into plain dataclasses.

BKE's controller decides everything Calico-specific from ``addons[name=calico]`` and the
number of BKENodes, so that is what this module extracts. Input is untrusted: it is
loaded through :mod:`renderer.k8s.yamlio` (bounded, alias-safe) and its shape is checked
against ``schemas/bke-input.schema.json`` so a wrong type stops with exit 2 naming the
file, the line and the key path instead of failing later inside a template.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from renderer.bke import TYPHA_KEYS, admission
from renderer.bke.addons import CONTROLLER_INSTALLED
from renderer.bke.addresses import dns_ip, image_prefix
from renderer.bke.args import RenderArgs
from renderer.data import schemas
from renderer.errors import InputError, remedy
from renderer.k8s.objects import key_path
from renderer.k8s.yamlio import load_all, locate
from renderer.manifests.tree import VersionDir, list_versions, resolve_version
from renderer.store.memo import Memo
from renderer.store.read import read_text

BKE_INPUT = "bke-input.schema.json"
CLUSTER_KINDS = ("BKECluster", "BKEConfig")
NODE_KIND = "BKENode"
LIST_KINDS = ("List", "BKENodeList")
#: The label naming a BKENode's cluster (Cluster API's; BKE's examples carry it).
CLUSTER_LABEL = "cluster.x-k8s.io/cluster-name"
CALICO = "calico"

PathItem = str | int
#: A file's documents: (document index, key path prefix, object), Lists flattened.
Documents = list[tuple[int, list[PathItem], dict[str, Any]]]

#: Roles of today's BKENodes; a node with one of them joins the cluster as a kubelet.
CLASSIC_ROLES = ("master", "node", "master/node")
#: Seed 001's split control plane: components of their own, on nodes of their own.
CONTROL_PLANE_ROLES = ("apiserver", "controller-manager", "scheduler")
ETCD_ROLES = ("etcd", "etcd-event", "etcd-pod")
ROLES = (*CLASSIC_ROLES, *CONTROL_PLANE_ROLES, *ETCD_ROLES)


@dataclass(frozen=True)
class ImageRepo:
    domain: str = ""
    ip: str = ""
    port: str = ""
    prefix: str = ""

    def third_party_prefix(self) -> str:
        """``<address>/<prefix>/`` when a prefix is set, else "" (the manifests' default),
        exactly as the controller joins it (see :func:`renderer.bke.addresses.image_prefix`)."""
        return image_prefix(
            {"domain": self.domain, "ip": self.ip, "port": self.port, "prefix": self.prefix}
        )


@dataclass(frozen=True)
class Addon:
    """One entry of ``addons``; ``where`` is its key path, ``line`` its line in the file,
    ``type`` how it installs (``chart``: from a Helm chart, not from bke-manifests);
    ``assumed``: not in the file, listed to render an addon as the BKECluster would
    with it listed (:func:`with_addon`)."""

    name: str
    version: str
    params: Mapping[str, str]
    where: str
    line: int | None = None
    type: str = ""
    assumed: bool = False

    def location(self) -> str:
        return f"{self.where} (line {self.line})" if self.line else self.where


@dataclass(frozen=True)
class ClusterConfig:
    """What calico-render needs from a BKECluster or a bare BKEConfig."""

    file: str
    kind: str
    name: str
    addons: tuple[Addon, ...]
    image_repo: ImageRepo
    pod_subnet: str = ""
    kubernetes_version: str = ""
    namespace: str = ""
    #: The install config (``cluster``, ``addons``, ``customExtra``) and the object's
    #: ``spec``, shape-checked, for the controller's common parameters
    #: (:mod:`renderer.bke.context`); ``config_path`` is where the install config sits.
    install: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    spec: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    config_path: str = "spec"
    #: Paths BKE's admission webhook filled, with their values (:mod:`renderer.bke.admission`).
    admitted: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def calico(self) -> Addon | None:
        """The Calico addon, None when there is none; see :func:`calico_addon`."""
        return calico_addon(self.addons, self.file)

    def addon(self, name: str, version: str | None = None) -> Addon | None:
        """The addon named exactly ``name`` (the controller finds an addon's directory by
        its name): the one at ``version`` when several are and one is, else the first;
        None when there is none."""
        named = [a for a in self.addons if a.name == name]
        return next((a for a in named if a.version == version), named[0] if named else None)

    @property
    def repo(self) -> str:
        return self.image_repo.third_party_prefix()

    def user_values(self, addon: Addon) -> dict[str, str]:
        """Render-context values this config sets: ``podSubnet``, then the addon params."""
        values: dict[str, str] = {}
        if self.pod_subnet:
            values["podSubnet"] = self.pod_subnet
        values.update(addon.params)
        return values


@dataclass(frozen=True)
class Node:
    """A BKENode; ``cluster`` is the cluster it names (empty: no marker), see
    :func:`cluster_of`; ``port``, ``username`` and ``password`` are its SSH access as
    the spec holds them (cluster-api's manage template and bocoperator read them)."""

    name: str
    roles: tuple[str, ...]
    ip: str = ""
    hostname: str = ""
    cluster: str = ""
    namespace: str = ""
    port: str = ""
    username: str = ""
    password: str = ""

    def belongs_to(self, cluster: str, namespace: str = "") -> bool:
        """Marked as a node of ``cluster`` (in ``namespace``, when both sides say)."""
        if self.cluster != cluster:
            return False
        return not (self.namespace and namespace) or self.namespace == namespace

    @property
    def is_master(self) -> bool:
        return "master" in self.roles or "master/node" in self.roles

    @property
    def is_worker(self) -> bool:
        return "node" in self.roles or "master/node" in self.roles

    @property
    def dedicated(self) -> bool:
        """A split control-plane or etcd node (seed 001) without ``master``/``node`` roles."""
        return not any(role in CLASSIC_ROLES for role in self.roles)


@dataclass(frozen=True)
class NodeInventory:
    file: str
    nodes: tuple[Node, ...] = field(default=())

    @property
    def count(self) -> int:
        return len(self.nodes)

    @property
    def masters(self) -> int:
        return sum(1 for n in self.nodes if n.is_master)

    @property
    def workers(self) -> int:
        return sum(1 for n in self.nodes if n.is_worker)

    @property
    def dedicated(self) -> int:
        """Split control-plane/etcd nodes without ``master``/``node``: they may run no
        calico-node, yet the controller counts them for Typha like every BKENode."""
        return sum(1 for n in self.nodes if n.dedicated)

    @property
    def clusters(self) -> dict[str, int]:
        """Nodes per cluster marker, by name (unmarked nodes not included)."""
        out: dict[str, int] = {}
        for n in self.nodes:
            if n.cluster:
                out[n.cluster] = out.get(n.cluster, 0) + 1
        return dict(sorted(out.items()))

    def single_cluster(self) -> NodeInventory:
        """All nodes, when they name at most one cluster; nodes of several is exit 2."""
        clusters = self.clusters
        if len(clusters) > 1:
            named = ", ".join(f"{name} ({count})" for name, count in clusters.items())
            hint = remedy("give {} to count the nodes of one cluster", "config")
            raise InputError(
                f"BKENodes of {len(clusters)} clusters: {named}; {hint}",
                file=self.file,
                argument="config",
                hint=hint,
            )
        return self

    def of_cluster(self, cluster: str, namespace: str = "") -> tuple[NodeInventory, str | None]:
        """The nodes of ``cluster`` plus the unmarked ones, and a note on what was skipped
        (None when nothing was); possibly no node at all, see :func:`resolve_inputs`."""
        # one pass, each node judged once: 20,000 nodes compared with every kept one
        # (``n not in kept``) took 47 s
        kept: list[Node] = []
        skipped: list[Node] = []
        for n in self.nodes:
            (kept if not n.cluster or n.belongs_to(cluster, namespace) else skipped).append(n)
        if not skipped:
            return self, None
        others = sorted({n.cluster for n in skipped})
        unmarked = sum(1 for n in kept if not n.cluster)
        note = (
            f"{self.file}: counted {len(kept)} BKENodes of cluster {cluster!r}"
            + (f" ({unmarked} without a cluster marker)" if unmarked else "")
            + f"; skipped {len(skipped)} of other clusters ({', '.join(others)})"
        )
        return NodeInventory(self.file, tuple(kept)), note


def calico_addon(addons: Sequence[Addon], file: str = "") -> Addon | None:
    """The one addon named calico; two of them or an empty version is refused (exit 2).

    The version is never guessed: it names the manifest directory and the image tags.
    """
    found = [a for a in addons if a.name == CALICO]
    if not found:
        return None
    if len(found) > 1:
        both = " and ".join(a.location() for a in found)
        raise InputError(
            f"more than one addon named calico: {both}; keep exactly one", file=file or None
        )
    addon = found[0]
    if not addon.version.strip():
        raise InputError(
            "the calico addon has no version; set it explicitly (no default is guessed)",
            file=file or None,
            line=addon.line,
            key=f"{addon.where}.version",
        )
    return addon


def require_version(
    version: str, root: Path | None, *, file: str = "", key: str = "", addon: str = CALICO
) -> VersionDir:
    """The version directory of ``addon`` named exactly ``version`` under ROOT, as the
    controller uses it.

    The controller joins the addon's version into a path, so ``v3.28`` (which the
    ``--version`` flags resolve to the newest patch) is refused here, listing what exists.
    """
    try:
        vdir = resolve_version(version, root, addon)
    except InputError as exc:
        raise InputError(
            exc.message,
            file=file or exc.file,
            key=key or exc.key,
            argument=None if key else exc.argument,
        ) from None
    if vdir.name != version:
        known = ", ".join(v.name for v in list_versions(root, addon))
        raise InputError(
            f"version {version!r} must be exactly a directory under ROOT, because the "
            f"controller uses it as a path (vMAJOR.MINOR is not resolved here; "
            f"{version!r} would be {vdir.name}); available: {known}",
            file=file or None,
            key=key or None,
        )
    return vdir


# --- loading -------------------------------------------------------------------------


def _check_shape(doc: Any, text: str, file: str, index: int, prefix: Sequence[PathItem]) -> None:
    """Exit 2 naming the file, line and key when ``doc`` breaks ``bke-input.schema.json``.
    The usual valid document is judged in plain Python; jsonschema, which took
    0.3 ms per BKENode (seconds for 20,000), only decides and words the rest."""
    if schemas.certainly_valid_as(BKE_INPUT, doc):
        return
    best = schemas.best_error(BKE_INPUT, doc)
    if best is None:
        return
    path = [*prefix, *best.absolute_path]
    _, message = schemas.describe(best)
    if best.validator == "required" and "'" in best.message:
        path.append(best.message.split("'")[1])
        message = "is required here"
    raise InputError(message, file=file, line=locate(text, index, path), key=key_path(path) or None)


#: Parsed BKE files by (file, text): the key check (:mod:`renderer.bke.crdkeys`) and the
#: loaders read the same file, and a 601-node BKENode file takes about 0.5 s to parse.
#: The documents are only read, never changed, by both.
_PARSED: Memo[tuple[str, str], Documents] = Memo("bke.cluster.documents", 8)


def documents(path: str | Path) -> tuple[str, Documents]:
    """(text, [(document index, key path prefix, object)]) with Lists flattened."""
    file = str(path)
    text = read_text(path)
    return text, _PARSED.setdefault((file, text), lambda: _flattened(text, file))


def _flattened(text: str, file: str) -> Documents:
    out: Documents = []
    for index, doc in enumerate(load_all(text, file)):
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise InputError(
                f"document {index + 1} is a {type(doc).__name__}, not an object",
                file=file,
                line=locate(text, index, []),
            )
        if doc.get("kind") in LIST_KINDS:
            items = doc.get("items")
            if not isinstance(items, list):
                raise InputError(
                    "a List needs an items list",
                    file=file,
                    line=locate(text, index, ["items"]),
                    key="items",
                )
            for i, item in enumerate(items):
                if not isinstance(item, dict):
                    raise InputError(
                        "list item is not an object",
                        file=file,
                        line=locate(text, index, ["items", i]),
                        key=f"items[{i}]",
                    )
                out.append((index, ["items", i], item))
            continue
        out.append((index, [], doc))
    return out


def _scalar(value: Any) -> str:
    """A param value as the controller passes it: a string ("false", not "False")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: Params the render never takes from the config: the Typha policy and the image prefix
#: (``imageRepo`` or ``--repo``) always set these.
OVERRIDDEN_PARAMS = (*TYPHA_KEYS, "repo")


#: Validators by parameter name: keys come from the input, so the memo is bounded.
_PARAM_VALIDATORS: Memo[str, Any] = Memo("bke.cluster.param_validators", 512)


def _param_validator(key: str) -> Any:
    """A validator for the render-context schema's subschema of ``key`` (None: not defined)."""

    def make() -> Any:
        import jsonschema  # here, not at import: the API loads this module for every command

        full = schemas.load_schema(schemas.RENDER_CONTEXT)
        sub = full["properties"].get(key)
        if sub is None:
            return None
        return jsonschema.validators.validator_for(full)(sub)

    return _PARAM_VALIDATORS.setdefault(key, make)


def _check_params(addon: Addon, file: str, text: str, index: int, path: list[PathItem]) -> None:
    """Calico params as the render context will take them, checked here so a bad value
    names the file, its line and its key instead of failing later as "render context"."""
    for key, value in addon.params.items():
        # ``F.K`` reaches file F as key K (the controller's rule): check it as K.
        name = key.split(".")[1] if "." in key else key
        check = None if name in OVERRIDDEN_PARAMS else _param_validator(name)
        if check is None:
            continue
        errors = list(check.iter_errors(value))
        if not errors:
            continue
        import jsonschema

        _, message = schemas.describe(jsonschema.exceptions.best_match(errors))
        raise InputError(
            message,
            file=file,
            line=locate(text, index, [*path, key]),
            key=f"{addon.where}.param.{key}",
        )


def _refuse_case(addon: Addon, file: str, line: int | None) -> None:
    """An addon named ``Calico``: the controller joins the name into the path of the
    manifests (``kubernetes/Calico/<version>``), which does not exist, and fails the
    install ("addon dir ... not exist") though its Typha code compares the name ignoring
    case. Nothing would be rendered, so the request is refused as the controller fails."""
    raise InputError(
        f"{addon.name!r}: the controller reads an addon's manifests from "
        f"kubernetes/{addon.name}/{addon.version or '<version>'}/, which does not exist "
        f"(the directory is kubernetes/{CALICO}/ and names are case-sensitive), so the "
        f"install fails; name the addon {CALICO}",
        file=file,
        line=line,
        key=f"{addon.where}.name",
    )


def _parse_addons(
    raw: Any, where: str, file: str, text: str, index: int, prefix: list[PathItem]
) -> tuple[Addon, ...]:
    addons = []
    for i, item in enumerate(raw or []):
        params = {str(k): _scalar(v) for k, v in (item.get("param") or {}).items()}
        addons.append(
            Addon(
                name=str(item.get("name", "")),
                version=str(item.get("version") or ""),
                params=params,
                where=f"{where}[{i}]",
                line=None,
                type=_scalar(item.get("type")),
            )
        )
    for i, a in enumerate(addons):
        if a.name != CALICO and a.name.lower() == CALICO:
            _refuse_case(a, file, locate(text, index, [*prefix, i, "name"]))
    calico = [i for i, a in enumerate(addons) if a.name == CALICO]
    for i in calico:
        _check_params(addons[i], file, text, index, [*prefix, i, "param"])
    if len(calico) > 1 or any(not addons[i].version.strip() for i in calico):
        # Lines are only worth a second parse when an error is going to name them.
        for i in calico:
            a = addons[i]
            addons[i] = replace(a, line=locate(text, index, [*prefix, i]))
    return tuple(addons)


def _check_service_subnet(
    value: str, file: str, text: str, index: int, path: list[PathItem]
) -> None:
    """The controller derives dnsIP from serviceSubnet and fails when it cannot: so
    does this, naming the file, line and key."""
    try:
        dns_ip(value)
    except InputError as exc:
        raise InputError(
            exc.message, file=file, line=locate(text, index, path), key=key_path(path)
        ) from None


def load_config(path: str | Path) -> ClusterConfig:
    """The one BKECluster or BKEConfig of ``path`` (BKENode documents beside it are skipped)."""
    text, docs = documents(path)
    return _config_of(str(path), text, docs)


def load_stream(path: str | Path) -> tuple[ClusterConfig, NodeInventory | None]:
    """The one BKECluster or BKEConfig of ``path`` and, when the same stream holds
    BKENode documents (installer-service writes every BKENode of a create request, then
    its BKECluster), those nodes; None when it holds none. The file is read once."""
    text, docs = documents(path)
    config = _config_of(str(path), text, docs)
    if not any(d.get("kind") == NODE_KIND for _, _, d in docs):
        return config, None
    return config, _nodes_of(str(path), text, docs)


def _node_documents(path: str | Path) -> int:
    """How many BKENode documents ``path`` holds (read, not judged)."""
    return sum(1 for _, _, d in documents(path)[1] if d.get("kind") == NODE_KIND)


def _at_kind(message: str, file: str, text: str, index: int, prefix: list[PathItem]) -> InputError:
    """Bad input about a document as a whole: named at its ``kind`` line."""
    path = [*prefix, "kind"]
    return InputError(message, file=file, line=locate(text, index, path), key=key_path(path))


def _config_of(file: str, text: str, docs: Documents) -> ClusterConfig:
    found = [(i, prefix, d) for i, prefix, d in docs if d.get("kind") in CLUSTER_KINDS]
    for index, prefix, doc in docs:
        if doc.get("kind") not in (*CLUSTER_KINDS, NODE_KIND):
            raise _at_kind(
                f"unexpected kind {doc.get('kind')!r}; expected a BKECluster or BKEConfig "
                "and its BKENodes",
                file,
                text,
                index,
                prefix,
            )
    if not found:
        raise InputError("no BKECluster or BKEConfig document; expected exactly one", file=file)
    if len(found) > 1:
        (first, first_prefix, one), (index, prefix, two) = found[:2]
        where = locate(text, first, [*first_prefix, "kind"])
        raise _at_kind(
            f"a second {two.get('kind')} (a {one.get('kind')} is at line {where}): a file "
            "describes one cluster, so it holds exactly one BKECluster or BKEConfig",
            file,
            text,
            index,
            prefix,
        )
    index, prefix, doc = found[0]
    _check_shape(doc, text, file, index, prefix)
    spec = doc["spec"] or {}
    if "clusterConfig" in spec:
        base = spec.get("clusterConfig") or {}
        base_path: list[PathItem] = [*prefix, "spec", "clusterConfig"]
        if spec.get("addons"):
            raise InputError(
                "both spec.clusterConfig.addons and spec.addons are set; keep one",
                file=file,
                line=locate(text, index, [*prefix, "spec", "addons"]),
                key="spec.addons",
            )
    else:
        base = spec
        base_path = [*prefix, "spec"]
    cluster = base.get("cluster") or {}
    repo = cluster.get("imageRepo") or {}
    networking = cluster.get("networking") or {}
    if networking.get("serviceSubnet"):
        _check_service_subnet(
            str(networking["serviceSubnet"]),
            file,
            text,
            index,
            [*base_path, "cluster", "networking", "serviceSubnet"],
        )
    addons_path = [*base_path, "addons"]
    addons = _parse_addons(
        base.get("addons"), key_path(addons_path), file, text, index, addons_path
    )
    meta = doc.get("metadata") or {}
    return ClusterConfig(
        file=file,
        kind=str(doc["kind"]),
        name=str(meta.get("name", "")),
        addons=addons,
        image_repo=ImageRepo(
            domain=_scalar(repo.get("domain")),
            ip=_scalar(repo.get("ip")),
            port=_scalar(repo.get("port")),
            prefix=_scalar(repo.get("prefix")),
        ),
        pod_subnet=_scalar(networking.get("podSubnet")),
        kubernetes_version=_scalar(cluster.get("kubernetesVersion")),
        namespace=_scalar(meta.get("namespace")),
        install=base,
        spec=spec,
        config_path=key_path(base_path),
    )


def cluster_of(node: Mapping[str, Any]) -> str:
    """The cluster a BKENode names: its ``cluster.x-k8s.io/cluster-name`` label (as BKE's
    Cluster API provider labels them), else an ownerReference to a BKECluster; "" if none."""
    meta = node.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    labels = meta.get("labels")
    if isinstance(labels, Mapping) and labels.get(CLUSTER_LABEL):
        return _scalar(labels[CLUSTER_LABEL])
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("kind") == "BKECluster" and ref.get("name"):
            return _scalar(ref["name"])
    return ""


def load_nodes(path: str | Path) -> NodeInventory:
    """BKENode objects of ``path`` (multi-document or a List); the count drives Typha."""
    text, docs = documents(path)
    return _nodes_of(str(path), text, docs)


def _nodes_of(file: str, text: str, docs: Documents) -> NodeInventory:
    nodes: list[Node] = []
    seen: dict[str, int] = {}
    for index, prefix, doc in docs:
        kind = doc.get("kind")
        if kind in CLUSTER_KINDS:
            continue
        if kind != NODE_KIND:
            raise _at_kind(
                f"unexpected kind {kind!r}; expected BKENode objects", file, text, index, prefix
            )
        _check_shape(doc, text, file, index, prefix)
        name = str(doc["metadata"]["name"])
        if name in seen:
            raise InputError(
                f"BKENode {name!r} appears twice; each node must be listed once",
                file=file,
                line=locate(text, index, [*prefix, "metadata", "name"]),
                key=key_path([*prefix, "metadata", "name"]),
            )
        seen[name] = index
        spec = doc["spec"]
        nodes.append(
            Node(
                name=name,
                roles=tuple(spec["role"]),
                ip=_scalar(spec.get("ip")),
                hostname=_scalar(spec.get("hostname")),
                cluster=cluster_of(doc),
                namespace=_scalar(doc["metadata"].get("namespace")),
                port=_scalar(spec.get("port")),
                username=_scalar(spec.get("username")),
                password=_scalar(spec.get("password")),
            )
        )
    return NodeInventory(file, tuple(nodes))


# --- putting the inputs together -------------------------------------------------------


@dataclass(frozen=True)
class ClusterInputs:
    """What a BKECluster (and its BKENodes) mean for a render of one addon.

    ``addon`` is the BKECluster's entry for the addon rendered (Calico unless the caller
    names another), None when it lists none: then for Calico nothing Calico-specific
    applies, and another addon renders with no params of its own.
    """

    config: ClusterConfig
    addon: Addon | None
    version: VersionDir | None
    nodes: int | None
    notes: tuple[str, ...]
    user: dict[str, str]
    repo: str
    #: The BKENodes of the cluster (None: no nodes file), for the common parameters.
    inventory: NodeInventory | None = None


def resolve_inputs(
    config_path: str | Path,
    *,
    nodes_file: str | Path | None = None,
    nodes: int | None = None,
    root: Path | None = None,
    repo: str | None = None,
    check_version: bool = True,
    addon: str = CALICO,
    version: str | None = None,
) -> ClusterInputs:
    """Read ``config_path`` (and ``nodes_file``), apply the design's input rules for a
    render of ``addon`` (its entry at ``version`` when the BKECluster lists several).

    The BKENodes are ``nodes_file``'s, else those of the config's own stream (a create
    request of installer-service holds both), and a note says which counted; ``nodes``
    wins over either; ``repo`` over ``imageRepo``.
    """
    notes: list[str] = []
    everyone: NodeInventory | None
    if nodes_file is None:
        config, everyone = load_stream(config_path)
    else:
        config, everyone = load_config(config_path), load_nodes(nodes_file)
        held = _node_documents(config_path) if str(nodes_file) != str(config_path) else 0
        if held:
            notes.append(
                f"{config.file} holds {held} BKENode{'' if held == 1 else 's'} too; "
                + remedy("the BKENodes of {} ", "nodes_file")
                + f"{nodes_file} are the ones counted"
            )
    name = addon
    chosen = config.calico() if name == CALICO else config.addon(name, version)
    if chosen is None and name != CALICO and name not in CONTROLLER_INSTALLED:
        # the controller renders only an addon the BKECluster lists: render this one as
        # the BKECluster with it listed, without params, reads after admission
        config = with_addon(config, name)
        notes.append(
            f"{config.file} lists no addon named {name}: rendered as if it listed it without params"
        )
    inventory = everyone
    skipped = None
    if inventory is not None:
        if config.name:
            inventory, skipped = inventory.of_cluster(config.name, config.namespace)
            if skipped:
                notes.append(skipped)
        else:
            inventory = inventory.single_cluster()
    if everyone is not None and not everyone.count:
        notes.append(
            f"warning: {everyone.file} holds no BKENode objects: the controller renders "
            'with 0 nodes (masterReplicas "0", workerReplicas "0", Typha off)'
        )
    elif (
        chosen is not None
        and nodes is None
        and everyone is not None
        and inventory is not None
        and not inventory.count
    ):
        # Every node names another cluster: that count would describe a different cluster.
        found = ", ".join(f"{name} ({count})" for name, count in everyone.clusters.items())
        raise InputError(
            f"no BKENode of cluster {config.name!r}; the file's BKENodes belong to {found}",
            file=everyone.file,
        )
    if nodes is not None and inventory is not None and inventory.count != nodes:
        notes.append(
            remedy("{} ", "nodes")
            + f"{nodes} overrides the {inventory.count} BKENodes of {inventory.file}"
        )
    elif nodes is None and nodes_file is None and inventory is not None and not skipped:
        plural = "" if inventory.count == 1 else "s"
        notes.append(
            f"{config.file}: counted its own {inventory.count} BKENode{plural} "
            + remedy("({} wins when given)", "nodes_file")
        )
    count = nodes if nodes is not None else (inventory.count if inventory else None)
    config = admitted_config(config, inventory)
    chosen = config.calico() if name == CALICO else config.addon(name, version)  # admitted
    if chosen is None:
        what = ": no Calico images, no Typha parameters" if name == CALICO else ""
        notes.append(f"{config.file}: no addon named {name}{what}")
        return ClusterInputs(config, None, None, count, tuple(notes), {}, repo or "", inventory)
    vdir = None
    if check_version:
        key = f"{chosen.where}.version"
        vdir = require_version(chosen.version, root, file=config.file, key=key, addon=name)
    return ClusterInputs(
        config,
        chosen,
        vdir,
        count,
        tuple(notes),
        config.user_values(chosen),
        repo if repo is not None else config.repo,
        inventory,
    )


def with_addon(config: ClusterConfig, name: str) -> ClusterConfig:
    """``config`` listing one more addon, ``name``, without a version or params (the
    controller's context for an addon depends on its being listed: admission defaults
    its params, and the common parameters read the list)."""
    install = dict(config.install)
    listed = list(install.get("addons") or [])
    where = f"{config.config_path}.addons[{len(listed)}]"
    install["addons"] = [*listed, {"name": name}]
    added = Addon(name, "", {}, where, assumed=True)
    return replace(config, install=install, addons=(*config.addons, added))


def admitted_config(config: ClusterConfig, inventory: NodeInventory | None) -> ClusterConfig:
    """``config`` as the controller reads it, after BKE's admission webhook defaulted it
    (unless defaults are off: ``--no-admission-defaults``). The nodes give the control
    plane endpoint's default: the first master by name, as the API lists them."""
    if not admission.enabled():
        return config
    masters = sorted(
        (n for n in (inventory.nodes if inventory else ()) if n.is_master),
        key=lambda n: (n.roles.count("master") == 0, n.name),
    )
    result = admission.admit(
        config.install,
        config.spec if config.kind == "BKECluster" else {},
        where=config.config_path,
        master_ips=[n.ip for n in masters],
    )
    repo = result.install["cluster"]["imageRepo"]
    return replace(
        config,
        addons=_admitted_addons(config.addons, result.install.get("addons")),
        image_repo=ImageRepo(
            domain=_scalar(repo.get("domain")),
            ip=_scalar(repo.get("ip")),
            port=_scalar(repo.get("port")),
            prefix=_scalar(repo.get("prefix")),
        ),
        install=result.install,
        spec=result.spec if config.kind == "BKECluster" else config.spec,
        admitted=result.filled,
    )


def _admitted_addons(addons: tuple[Addon, ...], admitted: Any) -> tuple[Addon, ...]:
    """The addons with the params admission added (victoriametrics-controller's)."""
    if not isinstance(admitted, list) or len(admitted) != len(addons):
        return addons
    out = []
    for addon, raw in zip(addons, admitted, strict=True):
        params = raw.get("param") if isinstance(raw, dict) else None
        if isinstance(params, dict) and params.keys() - addon.params.keys():
            merged = {str(k): _scalar(v) for k, v in params.items()}
            addon = replace(addon, params={**merged, **addon.params})
        out.append(addon)
    return tuple(out)


def render_args(
    config: str | Path | None,
    nodes_file: str | Path | None,
    *,
    version: str | None,
    nodes: int | None,
    root: Path | None,
    repo: str | None,
) -> RenderArgs:
    """Merge ``--config``/``--nodes-file`` with ``--version``/``--nodes``/``--repo``."""
    if config is None:
        inventory = None
        if nodes_file is not None:
            inventory = load_nodes(nodes_file).single_cluster()
            if nodes is None:
                nodes = inventory.count
            if not inventory.count:
                notes = (
                    f"warning: {inventory.file} holds no BKENode objects: the controller "
                    "renders with 0 nodes (Typha off)",
                )
                return RenderArgs(version, nodes, repo, {}, notes, inventory=inventory)
        return RenderArgs(version, nodes, repo, {}, inventory=inventory)
    if version is not None:
        raise InputError("give a version or a config, not both", key="config")
    inputs = resolve_inputs(config, nodes_file=nodes_file, nodes=nodes, root=root, repo=repo)
    if inputs.addon is None or inputs.version is None:
        return RenderArgs(None, inputs.nodes, inputs.repo, {}, inputs.notes, skip=True)
    return RenderArgs(
        inputs.version.name,
        inputs.nodes,
        inputs.repo,
        inputs.user,
        inputs.notes,
        cluster=inputs,
        inventory=inputs.inventory,
    )
