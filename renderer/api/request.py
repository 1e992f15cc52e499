"""One request: what render, advise, explain-context, images and plan are asked for,
built and validated once.

A :class:`Request` holds a resolved version, a node count, the context's sources (a
config's or the defaults, then the user's values) and how the render is checked. It is
frozen: every verb reads the same request, and nothing validates it again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from renderer.bke import context as bke_context
from renderer.bke.args import RenderArgs
from renderer.bke.cluster import (
    ClusterInputs,
    NodeInventory,
    render_args,
    require_version,
    resolve_inputs,
)
from renderer.bke.values import read_user_values
from renderer.calico import policy
from renderer.data.bundled import bundled_example
from renderer.errors import InputError
from renderer.k8s.schema import resolve_kube_versions, shipped_versions
from renderer.manifests.tree import VersionDir, check_addon, resolve_version


def check_nodes(nodes: object, key: str = "nodes") -> int:
    """A node count as the policy takes it: a non-negative int (not a bool; 0 is a
    cluster without BKENodes, which the controller renders), else InputError."""
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 0:
        raise InputError(
            f"the node count must be a non-negative integer, got {nodes!r}",
            key=key,
            argument=key,
            value=nodes,
        )
    return nodes


def check_operation(operation: object) -> str:
    """One of :data:`renderer.calico.policy.OPERATIONS`, else InputError."""
    if operation not in policy.OPERATIONS:
        raise InputError(
            f"the operation must be one of {', '.join(policy.OPERATIONS)}, got {operation!r}",
            key="operation",
            argument="operation",
            value=operation,
        )
    return str(operation)


def cluster_args(
    config: str | Path | None,
    nodes_file: str | Path | None = None,
    *,
    version: str | None = None,
    nodes: int | None = None,
    root: Path | None = None,
    repo: str | None = None,
) -> RenderArgs:
    """What a BKECluster/BKEConfig and its BKENodes give a request (version, node count,
    notes; ``skip`` for a cluster without Calico), the explicit ``version``/``nodes``
    otherwise (or winning)."""
    if config is None and nodes_file is None:
        return RenderArgs(version, nodes, repo, {})
    return render_args(config, nodes_file, version=version, nodes=nodes, root=root, repo=repo)


def cluster_inputs(
    config: str | Path,
    *,
    nodes_file: str | Path | None = None,
    nodes: int | None = None,
    root: Path | None = None,
    repo: str | None = None,
    check_version: bool = True,
) -> ClusterInputs:
    """What a BKECluster/BKEConfig (and its BKENodes) give a request, read once."""
    return resolve_inputs(
        config,
        nodes_file=nodes_file,
        nodes=nodes,
        root=root,
        repo=repo,
        check_version=check_version,
    )


@dataclass(frozen=True, slots=True)
class KubeVersions:
    """The Kubernetes versions a render is schema-checked against, and a note saying
    why when they are the config's own minor (see :func:`kube_versions`)."""

    versions: tuple[str, ...]
    note: str = ""


def kube_versions(requested: Sequence[str] = (), cluster: RenderArgs | None = None) -> KubeVersions:
    """The requested Kubernetes versions (checked), else the newest shipped, or the
    config's own ``kubernetesVersion`` minor (only when none is requested)."""
    kube = resolve_kube_versions(requested)
    found = cluster.cluster if cluster is not None else None
    cluster_kube = found.config.kubernetes_version if found is not None else ""
    if kube and not requested and cluster_kube:
        chosen, why = bke_context.kube_version_for(cluster_kube, shipped_versions())
        if chosen is not None:
            return KubeVersions((chosen,), why)
    return KubeVersions(kube)


@dataclass(frozen=True, slots=True)
class UserValues:
    """What a caller gives a request beside a config: a mapping (maps nested), a values
    file and ``KEY=VALUE`` settings, read once, as addon params on top of the config's."""

    params: tuple[bke_context.Param, ...]
    nested: Mapping[str, bke_context.Entry]
    given: Mapping[str, Any]
    warnings: tuple[str, ...]

    @classmethod
    def read(
        cls,
        values: Mapping[str, Any] | None,
        values_file: str | Path | None,
        sets: Sequence[str],
    ) -> UserValues:
        warnings: list[str] = []
        user = read_user_values(values_file, tuple(sets), warnings)
        own_params, own_nested = bke_context.from_mapping(dict(values or {}))
        return cls(
            (*own_params, *user.params),
            {**own_nested, **user.nested},
            {**dict(values or {}), **user.given},
            tuple(warnings),
        )


@dataclass(frozen=True, slots=True)
class Request:
    """A validated request (build it with :meth:`of` or :meth:`from_config`).

    ``nodes`` is None only for a request that needs no node count (images); ``given``
    is what the user asked for by key (values file, settings, or a caller's mapping),
    which says where a value came from; ``kube_versions`` are the Kubernetes versions a
    render is schema-checked against (empty: not checked), ``kube_note`` says why when
    they were chosen from the config's ``kubernetesVersion``.
    """

    version: VersionDir
    nodes: int | None
    inputs: bke_context.ContextInputs
    root: Path | None = None
    operation: str = "install"
    repo: str | None = None
    given: Mapping[str, Any] = field(default_factory=dict)
    kube_versions: tuple[str, ...] = ()
    kube_note: str = ""
    strict: bool = False
    #: The config's inputs (None: no config) and the BKENodes given (with or without one).
    cluster: ClusterInputs | None = None
    inventory: NodeInventory | None = None
    notes: tuple[str, ...] = ()
    #: Render as BKE's controller does: Typha from its text search of the templates
    #: (:mod:`renderer.bke.typha`), not from what they render. A config's request is one.
    controller: bool = False

    @classmethod
    def of(
        cls,
        version: str | VersionDir,
        nodes: int | None = None,
        *,
        root: Path | None = None,
        values: Mapping[str, Any] | None = None,
        values_file: str | Path | None = None,
        sets: Sequence[str] = (),
        repo: str | None = None,
        operation: str = "install",
        kube: KubeVersions | Sequence[str] | None = None,
        strict: bool = False,
        cluster: RenderArgs | None = None,
        controller: bool | None = None,
    ) -> Request:
        """Check and resolve a request, in the order a user reads the errors: the
        Kubernetes versions ``kube`` (None: no schema check; empty: the newest shipped,
        or the config's own minor; see :func:`kube_versions`), the values (``values`` a
        caller's mapping, maps nested; ``values_file`` read once, ``-`` stdin; ``sets``
        ``KEY=VALUE``, or ``F.KEY=VALUE`` for file F), the node count, the operation,
        then the version under ``root``.
        ``cluster`` is a config's (see :func:`cluster_args`); ``repo`` wins over its
        imageRepo. ``controller``: decide Typha as BKE's controller does (None: when a
        config is given, since its render stands for what production applies)."""
        if kube is not None and not isinstance(kube, KubeVersions):
            kube = kube_versions(tuple(kube), cluster)
        user = UserValues.read(values, values_file, sets)
        if nodes is not None:
            check_nodes(nodes)
        check_operation(operation)
        vdir = version if isinstance(version, VersionDir) else resolve_version(version, root)
        inputs = _context_inputs(cluster, repo, user.params, user.nested)
        inputs = replace(inputs, warnings=(*user.warnings, *inputs.warnings))
        return cls(
            vdir,
            nodes,
            inputs,
            root=root,
            operation=operation,
            repo=repo,
            given=user.given,
            kube_versions=kube.versions if kube is not None else (),
            kube_note=kube.note if kube is not None else "",
            strict=strict,
            cluster=cluster.cluster if cluster is not None else None,
            inventory=cluster.inventory if cluster is not None else None,
            notes=cluster.notes if cluster is not None else (),
            controller=(cluster is not None and cluster.cluster is not None)
            if controller is None
            else controller,
        )

    @classmethod
    def from_config(
        cls,
        config: str | Path,
        *,
        nodes_file: str | Path | None = None,
        nodes: int | None = None,
        root: Path | None = None,
        repo: str | None = None,
        **options: Any,
    ) -> Request:
        """A request for a BKECluster/BKEConfig's calico addon (its version, params and
        image prefix) and its BKENodes (``nodes`` wins); ``options`` as for :meth:`of`.
        A config without a calico addon is an InputError (argument ``config``)."""
        args = cluster_args(config, nodes_file, version=None, nodes=nodes, root=root, repo=repo)
        if args.skip or args.version is None:
            raise InputError(
                "no addon named calico: nothing to render",
                file=str(config),
                argument="config",
                value=str(config),
            )
        return cls.of(args.version, args.nodes, root=root, repo=repo, cluster=args, **options)

    @classmethod
    def for_addon(
        cls,
        addon: str,
        version: str | VersionDir | None = None,
        *,
        config: str | Path | None = None,
        nodes_file: str | Path | None = None,
        nodes: int | None = None,
        root: Path | None = None,
        repo: str | None = None,
        values: Mapping[str, Any] | None = None,
        values_file: str | Path | None = None,
        sets: Sequence[str] = (),
        operation: str = "install",
        kube: KubeVersions | Sequence[str] | None = None,
        strict: bool = False,
    ) -> Request:
        """A request for one addon of the tree (``kubernetes/<addon>/<version>/``) with
        the context BKE's controller builds for it from a BKECluster and its BKENodes:
        ``config`` (and ``nodes_file``; ``nodes`` wins over their count), by default the
        representative create request the package ships (:func:`default_config`).

        ``version`` is a directory of the addon (``vMAJOR.MINOR`` names the newest
        patch); None takes the version the BKECluster lists, which must name a directory
        exactly (the controller joins it into a path). The addon's params are the
        BKECluster's entry for it (none when it lists none), then ``values``,
        ``values_file`` and ``sets`` as for :meth:`of`. Calico's request decides Typha
        as the controller does (its text search), like :meth:`from_config`'s."""
        check_addon(addon)
        user = UserValues.read(values, values_file, sets)
        if nodes is not None:
            check_nodes(nodes)
        check_operation(operation)
        source = default_config() if config is None else config
        found = resolve_inputs(
            source,
            nodes_file=nodes_file,
            nodes=nodes,
            root=root,
            repo=repo,
            check_version=False,
            addon=addon,
            version=version.name if isinstance(version, VersionDir) else version,
        )
        vdir = _addon_version(addon, version, found, root)
        if kube is not None and not isinstance(kube, KubeVersions):
            config_args = RenderArgs(vdir.name, found.nodes, repo, {}, cluster=found)
            kube = kube_versions(tuple(kube), config_args)
        inputs = bke_context.for_cluster(
            found, addon, vdir.name, repo=repo, params=user.params, nested=user.nested
        )
        inputs = replace(inputs, warnings=(*user.warnings, *inputs.warnings))
        return cls(
            vdir,
            found.nodes,
            inputs,
            root=root,
            operation=operation,
            repo=repo,
            given=user.given,
            kube_versions=kube.versions if kube is not None else (),
            kube_note=kube.note if kube is not None else "",
            strict=strict,
            cluster=found,
            inventory=found.inventory,
            notes=(*found.notes, *inputs.notes),
            controller=True,
        )

    @property
    def addon(self) -> str:
        """The addon whose version this request renders (``calico`` unless named)."""
        return self.version.addon

    @property
    def node_count(self) -> int:
        """The node count a render needs (checked by :meth:`of`; an InputError naming
        ``nodes`` when the request has none)."""
        if self.nodes is None:
            return check_nodes(None)  # raises
        return self.nodes

    @property
    def config_values(self) -> dict[str, str]:
        """The config's addon params (empty without a config)."""
        return dict(self.cluster.user) if self.cluster is not None else {}


def default_config() -> Path:
    """The BKECluster an addon renders with when the caller gives none: installer-service's
    create request for a three-node cluster, with the five addons it lists."""
    return bundled_example()


def _addon_version(
    addon: str, version: str | VersionDir | None, found: ClusterInputs, root: Path | None
) -> VersionDir:
    """The version directory a request for ``addon`` renders: the one given, else the
    one the BKECluster lists, exactly (the controller's path); neither is bad input."""
    if isinstance(version, VersionDir):
        if version.addon != addon:
            raise InputError(
                f"the version directory is {version.addon}'s, not {addon}'s",
                key="version",
                argument="version",
                value=version.name,
            )
        return version
    if version is not None:
        return resolve_version(version, root, addon)
    listed = found.addon
    if listed is None or listed.assumed or not listed.version.strip():
        what = "gives no version for" if listed and not listed.assumed else "lists no addon named"
        raise InputError(
            f"{found.config.file} {what} {addon}: give the version to render",
            file=found.config.file,
            key="version",
            argument="version",
        )
    return require_version(
        listed.version,
        root,
        file=found.config.file,
        key=f"{listed.where}.version",
        addon=addon,
    )


def _context_inputs(
    cluster: RenderArgs | None,
    repo: str | None,
    params: Sequence[Any],
    nested: Mapping[str, Any],
) -> bke_context.ContextInputs:
    """The context's sources: the config's (``repo`` wins over its imageRepo) or the
    defaults, then the user's values as addon params."""
    found = cluster.cluster if cluster is not None else None
    if found is None or found.addon is None:
        return bke_context.without_config(repo=repo, params=params, nested=nested)
    nodes = found.inventory.nodes if found.inventory is not None else None
    return bke_context.for_config(
        found.config, found.addon, nodes, repo=repo, params=params, nested=nested
    )
