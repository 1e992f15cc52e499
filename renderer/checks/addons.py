"""What the gate renders for an addon other than Calico: each file with the context BKE's
controller builds for it from a representative BKECluster, once per scenario.

The controller renders every addon through one code path (``pkg/kube/addon.go``), so an
addon's version is rendered as :func:`renderer.api.render_addon` renders it: each file
with its own context (common params from the BKECluster and its BKENodes, what the
controller adds by addon name, the addon's params per file, ``repo`` last), failures
collected file by file (the controller fails that file's apply, a review wants every
one). A scenario sets context values on top of every file's context (derived from the
templates' branches, :func:`renderer.checks.coverage.derive_addon`); its name is also
its golden directory. Calico keeps its own renders (:mod:`renderer.checks.renders`):
the gate's fixed context and the Typha decision of each scenario.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renderer.bke import context as bke_context
from renderer.bke import missing
from renderer.bke.cluster import resolve_inputs
from renderer.calico.scenarios import Scenario
from renderer.checks.coverage import scenario_context
from renderer.checks.stages import error_finding
from renderer.data.bundled import bundled_example
from renderer.engine.render import RenderedFile, render_each
from renderer.engine.sourcemap import SourceMap
from renderer.errors import CalicoRenderError
from renderer.finding import TEMPLATES, Finding
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.manifests.tree import VersionDir

#: The scenario every addon renders first: the representative BKECluster as it is.
CLUSTER_SCENARIO = "cluster"


@dataclass(frozen=True)
class AddonCluster:
    """What one addon version's renders start from: each file's context as the
    controller builds it, the cluster it was built from, and whether the BKECluster
    lists the addon (a key only a param sets is then the template's fault)."""

    contexts: bke_context.VersionContexts
    cluster: str
    nodes: int
    listed: bool
    notes: tuple[str, ...] = ()

    @property
    def base(self) -> Scenario:
        """The scenario of the cluster as given."""
        return Scenario(CLUSTER_SCENARIO, self.nodes)


def addon_cluster(version: VersionDir, root: Path | None, config: Path | None) -> AddonCluster:
    """The controller's contexts for ``version`` from ``config`` (by default the create
    request the package ships, read after admission); an addon the BKECluster does not
    list renders as if it listed it without params, as :meth:`Request.for_addon` does."""
    source = bundled_example() if config is None else config
    found = resolve_inputs(
        source,
        root=root,
        check_version=False,
        addon=version.addon,
        version=version.name,
    )
    inputs = bke_context.for_cluster(found, version.addon, version.name)
    contexts = bke_context.build(version, inputs, None)
    ns = f"{found.config.namespace}/" if found.config.namespace else ""
    listed = found.addon is not None and not found.addon.assumed
    nodes = found.nodes if found.nodes is not None else 0
    return AddonCluster(contexts, f"{ns}{found.config.name}", nodes, listed, inputs.notes)


@dataclass
class AddonRender:
    """One scenario's render of an addon version: the files that rendered (name below
    the version directory, text), their objects, and what failed or printed
    ``<no value>`` (findings located at the template line, file ``<version>/<file>``)."""

    files: list[tuple[str, str]]
    objects: list[K8sObject]
    context: Mapping[str, Any]
    findings: list[Finding] = field(default_factory=list)


class AddonRenders:
    """Renders of one addon version keyed by the scenario's values: each distinct one
    renders once, each distinct rendered file parses once (the CRDs of every scenario
    are one parse). The stages share them, as Calico's share :class:`Renders`."""

    def __init__(self, version: VersionDir, cluster: AddonCluster) -> None:
        self.version = version
        self.cluster = cluster
        self.base = {f.file: f.context for f in cluster.contexts.files if not f.verbatim}
        self._parsed: dict[tuple[str, str], list[K8sObject]] = {}
        self._maps: dict[tuple[str, str], SourceMap] = {}
        self._cache: dict[tuple[tuple[str, str | None], ...], AddonRender] = {}
        #: Values that changed the YAML a template wrote, over every render so far.
        self.injections: list[Finding] = []

    def contexts(self, overrides: Sequence[tuple[str, str | None]]) -> dict[str, dict[str, Any]]:
        """Each rendered file's context with a scenario's values set (None: unset)."""
        return {name: scenario_context(ctx, overrides) for name, ctx in self.base.items()}

    def get(self, overrides: Sequence[tuple[str, str | None]] = ()) -> AddonRender:
        key = tuple(overrides)
        if key not in self._cache:
            self._cache[key] = self._render(self.contexts(overrides))
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
            decoded.append(f)
        found += missing.no_value_reads(decoded, objects, vdir.addon, vdir.name, listed=listed)
        first = next(iter(contexts.values()), {})
        return AddonRender(files, objects, first, found)

    def _parse(self, name: str, text: str, lines: SourceMap | None) -> list[K8sObject]:
        key = (name, text)
        if lines is not None:
            self._maps.setdefault(key, lines)
        if key not in self._parsed:
            self._parsed[key] = parse_stream(text, name, lines=lines)
        return self._parsed[key]

    @property
    def parsed(self) -> Mapping[tuple[str, str], list[K8sObject]]:
        """Every rendered file parsed so far, keyed by (file name, text)."""
        return self._parsed

    @property
    def maps(self) -> Mapping[tuple[str, str], SourceMap]:
        """The source map of every rendered file so far, keyed as :attr:`parsed`."""
        return self._maps


def decision_record(scenario: Scenario, cluster: AddonCluster) -> dict[str, Any]:
    """What an addon's golden stores of a scenario (its ``decision.json``): the
    cluster its contexts were built from, its node count, and the values the scenario
    set on top (None: the key unset)."""
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
]
