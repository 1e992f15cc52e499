"""Library API: the whole render pipeline for callers such as installer-service.

The CLI is a thin layer over these functions; they raise :mod:`renderer.errors`
exceptions (with structured remedies: argument, value, hint) and never print. Render,
advise, explain-context, images and plan take one :class:`Request`
(:mod:`renderer.api.request`), built and validated once. The engines, BKE's context
rules and the advice are imported inside the functions that use them: a command that
only validates files or decides Typha starts without loading them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renderer.api.request import Request, check_nodes, check_operation, cluster_args
from renderer.api.results import RenderCheck, RenderResult
from renderer.calico import names, policy
from renderer.checks.verdict import typha_capability
from renderer.data import schemas
from renderer.data.schemas import validate_output
from renderer.errors import CalicoRenderError, InputError, RefusedError
from renderer.finding import Finding
from renderer.k8s.parse import K8sObject, noting_json, parse_rendered, parse_stream
from renderer.k8s.schema import SchemaValidator, resolve_kube_versions
from renderer.k8s.schema import prepare as prepare_schemas
from renderer.manifests.tree import VersionDir, resolve_version, tree_label
from renderer.store import contain

if TYPE_CHECKING:
    from renderer.api.verb_results import (
        ExplainResult,
        Imported,
        PlanResult,
        TyphaResult,
        Validation,
        VersionEntry,
        VersionsResult,
    )
    from renderer.bke import context as bke_context
    from renderer.bke import unread
    from renderer.calico import images as images_mod
    from renderer.calico import importer, scale
    from renderer.calico import plan as plan_mod
    from renderer.checks import verdict as verdict_mod
    from renderer.checks.catalogue import RuleInfo
    from renderer.checks.options import CheckOptions
    from renderer.checks.registry import ImageUse, RegistryReport
    from renderer.checks.report import CheckReport, ReleaseReport, VersionResult
    from renderer.engine.render import RenderedFile
    from renderer.oci.client import Settings as RegistrySettings


def validate_render(result: RenderResult, kube_versions: Sequence[str] = ()) -> RenderCheck:
    """Schema-check a render (strict) before anything is written.

    The policy: a render with any error finding is not written (exit 1); findings that
    are not errors (custom resources not checked) are reported and do not block.
    ``kube_versions`` empty means the default (newest shipped) versions.
    """
    if isinstance(result, _RenderedAhead):
        checked = result.checked(kube_versions)
        if checked is not None:
            return checked
    return _render_check(result, result.objects, kube_versions)


def _render_check(
    result: RenderResult, objects: Sequence[K8sObject], kube_versions: Sequence[str]
) -> RenderCheck:
    """:func:`validate_render` of the render's ``objects``."""
    from renderer.manifests.tree import tree_path

    kube, found = schema_check(objects, kube_versions)
    v = result.version
    names = [f.name for f in v.files]
    return RenderCheck(
        kube, tuple(replace(f, file=tree_path(v.name, names, f.file)) for f in found)
    )


def duplicate_findings(result: RenderResult) -> list[Finding]:
    """``duplicate-object`` findings of a render: an object rendered twice (kind,
    namespace, name) is applied once, the last; the first never takes effect."""
    return _duplicates(result, result.objects)


def _duplicates(result: RenderResult, objects: Sequence[K8sObject]) -> list[Finding]:
    """:func:`duplicate_findings` of the render's ``objects``."""
    from renderer.calico.rules import REGISTRY, RuleInput
    from renderer.manifests.tree import tree_path

    data = RuleInput(objects, result.version.name, result.context)
    v = result.version
    names = [f.name for f in v.files]
    return [  # located relative to ROOT, as every finding is
        replace(f, file=tree_path(v.name, names, f.file))
        for f in REGISTRY["duplicate-object"].run(data)
    ]


def schema_check(
    objects: Sequence[K8sObject], kube_versions: Sequence[str] = ()
) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """Strict schema findings of rendered objects, as (Kubernetes versions, findings),
    sorted by version, file and line: what ``validate`` and a render's check report."""
    validator = SchemaValidator(kube_versions)
    return validator.kube_versions, tuple(validator.validate_all(objects))


def plan_route(version: VersionDir, nodes: int, operation: str = "install") -> policy.Route:
    """Route a request; capability is only assessed when the node count needs Typha."""
    if policy.decide_typha(nodes).allow_typha:
        capable, missing = typha_capability(version)
    else:
        capable, missing = True, ()
    return policy.route(nodes, capable, operation, version=version.name, missing=missing)


def file_contexts(
    vdir: VersionDir, inputs: bke_context.ContextInputs, decision: policy.TyphaDecision
) -> bke_context.VersionContexts:
    """Each file's context by the controller's rules, validated like a single context."""
    from renderer.bke import context as bke_context
    from renderer.bke.values import check_context

    contexts = bke_context.build(vdir, inputs, decision.context(), typha_reason=decision.reason)
    passed: list[dict[str, Any]] = []
    for f in contexts.files:
        if f.verbatim:
            continue
        context = f.context
        # files of one version mostly get equal contexts: one that equals a context that
        # passed passes too (200,000 values keys were checked once per file)
        if any(context == done for done in passed):
            continue
        check_context(context, file=f"render context of {f.file}")
        passed.append(context)
    return contexts


def render(request: Request) -> RenderResult:
    """Route, build each file's context and render the request's version for its nodes.

    Raises RefusedError when a first install above 50 nodes targets a version that is
    not Typha-capable; nothing is rendered then.
    """
    vdir = request.version
    if policy.decide_typha(request.node_count).allow_typha:
        from renderer.checks import verdict

        aside = verdict.judge_aside(vdir)
        if aside is not None:
            return _render_aside(request, aside)
    return _render_in_turn(request, plan_route(vdir, request.node_count, request.operation))


def _render_aside(request: Request, aside: verdict_mod.Aside) -> RenderResult:
    """:func:`render` while the verdict is judged in a forked child: the render, its
    objects and their schema check are done for the route of a capable version (the
    likely one), holding what they would write to the cache. The same route once the
    verdict is in: the render is the answer, with its objects and check for the caller
    (:class:`_RenderedAhead`), and the held entries are written as the same work done
    in turn would write them. Another route, or any failure: that work is dropped and
    :func:`render`'s own steps follow, in turn, so errors and their wording are the
    same."""
    from renderer.store import cache

    vdir, nodes, operation = request.version, request.node_count, request.operation
    held, parsed, checked = cache.Held(), cache.Held(), cache.Held()
    guess: policy.Route | None = None
    result: RenderResult | None = None
    ahead: _Ahead | None = None
    try:
        guess = policy.route(nodes, True, operation, version=vdir.name)
        with cache.holding(held):
            result = _render_routed(request, guess)
        # what a render that is not written (a value changed the YAML, an object is
        # rendered twice) is not asked for is not done: its inputs would be the run's
        if not any(f.severity == "error" for f in result.findings):
            _prepare(request, result)  # while the child parses the documents both share
            # nothing changes the objects before they are checked: their JSON is kept
            with noting_json():
                with cache.holding(parsed):
                    objects = tuple(parse_rendered(result.files))
                check = None
                if request.kube_versions and not _duplicates(result, objects):
                    with cache.holding(checked):
                        check = _render_check(result, objects, request.kube_versions)
            ahead = _Ahead(objects, parsed, request.kube_versions, check, checked)
    except Exception:  # redone in turn, where it raises as it would have
        result = None
    except BaseException:
        aside.close()
        raise
    judged = aside.result()
    if judged is not None:
        aside.keep(judged)
    try:
        route = plan_route(vdir, nodes, operation)  # judges in turn when the child failed
    except BaseException:
        _drop_ahead(held, parsed, checked)
        raise
    if result is not None and route == guess:
        held.write()
        return result if ahead is None else _RenderedAhead.of(result, ahead)
    _drop_ahead(held, parsed, checked)
    return _render_in_turn(request, route)


def _drop_ahead(*holds: Any) -> None:
    """Forget work done ahead, and the parses it kept in memory: their cache entries
    were not written, so a parse of the same text must be done (and written) again."""
    from renderer.store.memo import memos

    for held in holds:
        held.drop()
    memos()["k8s.parse.texts"].clear()


@dataclass(frozen=True)
class _Ahead:
    """A render's objects and schema check done ahead, and their held cache entries."""

    objects: tuple[K8sObject, ...]
    parsed: Any  # store.cache.Held
    kube_versions: tuple[str, ...]
    check: RenderCheck | None
    checked: Any  # store.cache.Held


class _RenderedAhead(RenderResult):
    """A render done while its verdict was judged aside (:func:`_render_aside`): its
    objects and their schema check are handed over as :attr:`RenderResult.objects` and
    :func:`validate_render` would compute them, and their cache entries are written
    when first asked for, as that work would have written them."""

    @classmethod
    def of(cls, result: RenderResult, ahead: _Ahead) -> _RenderedAhead:
        done = cls(**{f.name: getattr(result, f.name) for f in fields(result)})
        done.__dict__["_ahead"] = ahead
        return done

    @cached_property
    def objects(self) -> tuple[K8sObject, ...]:
        ahead: _Ahead = self.__dict__["_ahead"]
        ahead.parsed.write()
        return ahead.objects

    def checked(self, kube_versions: Sequence[str]) -> RenderCheck | None:
        """The schema check done ahead for ``kube_versions``, or None."""
        ahead: _Ahead = self.__dict__["_ahead"]
        if ahead.check is None or tuple(kube_versions) != ahead.kube_versions:
            return None
        self.objects  # noqa: B018  # parsed to be checked: the parse's entries too
        ahead.checked.write()
        return ahead.check


def _render_in_turn(request: Request, route: policy.Route) -> RenderResult:
    """:func:`_render_routed`, then the schema definitions read as a render judged aside
    reads them (before its objects are parsed), so both read the same files in the
    same order: what the run memo records of the two is the same."""
    result = _render_routed(request, route)
    _prepare(request, result)
    return result


def _prepare(request: Request, result: RenderResult) -> None:
    """Index the definitions the render's schema check will read, unless it is not
    checked (no Kubernetes versions asked, or a value changed the YAML: nothing is
    parsed then)."""
    if request.kube_versions and not any(f.severity == "error" for f in result.findings):
        prepare_schemas(request.kube_versions)


def _render_routed(request: Request, route: policy.Route) -> RenderResult:
    """:func:`render` once routed: refused, or each file's context built and rendered."""
    from renderer.bke import context as bke_context
    from renderer.bke import unread
    from renderer.engine.render import render_version
    from renderer.manifests.tree import tree_path

    vdir, inputs = request.version, request.inputs
    if route.refused:
        raise RefusedError(route.message, key="nodes", argument="nodes", value=request.nodes)
    contexts = file_contexts(vdir, inputs, route.decision)
    warnings = [
        *policy.overridden_keys(bke_context.typha_params(inputs.params), route.decision),
        *contexts.warnings,
        *route.warnings,
    ]
    files = render_version(vdir, {}, contexts.contexts())
    rendered = [f.context for f in contexts.files if not f.verbatim]
    context = rendered[0] if rendered else {}
    given = tuple(unread.inputs_warnings(vdir, inputs))
    found = (*_unreachable_read(vdir, contexts, files), *bke_context.injection_findings(files))
    names = [f.name for f in vdir.files]
    found = tuple(replace(f, file=tree_path(vdir.name, names, f.file)) for f in found)
    return RenderResult(vdir, files, context, route, warnings, contexts, given, found)


def _unreachable_read(
    vdir: VersionDir, contexts: bke_context.VersionContexts, files: Sequence[RenderedFile]
) -> list[Finding]:
    """``context-unreachable-key`` warnings for keys read as maps that no config can set,
    where this render printed ``<no value>`` for one (``ipModVersion: ipv6`` without
    ``ClusterCidr``): what the controller renders, said, never refused."""
    from renderer.bke import context as bke_context
    from renderer.engine.render import version_nested_keys, version_nested_lines

    printed = {f.name.split("/", 1)[1] for f in files if "<no value>" in f.text}
    if not printed:  # first: a render that printed no <no value> compiles nothing here
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


def param_warnings(request: Request) -> list[unread.ParamWarning]:
    """User-given params of the request that its version never reads or branches on."""
    from renderer.bke import unread

    return unread.inputs_warnings(request.version, request.inputs)


def prepull_images(request: Request, *, role: str = "worker") -> images_mod.ImageList:
    """What every node of ``role`` pre-pulls for the request's version, read from what it
    renders.

    The version is rendered with Typha off (the images of calico-node do not depend on
    it), with the request's values and image prefix (None: the schema default, empty, so
    the templates pick their own registry); then the calico/cni and calico/node images
    of the calico-node DaemonSet are taken. A render without either is an InputError
    (exit 2) naming the version.
    """
    from renderer.calico import images as images_mod
    from renderer.engine.render import render_version

    images_mod.check_role(role)
    if request.repo is not None:
        images_mod.check_repo(request.repo)
    vdir, inputs = request.version, request.inputs
    contexts = file_contexts(vdir, inputs, policy.decide_typha(1))
    files = render_version(vdir, {}, contexts.contexts())
    objects = [o.data for o in parse_rendered(files)]
    try:
        return images_mod.prepull_images(vdir.name, role, str(inputs.repo.value), objects)
    except InputError as exc:
        raise InputError(
            exc.message, file=exc.file or str(vdir.path), key=exc.key, argument=exc.argument
        ) from None


# --- phased plans ------------------------------------------------------------------------

Capability = Callable[[VersionDir], tuple[bool, tuple[str, ...]]]


def plan(
    request: Request,
    *,
    from_version: str | None = None,
    from_nodes: int | None = None,
    capability: Capability | None = None,
) -> PlanResult:
    """Render both ends of a transition to the request's version and node count and
    order it into gated phases.

    Each side is rendered as the policy routes it for an existing cluster; the target
    render is what the phases apply. ``from_version``/``from_nodes`` are the running
    cluster's (default: the request's); ``capability`` defaults to the render-based check.
    """
    from renderer.api.verb_results import PlanResult
    from renderer.bke.values import default_context
    from renderer.calico import plan as plan_mod
    from renderer.engine.render import render_version, version_keys

    nodes = request.node_count
    if from_nodes is not None:
        check_nodes(from_nodes, "from_nodes")
    assess = capability or typha_capability
    target_dir = request.version
    source_dir = (
        _resolve_as(from_version, request.root, "from_version") if from_version else target_dir
    )
    source_nodes = from_nodes if from_nodes is not None else nodes
    operation = plan_mod.operation_for(source_dir.name, target_dir.name)
    inputs = request.inputs
    sides: list[plan_mod.Side] = []
    rendered: list[list[tuple[K8sObject, str]]] = []
    for vdir, count, op in (
        (source_dir, source_nodes, "upgrade"),
        (target_dir, nodes, operation),
    ):
        capable, missing = assess(vdir)
        route = policy.route(count, capable, op, version=vdir.name, missing=missing)
        contexts = file_contexts(vdir, inputs, route.decision)
        objects = plan_mod.objects_with_text(render_version(vdir, {}, contexts.contexts()))
        rendered.append(objects)
        split = plan_mod.split_objects([o.data for o, _ in objects])
        keys = version_keys(vdir)
        sides.append(plan_mod.Side(vdir.name, count, capable, split, keys, route=route))
    source, target = sides
    ds = target.objects.find("DaemonSet", target.objects.calico_node)
    name = ds.name if ds else names.NODE_DAEMONSET
    changed = plan_mod.node_template_changed(
        [o.data for o, _ in rendered[0]], [o.data for o, _ in rendered[1]], name
    )
    result = plan_mod.make_plan(
        source, target, node_template_changed=changed, defaults=default_context()
    )
    texts = {plan_mod.ref_of(o.data).key: text for o, text in rendered[1]}
    return PlanResult(result, texts)


def _resolve_as(version: str, root: Path | None, key: str) -> VersionDir:
    """:func:`resolve_version`, its errors naming the argument the version came from."""
    try:
        return resolve_version(version, root)
    except InputError as exc:
        # keep a quoted value: ``version '../x'`` becomes ``from_version '../x'``
        given = exc.key or ""
        label = key + (given[len("version") :] if given.startswith("version") else "")
        raise InputError(
            exc.message, file=exc.file, line=exc.line, key=label, argument=key, value=version
        ) from None


# --- scale advice --------------------------------------------------------------------------


def scale_findings(
    result: RenderResult,
    *,
    max_pods: int = policy.KUBERNETES_MAX_PODS,
    origins: scale.Origins | None = None,
) -> tuple[scale.ScaleInputs, list[Finding]]:
    """The scale advice for a render: its numbers and the findings on them, located
    in the version's templates relative to ROOT."""
    from renderer.calico import scale
    from renderer.manifests.tree import tree_path

    inputs = scale.request_inputs(
        result.objects,
        result.context,
        nodes=result.decision.nodes,
        max_pods=max_pods,
        origins=origins,
    )
    v = result.version
    names = [f.name for f in v.files]
    return inputs, [replace(f, file=tree_path(v.name, names, f.file)) for f in scale.advise(inputs)]


def advise(
    request: Request,
    *,
    max_pods: int = policy.KUBERNETES_MAX_PODS,
    origins: scale.Origins | None = None,
) -> scale.AdviceReport:
    """Render the request as the controller would and advise on its scale.

    A first install the Typha policy refuses is advised on as its compatibility path
    (Typha off), so the missing Typha shows as an error finding instead of exit 3.
    ``origins`` says where the user's values came from (default: the request's values
    as given).
    """
    from renderer.calico import scale

    if isinstance(max_pods, bool) or not isinstance(max_pods, int) or max_pods < 1:
        raise InputError(
            f"max pods per node must be a positive integer, got {max_pods!r}",
            key="max_pods",
            argument="max_pods",
            value=max_pods,
        )
    vdir, nodes = request.version, request.node_count
    origins = origins or scale.Origins.of(flags=request.given)
    notes: list[str] = []
    if request.operation == "install" and plan_route(vdir, nodes, "install").refused:
        request = replace(request, operation="upgrade")
        notes.append(
            f"a first install of {vdir.name} on {nodes} nodes is refused (not Typha-capable); "
            "advised on the compatibility path, Typha off"
        )
    result = render(request)
    inputs, findings = scale_findings(result, max_pods=max_pods, origins=origins)
    return scale.AdviceReport(
        vdir.name,
        tree_label(request.root),
        inputs,
        findings,
        [*notes, *inputs.notes, *(f"warning: {w}" for w in result.param_warnings)],
        result.param_warnings,
    )


# --- what each file receives --------------------------------------------------------------


def explain_context(request: Request) -> ExplainResult:
    """The contexts :func:`render` would render the request with, without rendering."""
    from renderer.api.verb_results import ExplainResult
    from renderer.bke import context as bke_context
    from renderer.bke import unread

    vdir, inputs = request.version, request.inputs
    route = plan_route(vdir, request.node_count, request.operation)
    if route.refused:
        raise RefusedError(route.message, key="nodes", argument="nodes", value=request.nodes)
    contexts = file_contexts(vdir, inputs, route.decision)
    given = tuple(unread.inputs_warnings(vdir, inputs))
    warnings = (
        *policy.overridden_keys(bke_context.typha_params(inputs.params), route.decision),
        *contexts.warnings,
        *route.warnings,
        *(str(w) for w in given),
    )
    return ExplainResult(contexts, route, warnings, given)


def template(
    file: str,
    *,
    values_file: str | Path | None = None,
    sets: Sequence[str] = (),
    name: str = "calico",
    dialect: str | None = None,
    warnings: list[str] | None = None,
) -> str:
    """Render one template file (``-``: stdin) with exactly the given values: no policy,
    no context rules, Go's bytes. ``dialect`` None: from the suffix; warnings about the
    values file go to ``warnings``."""
    from renderer.bke.values import user_values as values
    from renderer.engine.compile import compile_source
    from renderer.manifests.tree import DIALECTS
    from renderer.store.read import read_text

    context = values(values_file, sets, key_rules=False, warnings=warnings)
    chosen = dialect or DIALECTS.get(Path(file).suffix, "go")
    return compile_source(read_text(file), file, chosen, template_name=name).render(context)


def typha(nodes: int | None = None) -> TyphaResult:
    """The Typha decision for ``nodes``, or the boundary table when None."""
    from renderer.api.verb_results import TyphaResult

    if nodes is not None:
        check_nodes(nodes)
    counts = policy.BOUNDARY_TABLE if nodes is None else (nodes,)
    return TyphaResult(nodes, tuple(policy.decide_typha(n) for n in counts))


def versions(root: Path | None = None, *, keys: bool = False) -> VersionsResult:
    """The versions under ``root`` with their Typha capability (a version that fails to
    render is listed with its error) and, with ``keys``, the context keys each reads."""
    from renderer.api.verb_results import VersionEntry, VersionsResult
    from renderer.checks.renders import capability_of
    from renderer.engine.render import version_keys
    from renderer.manifests.tree import list_versions

    entries = []
    for v in list_versions(root):
        try:
            cap, error = capability_of(v), None
        except CalicoRenderError as exc:
            cap, error = None, str(exc)
        entries.append(
            VersionEntry(v, cap, error, tuple(sorted(version_keys(v))) if keys else None)
        )
    return VersionsResult(tree_label(root), tuple(entries))


def import_version(
    source: Path,
    *,
    root: Path = Path("."),
    options: importer.Options | None = None,
    check: bool = False,
    replace: bool = False,
    given: Collection[str] | None = None,
) -> Imported:
    """Derive ``root``/kubernetes/calico/<version>/ from upstream Calico's manifests in
    ``source``; write it (``replace``: over an existing one) or, with ``check``, only
    compare it with what is on disk. With ``given`` (the names of the ``options`` fields
    the caller chose), a check takes every other choice (layout, Typha, default
    registry) from the directory's generated header, so it needs no flags."""
    from renderer.api.verb_results import Imported
    from renderer.calico import importer as importer_mod
    from renderer.calico import importsource
    from renderer.manifests.tree import COMPONENT
    from renderer.store.files import replace_dir

    options = options or importer_mod.Options()
    if options.default_registry is not None:
        importsource.check_default_registry(options.default_registry)
    recorded = importer_mod.Recorded(None, {})
    if check and given is not None:
        recorded = importsource.recorded(source, root, options)
        if recorded.options is not None:
            chosen = {k: getattr(options, k) for k in given}
            options = dataclasses.replace(recorded.options, version=options.version, **chosen)
    texts = importsource.read_upstream(source, options.typha)
    try:
        derived = importer_mod.derive(texts, options)
    except InputError as exc:  # name the file as the user can find it
        file = str(source / exc.file) if exc.file in importsource.UPSTREAM_FILES else exc.file
        raise InputError(
            exc.message, file=file, line=exc.line, key=exc.key, argument=exc.argument
        ) from None
    target = root / COMPONENT / derived.version
    for directory in (root / COMPONENT.parent, root / COMPONENT, target):
        contain.directory(directory, root, "the manifest tree", missing_ok=True)
    files = dict(derived.files)
    if check:
        on_disk = importsource.read_version_dir(target, root)
        differences = importsource.differences(recorded, options, texts, source, target)
        diff = importer_mod.compare(files, on_disk, str(target))
        return Imported(target, files, diff, differences)
    contain.not_a_link(target)
    replace_dir(target, files, replace=replace)
    return Imported(target, files)


# --- images against their registry --------------------------------------------------------

#: The platforms OpenFuyao installs on (x86_64 and aarch64 nodes).
DEFAULT_PLATFORMS = "linux/amd64,linux/arm64"


def version_image_uses(
    request: Request, *, role: str | None = None
) -> tuple[VersionDir, list[ImageUse]]:
    """Every image any scenario of the request's version renders, where it is rendered;
    with a ``role``, only what that role's nodes pre-pull (nothing for a dedicated etcd
    node)."""
    from renderer.calico import images as images_mod
    from renderer.calico.scenarios import route_scenario, scenarios_for
    from renderer.checks.registry import image_uses
    from renderer.engine.render import render_version
    from renderer.manifests.tree import tree_path

    _image_checks(role, request.repo)
    vdir, inputs = request.version, request.inputs
    capable, missing = typha_capability(vdir)
    renders = []
    for scenario in scenarios_for(capable):
        route = route_scenario(scenario, capable, vdir.name, missing)
        contexts = file_contexts(vdir, inputs, route.decision)
        files = render_version(vdir, {}, contexts.contexts())
        renders.append((scenario.name, parse_rendered(files)))
    names = [f.name for f in vdir.files]
    uses = [  # located relative to ROOT, as every finding is
        replace(u, file=tree_path(vdir.name, names, u.file)) for u in image_uses(renders)
    ]
    if role in images_mod.ETCD_ONLY_ROLES:
        return vdir, []
    if role is not None:
        uses = [u for u in uses if images_mod.prepulled_kind(u.image)]
    return vdir, uses


def check_registry(
    version: str | None = None,
    *,
    config: str | Path | None = None,
    root: Path | None = None,
    repo: str | None = None,
    role: str | None = None,
    platforms: str = DEFAULT_PLATFORMS,
    registry: str | None = None,
    settings: RegistrySettings | None = None,
    jobs: int = 4,
    verify_lock: str | Path | None = None,
) -> RegistryReport:
    """Resolve every image ``version`` (or ``config``'s calico addon) renders against its
    registry (``registry``, ``host[:port][/namespace]``, serving them instead) for each
    of ``platforms`` (comma-separated ``os/arch[/variant]``); with ``verify_lock``, the
    digests are compared with that lock file too.

    Missing repositories, tags and platforms (and changed digests) are error findings;
    a bad platform, an unreachable registry or a malformed answer is an InputError.
    """
    from renderer.checks import registry as stage
    from renderer.oci.client import Client
    from renderer.oci.reference import parse_platforms, parse_registry

    chosen = parse_platforms(platforms)
    if registry is not None:
        parse_registry(registry)
    lock = read_lock(verify_lock) if verify_lock is not None else None
    client = Client(settings)
    if (version is None) == (config is None):
        raise InputError(
            "give exactly one of a version or a config", key="version", argument="version"
        )
    if config is not None:
        args = cluster_args(config, root=root, repo=repo)
        if args.skip or args.version is None:
            uses: list[ImageUse] = []
            name = None
        else:
            _image_checks(role, repo)
            request = Request.of(args.version, root=root, repo=repo, cluster=args)
            vdir, uses = version_image_uses(request, role=role)
            name = vdir.name
    else:
        assert version is not None
        _image_checks(role, repo)
        vdir, uses = version_image_uses(Request.of(version, root=root, repo=repo), role=role)
        name = vdir.name
    report = stage.check_registry(uses, chosen, client, registry=registry, version=name, jobs=jobs)
    if lock is not None:
        found = stage.verify_lock(report, lock, str(verify_lock))
        report = replace(report, findings=(*report.findings, *found), lock=str(verify_lock))
    return report


def _image_checks(role: str | None, repo: str | None) -> None:
    """A node role and an image prefix as the images verbs take them."""
    from renderer.calico import images as images_mod

    if role is not None:
        images_mod.check_role(role)
    if repo is not None:
        images_mod.check_repo(repo)


def read_lock(path: str | Path) -> dict[str, Any]:
    """A lock file written by ``images --lock``, checked against its schema."""
    from renderer.store.read import read_text

    text = read_text(Path(path))
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}", file=str(path)) from None
    schemas.check(schemas.IMAGE_LOCK, data, file=str(path))
    return dict(data)


def lock_text(report: RegistryReport) -> str:
    """The lock file of ``report`` (``image-lock.schema.json``), as written."""
    from renderer.checks.registry import lock_document

    data = lock_document(report)
    validate_output(schemas.IMAGE_LOCK, data)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def write_lock(path: str | Path, report: RegistryReport) -> None:
    """Write ``report``'s lock atomically (a device or FIFO is written through)."""
    from renderer.store.files import write_output

    write_output(path, lock_text(report))


def set_render_timeout(seconds: float) -> None:
    """The wall-clock limit of one template render, for this process."""
    from renderer.engine import limits

    limits.set_render_timeout(seconds)


# --- checks ---------------------------------------------------------------------------


def rules() -> tuple[RuleInfo, ...]:
    """Every rule id a finding can carry, its stage and severity, and whether a reviewed
    exception may name it."""
    from renderer.checks.catalogue import catalogue

    return tuple(catalogue().values())


def check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None = None
) -> CheckReport:
    """Check every version of a tree (``check``): templates, capability, rules, schema,
    context, goldens (and fidelity); ``progress`` sees each version as it finishes."""
    from renderer.checks.runner import run_check

    return run_check(options, progress)


def check_options(
    *,
    root: Path | None = None,
    golden: Path | None = None,
    kube_versions: Sequence[str] = (),
    update: bool = False,
    jobs: int | None = None,
    upstream: Path | None = None,
    exceptions_file: Path | None = None,
    strict: bool = False,
) -> CheckOptions:
    """What :func:`check` checks, from what a caller holds: a tree (None: the bundled
    one), its goldens (default: ROOT/golden/calico, or the bundled goldens for the
    bundled tree), Kubernetes versions (default: the newest four), parallelism (default:
    the CPU count), an upstream directory and an exceptions file (default: ROOT's);
    ``strict``: template branches no scenario renders fail the check."""
    from renderer.checks import exceptions as excepts
    from renderer.checks.options import CheckOptions, refuse_misplaced
    from renderer.checks.runner import default_jobs as cpus

    if golden is not None and golden.exists() and not golden.is_dir():
        raise InputError("not a directory", file=str(golden), key="golden", argument="golden")
    if golden is not None:
        refuse_misplaced(golden)
    return CheckOptions(
        root=root,
        golden=golden if golden is not None else default_golden(root),
        kube_versions=resolve_kube_versions(kube_versions),
        kube_args=bool(kube_versions),
        update=update,
        jobs=jobs if jobs is not None else cpus(),
        manifests_arg=str(root) if root is not None else None,
        golden_arg=str(golden) if golden is not None else None,
        upstream=upstream,
        upstream_arg=str(upstream) if upstream is not None else None,
        exceptions=excepts.load(excepts.find_file(root, exceptions_file)),
        strict=strict,
    )


def default_golden(root: Path | None) -> Path:
    """A tree's own goldens (``ROOT/golden/calico``); the bundled goldens belong to the
    bundled tree only (also when it is named as ROOT, in a checkout), so a real tree is
    never compared with them."""
    from renderer.checks.options import TREE_GOLDEN
    from renderer.data.bundled import bundled_golden, bundled_manifests

    if root is not None and root.resolve() != bundled_manifests().resolve():
        return root / TREE_GOLDEN
    try:
        return bundled_golden()
    except FileNotFoundError:
        # A checkout whose goldens were never generated: updating the goldens creates them.
        return Path(__file__).resolve().parents[1] / "golden"


def default_jobs() -> int:
    """How many versions :func:`check` checks at once by default: the CPU count."""
    from renderer.checks.runner import default_jobs as jobs

    return jobs()


def capability(
    version: str,
    *,
    root: Path | None = None,
    kube_versions: Sequence[str] = (),
    exceptions_file: Path | None = None,
    upstream: Path | None = None,
    strict: bool = False,
) -> ReleaseReport:
    """Check one version for release (``capability``): the Typha contract, release rules,
    strict schemas, context, branch coverage (errors with ``strict``; and fidelity to
    ``upstream``), reviewed exceptions applied, on the scenarios :func:`check` renders."""
    from renderer.checks import exceptions as excepts
    from renderer.checks.pipeline import release_check

    kube = resolve_kube_versions(kube_versions)
    vdir = resolve_version(version, root)
    reviewed = excepts.load(excepts.find_file(root, exceptions_file))
    report = release_check(vdir, kube, reviewed, upstream, strict)
    return replace(report, manifests=tree_label(root))


def validate(
    paths: Sequence[str],
    kube_versions: Sequence[str] = (),
    *,
    skip: Sequence[str] = (),
    reject: Sequence[str] = (),
) -> Validation:
    """Schema-check manifest files and directories (``-`` for stdin) in strict mode,
    as kubeconform does: objects of a ``skip`` kind are counted, not checked; one of a
    ``reject`` kind is an error."""
    from renderer.api.verb_results import Validation
    from renderer.finding import ObjectRef, merge_located
    from renderer.k8s.files import kinds, manifest_files
    from renderer.store.read import read_text

    kube = resolve_kube_versions(kube_versions)  # a bad version before any file is read
    files = manifest_files(paths)
    objects = [o for name in files for o in parse_stream(read_text(name), name)]
    skipped, rejected = kinds(skip), kinds(reject)
    checked = [o for o in objects if o.kind not in skipped and o.kind not in rejected]
    _, found = schema_check(checked, kube)
    refused = [
        Finding(
            "kind-rejected",
            "error",
            f"kind {o.kind} is rejected (--reject)",
            stage="schema",
            object=ObjectRef(o.kind, o.name, o.namespace, o.api_version),
            file=o.file,
            line=o.line,
        )
        for o in objects
        if o.kind in rejected and o.kind not in skipped
    ]
    return Validation(
        tuple(files),
        kube,
        tuple(merge_located([*found, *refused])),
        objects=len(objects),
        skipped=sum(1 for o in objects if o.kind in skipped),
    )


#: The other verbs' results (:mod:`renderer.api.verb_results`), imported on first use:
#: a render does not build their classes.
_VERB_RESULTS = frozenset(
    {
        "PlanResult",
        "ExplainResult",
        "TyphaResult",
        "VersionEntry",
        "VersionsResult",
        "Imported",
        "Validation",
    }
)


def __getattr__(name: str) -> Any:
    if name in _VERB_RESULTS:
        from renderer.api import verb_results

        return getattr(verb_results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ExplainResult",
    "Imported",
    "PlanResult",
    "RenderCheck",
    "RenderResult",
    "Request",
    "TyphaResult",
    "Validation",
    "VersionEntry",
    "VersionsResult",
    "advise",
    "capability",
    "check",
    "check_nodes",
    "check_operation",
    "check_options",
    "check_registry",
    "cluster_args",
    "default_golden",
    "default_jobs",
    "explain_context",
    "file_contexts",
    "import_version",
    "lock_text",
    "param_warnings",
    "plan",
    "plan_route",
    "prepull_images",
    "read_lock",
    "render",
    "resolve_version",
    "rules",
    "scale_findings",
    "schema_check",
    "set_render_timeout",
    "template",
    "typha",
    "validate",
    "validate_render",
    "version_image_uses",
    "versions",
    "write_lock",
]
