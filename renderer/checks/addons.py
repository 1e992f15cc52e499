"""What the gate renders for an addon other than Calico: each file with the context BKE's
controller builds for it from a representative BKECluster, once per scenario.

The controller renders every addon through one code path (``pkg/kube/addon.go``), so an
addon's version is rendered as :func:`renderer.api.render_addon` renders it: each file
with its own context (common params from the BKECluster and its BKENodes, what the
controller adds by addon name, the addon's params per file, ``repo`` last), failures
collected file by file (the controller fails that file's apply, a review wants every
one). A scenario is the same cluster with other params for the addon (derived from the
templates' branches, :func:`renderer.checks.coverage.derive_addon`): each value it sets
is an addon param reaching every file, a value it unsets a param the cluster's entry
no longer has, so the controller's own rules still apply (cluster-api's ``manage``
brings the nodes and the token; params win over common ones; ``repo`` is the image
prefix, set last). Its name is also its golden directory. Calico keeps its own renders
(:mod:`renderer.checks.renders`): the gate's fixed context and each scenario's Typha
decision.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from renderer.bke import context as bke_context
from renderer.bke import missing
from renderer.bke.cluster import ClusterInputs, resolve_inputs
from renderer.calico.scenarios import REPO_KEY, Scenario
from renderer.checks.renders import ParsedFiles
from renderer.checks.stages import error_finding
from renderer.checks.validation import Crd, own_crds, schema_inputs
from renderer.data.bundled import bundled_example
from renderer.engine.render import RenderedFile, render_each
from renderer.errors import CalicoRenderError
from renderer.finding import TEMPLATES, Finding
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.manifests.tree import VersionDir, list_addons, list_versions

#: The scenario every addon renders first: the representative BKECluster as it is.
CLUSTER_SCENARIO = "cluster"
#: A scenario's values: (key, value), None for a key unset.
Values = Sequence[tuple[str, str | None]]


@dataclass(frozen=True)
class AddonCluster:
    """What one addon version's renders start from: the BKECluster and BKENodes read as
    the controller reads them (after admission), and the version they render."""

    found: ClusterInputs
    version: VersionDir

    @property
    def cluster(self) -> str:
        """The BKECluster as ``namespace/name``."""
        config = self.found.config
        return f"{config.namespace}/{config.name}" if config.namespace else config.name

    @property
    def nodes(self) -> int:
        return self.found.nodes if self.found.nodes is not None else 0

    @property
    def listed(self) -> bool:
        """Whether the BKECluster lists the addon (a key only its param sets is then the
        template's fault, not the cluster's)."""
        return self.found.addon is not None and not self.found.addon.assumed

    @property
    def base(self) -> Scenario:
        """The scenario of the cluster as given."""
        return Scenario(CLUSTER_SCENARIO, self.nodes)

    def contexts(self, values: Values = ()) -> bke_context.VersionContexts:
        """Each file's context as the controller builds it with the scenario's
        ``values`` as params of the BKECluster's entry for the addon (None: the param
        removed; ``repo``: the image prefix, which no param can set), so what the
        controller does by param (cluster-api's ``manage``) follows them."""
        found = self.found
        repo = next((v for k, v in values if k == REPO_KEY), None)
        given = [(k, v) for k, v in values if k != REPO_KEY]
        if given and found.addon is not None:  # the BKECluster's entry, as if it said so
            params = dict(found.addon.params)
            for key, value in given:
                if value is None:
                    params.pop(key, None)
                else:
                    params[key] = value
            found = replace(found, addon=replace(found.addon, params=params))
        addon, name = self.version.addon, self.version.name
        inputs = bke_context.for_cluster(found, addon, name, repo=repo)
        return bke_context.build(self.version, inputs, None)

    def rendered(self, values: Values = ()) -> dict[str, dict[str, Any]]:
        """The context of each file the controller renders (not those applied as they
        are), by name."""
        return {f.file: f.context for f in self.contexts(values).files if not f.verbatim}


def addon_cluster(version: VersionDir, root: Path | None, config: Path | None) -> AddonCluster:
    """The cluster ``version`` renders with: ``config`` (and the BKENodes its stream
    holds), by default the create request the package ships; an addon the BKECluster
    does not list renders as if it listed it without params, as
    :meth:`renderer.api.Request.for_addon` renders it."""
    source = bundled_example() if config is None else config
    found = resolve_inputs(
        source,
        root=root,
        check_version=False,
        addon=version.addon,
        version=version.name,
    )
    return AddonCluster(found, version)


@dataclass
class AddonRender:
    """One scenario's render of an addon version: the files that rendered (name below
    the version directory, text), their objects, and what failed or printed
    ``<no value>`` (findings located at the template line, file ``<version>/<file>``)."""

    files: list[tuple[str, str]]
    objects: list[K8sObject]
    context: Mapping[str, Any]
    findings: list[Finding] = field(default_factory=list)


class AddonRenders(ParsedFiles):
    """Renders of one addon version keyed by the scenario's values: each distinct one
    renders once, each distinct rendered file parses once (the CRDs of every scenario
    are one parse). The stages share them, as Calico's share
    :class:`~renderer.checks.renders.Renders`."""

    def __init__(self, version: VersionDir, cluster: AddonCluster) -> None:
        super().__init__()
        self.version = version
        self.cluster = cluster
        #: The cluster's own contexts (no scenario values).
        self.contexts = cluster.contexts()
        self._contexts: dict[tuple[tuple[str, str | None], ...], dict[str, dict[str, Any]]] = {
            (): {f.file: f.context for f in self.contexts.files if not f.verbatim}
        }
        self._cache: dict[tuple[tuple[str, str | None], ...], AddonRender] = {}
        #: Values that changed the YAML a template wrote, over every render so far.
        self.injections: list[Finding] = []

    def rendered(self, values: Values = ()) -> dict[str, dict[str, Any]]:
        """Each rendered file's context for a scenario's ``values`` (built once)."""
        key = tuple(values)
        if key not in self._contexts:
            self._contexts[key] = self.cluster.rendered(values)
        return self._contexts[key]

    def get(self, values: Values = ()) -> AddonRender:
        key = tuple(values)
        if key not in self._cache:
            self._cache[key] = self._render(self.rendered(values))
        return self._cache[key]

    def _render(self, contexts: dict[str, dict[str, Any]]) -> AddonRender:
        vdir = self.version
        rendered, failed = render_each(vdir, contexts)
        self.injections.extend(bke_context.injection_findings(rendered))
        listed = self.cluster.listed
        found: list[Finding] = []
        for name, error in failed.items():
            read = missing.failed_read(error, contexts[name], vdir.addon, vdir.name, listed=listed)
            found.append(read or error_finding(TEMPLATES, error))
        files: list[tuple[str, str]] = []
        objects: list[K8sObject] = []
        decoded: list[RenderedFile] = []
        for f in rendered:
            name = f.name.split("/", 1)[1]
            try:
                mine = self._parse(name, f.text, f.lines)
            except CalicoRenderError as exc:  # the controller fails this file's apply
                found.append(error_finding(TEMPLATES, exc))
                continue
            files.append((name, f.text))
            objects += mine
            decoded.append(replace(f, name=name))  # named as its objects are
        found += missing.no_value_reads(decoded, objects, vdir.addon, vdir.name, listed=listed)
        first = next(iter(contexts.values()), {})
        return AddonRender(files, objects, first, found)


def version_crds(
    version: VersionDir, root: Path | None, config: Path | None, kinds: Collection[tuple[str, str]]
) -> list[Crd]:
    """The CRDs (of ``kinds``) a version the check did not render holds, rendered with
    the cluster's context as the controller renders it: only its files that may hold
    one; a file that fails to render or decode gives none."""
    from renderer.k8s.crd import may_define  # only for a tree's custom resources

    chosen = tuple(tf for tf in version.files if may_define(tf.source, kinds))
    if not chosen:
        return []
    vdir = replace(version, files=chosen)
    contexts = addon_cluster(vdir, root, config).rendered()
    files, _ = render_each(vdir, contexts)
    where = f"kubernetes/{version.addon}/{version.name}/"
    out: list[Crd] = []
    for f in files:
        name = f.name.split("/", 1)[1]
        try:
            objects = parse_stream(f.text, name, lines=f.lines)
        except CalicoRenderError:
            continue
        inputs = schema_inputs([("", objects)])
        out += own_crds(inputs, where)
    return out


def tree_crds(
    root: Path | None,
    config: Path | None,
    kinds: Collection[tuple[str, str]],
    skip: Collection[str] = (),
) -> list[Crd]:
    """The CRDs (of ``kinds``) every addon of the tree renders but those of ``skip``:
    addons by name, each one's versions newest first (a resource invalid against every
    one is reported against the newest); a version without a context for the cluster
    gives none."""
    out: list[Crd] = []
    for addon in list_addons(root):
        if addon in skip:
            continue
        for version in reversed(list_versions(root, addon)):
            try:
                out += version_crds(version, root, config, kinds)
            except CalicoRenderError:
                continue
    return out


def decision_record(scenario: Scenario, cluster: AddonCluster) -> dict[str, Any]:
    """What an addon's golden stores of a scenario (its ``decision.json``): the
    cluster its contexts were built from, its node count, and the params the scenario
    gave the addon on top (None: the cluster's param removed)."""
    record: dict[str, Any] = {
        "scenario": scenario.name,
        "cluster": cluster.cluster,
        "nodes": cluster.nodes,
    }
    if scenario.values:
        record["values"] = dict(scenario.values)
    return record


__all__ = [
    "CLUSTER_SCENARIO",
    "AddonCluster",
    "AddonRender",
    "AddonRenders",
    "addon_cluster",
    "decision_record",
    "tree_crds",
    "version_crds",
]
