"""The render verb: a request rendered as BKE's controller renders it, and everything
found wrong with what it renders, in one :class:`~renderer.api.results.RenderResult`.

The steps go down the pipeline once: route (the Typha policy, with the version's
capability verdict above 50 nodes) -> each file's context by the controller's rules
-> render -> parse -> the checks of the rendered objects (scalars the controller reads
otherwise than YAML 1.2, duplicates, strict schemas, the scale advice for a configured
cluster) -> the result. The command line prints that
result and exits with its :attr:`~renderer.api.results.RenderResult.exit_code`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from renderer.api.request import Request
from renderer.api.results import RenderResult
from renderer.bke import context as bke_context
from renderer.bke import missing, unread
from renderer.bke.typha import search as controller_search
from renderer.bke.values import check_context
from renderer.calico import policy
from renderer.calico.rules import RuleInput, generic_rules, run_rules
from renderer.checks import exceptions as excepts
from renderer.checks.verdict import controller_disagreement, readiness_warning, typha_capability
from renderer.engine import limits
from renderer.engine.render import (
    RenderedFile,
    render_version,
    version_nested_keys,
    version_nested_lines,
)
from renderer.errors import InputError, RefusedError
from renderer.finding import Finding, merge_findings
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.k8s.readings import reading_findings
from renderer.manifests.tree import VersionDir, tree_path

if TYPE_CHECKING:
    from renderer.api.verbs.crds import CrdSource


def render(request: Request, *, crds: CrdSource | None = None) -> RenderResult:
    """Route, build each file's context, render the request's version for its nodes and
    check what it renders. Custom resources are checked against the render's own CRDs,
    then those ``crds`` gives for the kinds it lacks (by default the tree's:
    :func:`renderer.api.verbs.crds.schema_findings`).

    Raises :class:`~renderer.errors.RefusedError` (exit 3) when a first install above
    50 nodes targets a version that is not Typha-capable: nothing is rendered then; and
    :class:`~renderer.errors.InputError` (exit 2) for a strict request whose params
    change nothing or take none of the branches the templates compare them with.
    """
    vdir = request.version
    route = plan_route(vdir, request.node_count, request.operation, request.controller)
    if route.refused:
        raise RefusedError(route.message, key="nodes", argument="nodes", value=request.nodes)
    inputs = request.inputs
    contexts = file_contexts(vdir, inputs, route.decision)
    given = given_warnings(request, vdir)
    warnings = [
        *policy.overridden_keys(bke_context.typha_params(inputs.params), route.decision),
        *contexts.warnings,
        *route.warnings,
    ]
    found: list[Finding] = []
    if policy.decide_typha(request.node_count).allow_typha:  # routing judged capability
        # judged with the tree's reviewed exceptions, as capability and check judge it
        reviewed = excepts.load(excepts.find_file(request.root, None)).items
        readiness = readiness_warning(vdir, reviewed)
        if readiness and route.decision.allow_typha:
            warnings.append(f"{readiness}; see calico-render capability --version {vdir.name}")
        found += controller_disagreement(vdir)
    files = tuple(render_version(vdir, {}, contexts.contexts()))
    found += [*unreachable_reads(vdir, contexts, files), *bke_context.injection_findings(files)]
    objects: tuple[K8sObject, ...] = ()
    if not any(f.severity == "error" for f in found):  # the YAML is what the templates wrote
        objects = tuple(parse_rendered(files))
        if request.cluster is not None:  # a BKECluster's render: what production applies
            listed = request.cluster.addon is not None
            found += missing.no_value_reads(files, objects, vdir.addon, vdir.name, listed=listed)
        found += reading_findings(objects)
        found += duplicate_objects(vdir, objects, contexts)
        if request.kube_versions:
            found += schema_findings(request, objects, crds)
        if request.cluster is not None and request.node_count:  # a real cluster's limits
            # the scale advice and its tables load for a configured cluster's render only
            from renderer.api.verbs.scale import scale_warnings

            found += scale_warnings(request, objects, contexts)
    rendered = [f.context for f in contexts.files if not f.verbatim]
    return RenderResult(
        vdir,
        files,
        rendered[0] if rendered else {},
        route,
        contexts,
        warnings=tuple(warnings),
        param_warnings=given,
        findings=tuple(located(vdir, found)),
        objects=objects,
        kube_versions=request.kube_versions,
        notes=(
            *request.notes,
            *((request.kube_note,) if request.kube_note else ()),
            *_dedicated(request),
        ),
    )


def schema_findings(
    request: Request, objects: Sequence[K8sObject], crds: CrdSource | None = None
) -> list[Finding]:
    """The strict schema findings of a render's objects on the request's Kubernetes
    versions, custom resources checked against the render's own CRDs, then those
    ``crds`` gives for the kinds the render lacks (by default the tree's:
    :mod:`renderer.api.verbs.crds`); a custom resource no CRD checks is an error for a
    strict request."""
    lacking = kubeschema.custom_kinds(objects, request.kube_versions)
    lacking -= kubeschema.defined_kinds(objects)
    extra = None
    if lacking:
        if crds is None:  # here: a render whose custom resources it defines never looks
            from renderer.api.verbs.crds import tree_source

            crds = tree_source(request.root)
        extra = crds(lacking)
    found = kubeschema.SchemaValidator(request.kube_versions, crds=extra).validate_all(objects)
    if request.strict:
        found = kubeschema.strict_unchecked(found)
    return merge_findings(found)


def plan_route(
    version: VersionDir, nodes: int, operation: str = "install", controller: bool = False
) -> policy.Route:
    """Route a request; capability is only assessed when the node count needs Typha:
    from what the templates render, or (``controller``) by BKE's controller's text
    search, as production routes it."""
    capable = True
    lacks: tuple[str, ...] = ()
    if not policy.decide_typha(nodes).allow_typha:
        pass
    elif controller:
        found = controller_search(version)
        capable, lacks = found.capable, tuple(f"the string {m!r}" for m in found.missing)
    else:
        capable, lacks = typha_capability(version)
    return policy.route(nodes, capable, operation, version=version.name, missing=lacks)


def file_contexts(
    vdir: VersionDir, inputs: bke_context.ContextInputs, decision: policy.TyphaDecision
) -> bke_context.VersionContexts:
    """Each file's context by the controller's rules, each checked against the render
    context's schema (bad input names the key)."""
    contexts = bke_context.build(vdir, inputs, decision.context(), typha_reason=decision.reason)
    passed: list[dict[str, Any]] = []
    for f in contexts.files:
        if f.verbatim:
            continue
        context = f.context
        if any(context == done for done in passed):  # files mostly share one context
            continue
        check_context(context, file=f"render context of {f.file}")
        passed.append(context)
    return contexts


def given_warnings(request: Request, vdir: VersionDir) -> tuple[unread.ParamWarning, ...]:
    """The request's params that ``vdir`` (the request's version, or the files of it that
    rendered) never reads or branches on; for a strict request, an InputError."""
    given = tuple(unread.inputs_warnings(vdir, request.inputs))
    if request.strict and given:
        keys = ", ".join(sorted({w.key for w in given}))
        raise InputError(
            f"{len(given)} given param(s) change nothing or take no branch: {keys}",
            key="strict",
            argument="strict",
        )
    return given


def param_warnings(request: Request) -> list[unread.ParamWarning]:
    """User-given params of the request that its version never reads or branches on."""
    return unread.inputs_warnings(request.version, request.inputs)


def _dedicated(request: Request) -> tuple[str, ...]:
    """A note when BKENodes that may run no calico-node count for Typha all the same."""
    inventory = request.inventory
    if inventory is None or not inventory.dedicated:
        return ()
    return (
        f"{inventory.dedicated} of {inventory.count} BKENodes are dedicated etcd/"
        "control-plane nodes without the node/master roles (they may run no calico-node; "
        "the controller counts every BKENode for Typha)",
    )


def set_render_timeout(seconds: float) -> None:
    """The wall-clock limit of one template render, for this process."""
    limits.set_render_timeout(seconds)


def located(vdir: VersionDir, found: Iterable[Finding]) -> list[Finding]:
    """Findings located relative to ROOT (``kubernetes/<addon>/<version>/<file>``), as
    every finding is, so CI annotates the line of the merge request."""
    names = [f.name for f in vdir.files]
    return [replace(f, file=tree_path(vdir.name, names, f.file, vdir.addon)) for f in found]


def duplicate_objects(
    vdir: VersionDir, objects: Sequence[K8sObject], contexts: bke_context.VersionContexts
) -> list[Finding]:
    """``duplicate-object`` findings: an object rendered twice (kind, namespace, name)
    is applied once, the last; the first never takes effect (a repeat differing at most
    in labels and annotations is a ``duplicate-object-metadata`` warning)."""
    first = next((f.context for f in contexts.files if not f.verbatim), {})
    return run_rules(RuleInput(objects, vdir.name, first), generic_rules())


def unreachable_reads(
    vdir: VersionDir, contexts: bke_context.VersionContexts, files: Sequence[RenderedFile]
) -> list[Finding]:
    """``context-unreachable-key`` warnings for keys read as maps that no config can set,
    where this render printed ``<no value>`` for one (``ipModVersion: ipv6`` without
    ``ClusterCidr``): what the controller renders, said, never refused."""
    printed = {f.name.split("/", 1)[1] for f in files if "<no value>" in f.text}
    if not printed:
        return []
    nested = version_nested_keys(vdir)
    if not nested:
        return []
    given = contexts.contexts()
    missing = {
        name: [k for k in keys if k not in given.get(name, {})]
        for name, keys in nested.items()
        if name in printed
    }
    return [
        replace(f, file=f"{vdir.name}/{f.file}")
        for f in bke_context.unreachable_keys(missing, version_nested_lines(vdir))
    ]
