"""Library API: the whole render pipeline for callers such as installer-service.

The CLI is a thin layer over these functions; they raise :mod:`renderer.errors`
exceptions and never print.
"""

from __future__ import annotations

import bisect
import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renderer.bke import context as bke_context
from renderer.bke import unread
from renderer.bke.values import default_context
from renderer.calico import advise as advise_mod
from renderer.calico import images as images_mod
from renderer.calico import policy
from renderer.checks.finding import Finding
from renderer.data import schemas
from renderer.data.schemas import validate_output
from renderer.engine.compile import template_digest
from renderer.engine.render import RenderedFile, join_stream, render_version, version_keys
from renderer.errors import InputError, RefusedError, TemplateError
from renderer.k8s.parse import K8sObject, parse_rendered, parse_stream
from renderer.k8s.schema import SchemaValidator, errors, resolve_kube_versions
from renderer.k8s.yamlio import split_documents
from renderer.manifests.tree import VersionDir, resolve_version
from renderer.store import cache

if TYPE_CHECKING:
    from renderer.calico import plan as plan_mod
    from renderer.checks.options import CheckOptions
    from renderer.checks.report import CheckReport, ReleaseReport, VersionResult


@dataclass
class RenderResult:
    """A rendered version with the decision that shaped it."""

    version: VersionDir
    files: list[RenderedFile]
    context: dict[str, Any]
    route: policy.Route
    warnings: list[str] = field(default_factory=list)
    #: Each file's context and where its values came from (None: one context for all).
    contexts: bke_context.VersionContexts | None = None
    #: User-given params no template reads, or whose value takes no branch.
    param_warnings: tuple[unread.ParamWarning, ...] = ()

    @property
    def decision(self) -> policy.TyphaDecision:
        return self.route.decision

    def stream(self) -> str:
        return join_stream(self.files)

    @cached_property
    def objects(self) -> tuple[K8sObject, ...]:
        """The rendered objects, parsed once (on first use) with their file and line."""
        return tuple(parse_rendered(self.files))


@dataclass(frozen=True)
class RenderCheck:
    """Strict schema findings for a render; ``ok`` says whether it may be written."""

    kube_versions: tuple[str, ...]
    findings: tuple[Finding, ...]

    @property
    def errors(self) -> list[Finding]:
        return errors(self.findings)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        """The one line explaining why nothing was written (when not ``ok``)."""
        return (
            f"{len(self.errors)} schema error(s) on Kubernetes "
            f"{', '.join(self.kube_versions)}; nothing written"
        )


def validate_render(result: RenderResult, kube_versions: Sequence[str] = ()) -> RenderCheck:
    """Schema-check a render (strict) before anything is written.

    The policy: a render with any error finding is not written (exit 1); findings that
    are not errors (custom resources not checked) are reported and do not block.
    ``kube_versions`` empty means the default (newest shipped) versions.
    """
    return RenderCheck(*schema_check(result.objects, kube_versions))


def schema_check(
    objects: Sequence[K8sObject], kube_versions: Sequence[str] = ()
) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """Strict schema findings of rendered objects, as (Kubernetes versions, findings),
    sorted by version, file and line: what ``validate`` and a render's check report."""
    validator = SchemaValidator(kube_versions)
    return validator.kube_versions, tuple(validator.validate_all(objects))


def check_nodes(nodes: object, key: str = "--nodes") -> int:
    """A node count as the policy takes it: a positive int (not a bool), else InputError."""
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise InputError(f"the node count must be a positive integer, got {nodes!r}", key=key)
    return nodes


def check_operation(operation: object) -> str:
    if operation not in policy.OPERATIONS:
        raise InputError(
            f"the operation must be one of {', '.join(policy.OPERATIONS)}, got {operation!r}",
            key="--operation",
        )
    return str(operation)


@dataclass(frozen=True)
class Verdict:
    """What a version's templates render, judged once: the Typha contract and the
    release rules (no schemas: they are the gate's, and slow)."""

    capable: bool
    missing: tuple[str, ...]
    summary: str
    #: Ids of the release rules with errors (on the Typha-on render).
    rule_errors: tuple[str, ...]

    @property
    def release_ready(self) -> bool:
        return self.capable and not self.rule_errors


_VERDICTS: dict[tuple[tuple[str, str], ...], Verdict] = {}


def _key(version: VersionDir) -> tuple[tuple[str, str], ...]:
    return tuple((tf.name, template_digest(tf)) for tf in version.files)


def verdict(version: VersionDir) -> Verdict:
    """The version's :class:`Verdict`, kept per content digest: a long-running caller
    pays the three renders once per version, not once per request, and a command line
    once per template change (the persistent cache)."""
    key = _key(version)
    cached = _VERDICTS.get(key)
    if cached is None:
        stored_key = "\n".join(
            f"{tf.name}\t{tf.dialect}\t{d}" for tf, (_, d) in zip(version.files, key, strict=True)
        )
        stored = cache.get("capability", stored_key, _valid_verdict)
        if stored is not None:
            cached = Verdict(stored[0], tuple(stored[1]), stored[2], tuple(stored[3]))
        else:
            cached = _judge(version)
            cache.put(
                "capability",
                stored_key,
                [cached.capable, list(cached.missing), cached.summary, list(cached.rule_errors)],
            )
        _VERDICTS[key] = cached
    return cached


def _judge(version: VersionDir) -> Verdict:
    from renderer.calico.capability import assess_capability
    from renderer.checks.finding import blocking
    from renderer.checks.pipeline import release_rules

    report = assess_capability(version)
    rules = sorted({f.rule for f in blocking(release_rules(report))}) if report.capable else []
    return Verdict(report.capable, tuple(report.missing), report.verdict, tuple(rules))


def typha_capability(version: VersionDir) -> tuple[bool, tuple[str, ...]]:
    """(capable, missing items) judged from what the version's templates render."""
    v = verdict(version)
    return v.capable, v.missing


def readiness_warning(version: VersionDir, *, assess: bool = True) -> str | None:
    """One line when ``version`` is not release-ready (Typha contract, release rules).
    ``assess`` False: only from a verdict already judged (no renders for it)."""
    if not assess and _key(version) not in _VERDICTS:
        return None
    v = verdict(version)
    if v.release_ready:
        return None
    why = f"release rules fail: {', '.join(v.rule_errors)}" if v.capable else v.summary
    return (
        f"{version.name} is not release-ready ({why}); "
        f"see calico-render capability --version {version.name}"
    )


def _valid_verdict(value: Any) -> bool:
    """A stored verdict's shape, and capable exactly when nothing is missing."""
    return (
        isinstance(value, list)
        and len(value) == 4
        and isinstance(value[0], bool)
        and isinstance(value[1], list)
        and all(isinstance(m, str) for m in value[1])
        and value[0] == (not value[1])
        and isinstance(value[2], str)
        and isinstance(value[3], list)
        and all(isinstance(r, str) for r in value[3])
    )


def plan_route(version: VersionDir, nodes: int, operation: str = "install") -> policy.Route:
    """Route a request; capability is only assessed when the node count needs Typha."""
    check_nodes(nodes)
    check_operation(operation)
    if policy.decide_typha(nodes).allow_typha:
        capable, missing = typha_capability(version)
    else:
        capable, missing = True, ()
    return policy.route(nodes, capable, operation, version=version.name, missing=missing)


def file_contexts(
    vdir: VersionDir, inputs: bke_context.ContextInputs, decision: policy.TyphaDecision
) -> bke_context.VersionContexts:
    """Each file's context by the controller's rules, validated like a single context."""
    contexts = bke_context.build(vdir, inputs, decision.context(), typha_reason=decision.reason)
    for f in contexts.files:
        if not f.verbatim:
            schemas.check(schemas.RENDER_CONTEXT, f.context, file=f"render context of {f.file}")
    return contexts


def default_inputs(
    user: Mapping[str, Any] | None = None, repo: str | None = None
) -> bke_context.ContextInputs:
    """The context's sources without a config: ``user`` values are addon params (maps
    are nested values), after the controller's defaults and bkeadm's calico params."""
    params, nested = bke_context.from_mapping(dict(user or {}))
    return bke_context.without_config(repo=repo, params=params, nested=nested)


def render(
    version: str,
    nodes: int,
    *,
    root: Path | None = None,
    user: Mapping[str, Any] | None = None,
    repo: str | None = None,
    operation: str = "install",
    inputs: bke_context.ContextInputs | None = None,
) -> RenderResult:
    """Resolve, route, build each file's context and render a Calico version for ``nodes``.

    ``inputs`` are the context's sources (a config's, see
    :func:`renderer.bke.context.for_config`); without them :func:`default_inputs` of
    ``user`` and ``repo``. Raises RefusedError when a first install above 50 nodes
    targets a version that is not Typha-capable; nothing is rendered then. A bad
    ``nodes`` or ``operation`` is an InputError (key ``--nodes``/``--operation``).
    """
    check_nodes(nodes)
    check_operation(operation)
    vdir = resolve_version(version, root)
    if inputs is None:
        inputs = default_inputs(user, repo)
    route = plan_route(vdir, nodes, operation)
    if route.refused:
        raise RefusedError(route.message, key="--nodes")
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
    return RenderResult(vdir, files, context, route, warnings, contexts, given)


def param_warnings(
    version: str, inputs: bke_context.ContextInputs, root: Path | None = None
) -> list[unread.ParamWarning]:
    """User-given params of ``inputs`` that ``version`` never reads or branches on."""
    return unread.inputs_warnings(resolve_version(version, root), inputs)


def prepull_images(
    version: str,
    *,
    root: Path | None = None,
    repo: str | None = None,
    user: Mapping[str, Any] | None = None,
    role: str = "worker",
    inputs: bke_context.ContextInputs | None = None,
) -> images_mod.ImageList:
    """What every node pre-pulls for Calico ``version``, read from what it renders.

    The version is rendered with Typha off (the images of calico-node do not depend on
    it), ``user`` values (e.g. a config's addon params), ``repo`` (None: the schema
    default, empty, so the templates pick their own registry) and the schema defaults;
    then the calico/cni and calico/node images of the calico-node DaemonSet are taken.
    A render without either is an InputError (exit 2) naming the version.
    """
    images_mod.check_role(role)
    if repo is not None:
        images_mod.check_repo(repo)
    vdir = resolve_version(version, root)
    if inputs is None:
        inputs = default_inputs(user, repo)
    contexts = file_contexts(vdir, inputs, policy.decide_typha(1))
    files = render_version(vdir, {}, contexts.contexts())
    objects = [o.data for o in parse_rendered(files)]
    try:
        return images_mod.prepull_images(vdir.name, role, str(inputs.repo.value), objects)
    except InputError as exc:
        raise InputError(exc.message, file=exc.file or str(vdir.path), key=exc.key) from None


# --- phased plans ------------------------------------------------------------------------

Capability = Callable[[VersionDir], tuple[bool, tuple[str, ...]]]


@dataclass
class PlanResult:
    """A plan and the rendered target objects its apply lists refer to."""

    plan: plan_mod.Plan
    texts: dict[tuple[str, str, str], str]

    @cached_property
    def _data(self) -> dict[str, Any]:
        from renderer.calico import plan as plan_mod

        data = self.plan.to_dict()
        validate_output(plan_mod.PLAN_SCHEMA, data)
        return data

    def to_dict(self) -> dict[str, Any]:
        """The plan as published (checked against plan.schema.json once)."""
        return copy.deepcopy(self._data)

    def files(self) -> dict[str, str]:
        """One manifest per phase (``NN-name.apply.yaml``, ``NN-name.delete.yaml``), in order."""
        out: dict[str, str] = {}
        for number, phase in self.plan.numbered():
            head = (
                f"# phase {number}: {phase.name}: {phase.description}\n"
                f"# gate: {phase.gate.description}\n#   $ {phase.gate.command}\n"
            )
            stem = f"{number:02d}-{phase.name}"
            if phase.apply:
                docs = [self.texts[r.key] for r in phase.apply]
                out[f"{stem}.apply.yaml"] = head + "".join(f"---\n{d}" for d in docs)
            if phase.delete:
                out[f"{stem}.delete.yaml"] = head + "".join(
                    f"---\n{_stub(r)}" for r in phase.delete
                )
        out["plan.json"] = json.dumps(self._data, indent=2) + "\n"
        return out


def _stub(ref: plan_mod.ObjectRef) -> str:
    """Enough of an object for ``kubectl delete -f``."""
    ns = f"  namespace: {ref.namespace}\n" if ref.namespace else ""
    return f"apiVersion: {ref.api_version}\nkind: {ref.kind}\nmetadata:\n  name: {ref.name}\n{ns}"


def _objects_with_text(files: list[RenderedFile]) -> list[tuple[K8sObject, str]]:
    """Rendered objects with their own document text (comments kept).

    Objects sharing one document (a List) fall back to JSON, which is valid YAML.
    """
    out: list[tuple[K8sObject, str]] = []
    for f in files:
        objects = parse_stream(f.text, f.name, lines=f.lines)
        for obj in objects:
            for key, value in (("kind", obj.kind), ("metadata.name", obj.name)):
                if not value:
                    raise TemplateError(
                        "a rendered object needs a kind and a name to be planned",
                        file=obj.file,
                        line=obj.source_line or obj.line,
                        key=key,
                    )
        chunks = list(split_documents(f.text))
        starts = [start for start, _ in chunks]
        # the ``---``-separated document holding each object's first line
        where = [bisect.bisect_right(starts, obj.line) - 1 for obj in objects]
        for obj, i in zip(objects, where, strict=True):
            if i >= 0 and where.count(i) == 1:
                text = chunks[i][1].strip("\n") + "\n"
            else:
                text = json.dumps(obj.data, indent=2) + "\n"
            out.append((obj, text))
    return out


def _pod_template(objects: list[K8sObject], kind: str, name: str) -> Any:
    for obj in objects:
        if obj.kind == kind and obj.name == name:
            spec = obj.data.get("spec")
            return spec.get("template") if isinstance(spec, dict) else None
    return None


def _resolve_as(version: str, root: Path | None, key: str) -> VersionDir:
    """:func:`resolve_version`, its errors naming the flag the version came from."""
    try:
        return resolve_version(version, root)
    except InputError as exc:
        # keep a quoted value: ``--version '../x'`` becomes ``--to-version '../x'``
        given = exc.key or ""
        key += given[len("--version") :] if given.startswith("--version") else ""
        raise InputError(exc.message, file=exc.file, line=exc.line, key=key) from None


def plan(
    to_version: str,
    nodes: int,
    *,
    from_version: str | None = None,
    from_nodes: int | None = None,
    root: Path | None = None,
    user: Mapping[str, Any] | None = None,
    repo: str | None = None,
    capability: Capability | None = None,
    inputs: bke_context.ContextInputs | None = None,
) -> PlanResult:
    """Render both ends of a transition and order it into gated phases.

    Each side is rendered as the policy routes it for an existing cluster; the target
    render is what the phases apply. ``capability`` defaults to the render-based check.
    """
    from renderer.calico import plan as plan_mod

    check_nodes(nodes)
    if from_nodes is not None:
        check_nodes(from_nodes, "--from-nodes")
    assess = capability or typha_capability
    target_dir = _resolve_as(to_version, root, "--to-version")
    source_dir = _resolve_as(from_version, root, "--from-version") if from_version else target_dir
    source_nodes = from_nodes if from_nodes is not None else nodes
    operation = plan_mod.operation_for(source_dir.name, target_dir.name)
    if inputs is None:
        inputs = default_inputs(user, repo)
    sides: list[plan_mod.Side] = []
    rendered: list[list[tuple[K8sObject, str]]] = []
    for vdir, count, op in (
        (source_dir, source_nodes, "upgrade"),
        (target_dir, nodes, operation),
    ):
        capable, missing = assess(vdir)
        route = policy.route(count, capable, op, version=vdir.name, missing=missing)
        contexts = file_contexts(vdir, inputs, route.decision)
        objects = _objects_with_text(render_version(vdir, {}, contexts.contexts()))
        rendered.append(objects)
        split = plan_mod.split_objects([o.data for o, _ in objects])
        keys = version_keys(vdir)
        sides.append(plan_mod.Side(vdir.name, count, capable, split, keys, route=route))
    source, target = sides
    ds = target.objects.find("DaemonSet", target.objects.calico_node)
    name = ds.name if ds else plan_mod.NODE_APP
    changed = _pod_template([o for o, _ in rendered[0]], "DaemonSet", name) != _pod_template(
        [o for o, _ in rendered[1]], "DaemonSet", name
    )
    result = plan_mod.make_plan(
        source, target, node_template_changed=changed, defaults=default_context()
    )
    texts = {plan_mod.ref_of(o.data).key: text for o, text in rendered[1]}
    return PlanResult(result, texts)


# --- scale advice --------------------------------------------------------------------------


def scale_findings(
    result: RenderResult,
    *,
    max_pods: int = advise_mod.KUBERNETES_MAX_PODS,
    origins: advise_mod.Origins | None = None,
) -> tuple[advise_mod.ScaleInputs, list[Finding]]:
    """The scale advice for a render: its numbers and the findings on them."""
    inputs = advise_mod.request_inputs(
        result.objects,
        result.context,
        nodes=result.decision.nodes,
        max_pods=max_pods,
        origins=origins,
    )
    return inputs, advise_mod.advise(inputs)


def advise(
    version: str,
    nodes: int,
    *,
    root: Path | None = None,
    user: Mapping[str, Any] | None = None,
    repo: str | None = None,
    max_pods: int = advise_mod.KUBERNETES_MAX_PODS,
    origins: advise_mod.Origins | None = None,
    sources: bke_context.ContextInputs | None = None,
) -> advise_mod.AdviceReport:
    """Render ``version`` for ``nodes`` as the controller would and advise on its scale.

    A first install the Typha policy refuses is advised on as its compatibility path
    (Typha off), so the missing Typha shows as an error finding instead of exit 3.
    ``origins`` says where the user's values came from (default: flags); ``sources``
    are a config's context inputs, as for :func:`render` (default: ``user``/``repo``).
    """
    check_nodes(nodes)
    if isinstance(max_pods, bool) or not isinstance(max_pods, int) or max_pods < 1:
        raise InputError(
            f"max pods per node must be a positive integer, got {max_pods!r}", key="--max-pods"
        )
    user = dict(user or {})
    vdir = resolve_version(version, root)
    origins = origins or advise_mod.Origins.of(flags=user)
    notes: list[str] = []
    operation = "install"
    if plan_route(vdir, nodes, operation).refused:
        operation = "upgrade"
        notes.append(
            f"a first install of {vdir.name} on {nodes} nodes is refused (not Typha-capable); "
            "advised on the compatibility path, Typha off"
        )
    result = render(
        vdir.name, nodes, root=root, user=user, repo=repo, operation=operation, inputs=sources
    )
    inputs, findings = scale_findings(result, max_pods=max_pods, origins=origins)
    return advise_mod.AdviceReport(
        vdir.name,
        str(root) if root is not None else "(bundled)",
        inputs,
        findings,
        [*notes, *inputs.notes, *(f"warning: {w}" for w in result.param_warnings)],
        result.param_warnings,
    )


# --- what each file receives --------------------------------------------------------------

EXPLAIN_SCHEMA = "explain-context.schema.json"


@dataclass(frozen=True)
class ExplainResult:
    """Each file's context for a version and node count, with every value's origin."""

    contexts: bke_context.VersionContexts
    route: policy.Route
    warnings: tuple[str, ...]
    param_warnings: tuple[unread.ParamWarning, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = self.route.decision
        out = {
            "version": self.contexts.version,
            "nodes": d.nodes,
            "operation": self.route.operation,
            "decision": {**d.context(), "reason": d.reason},
            "files": self.contexts.to_dict()["files"],
            "warnings": list(self.warnings),
        }
        validate_output(EXPLAIN_SCHEMA, out)
        return out


def explain_context(
    version: str,
    nodes: int,
    *,
    root: Path | None = None,
    inputs: bke_context.ContextInputs | None = None,
    operation: str = "install",
) -> ExplainResult:
    """The contexts :func:`render` would render ``version`` with, without rendering."""
    check_nodes(nodes)
    check_operation(operation)
    vdir = resolve_version(version, root)
    inputs = inputs if inputs is not None else default_inputs()
    route = plan_route(vdir, nodes, operation)
    if route.refused:
        raise RefusedError(route.message, key="--nodes")
    contexts = file_contexts(vdir, inputs, route.decision)
    given = tuple(unread.inputs_warnings(vdir, inputs))
    warnings = (
        *policy.overridden_keys(bke_context.typha_params(inputs.params), route.decision),
        *contexts.warnings,
        *route.warnings,
        *(str(w) for w in given),
    )
    return ExplainResult(contexts, route, warnings, given)


# --- checks ---------------------------------------------------------------------------


def check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None = None
) -> CheckReport:
    """Check every version of a tree (``check``): templates, capability, rules, schema,
    context, goldens (and fidelity); ``progress`` sees each version as it finishes."""
    from renderer.checks.runner import run_check

    return run_check(options, progress)


def refused_update(error: InputError) -> bool:
    """Whether ``error`` is :func:`check` refusing to update the goldens of a tree
    without versions (which would remove them all)."""
    from renderer.checks.runner import NothingToUpdate

    return isinstance(error, NothingToUpdate)


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
) -> ReleaseReport:
    """Check one version for release (``capability``): the Typha contract, release rules,
    strict schemas, context (and fidelity to ``upstream``), reviewed exceptions applied."""
    from renderer.checks import exceptions as excepts
    from renderer.checks.pipeline import release_check

    kube = resolve_kube_versions(kube_versions)
    vdir = resolve_version(version, root)
    reviewed = excepts.load(excepts.find_file(root, exceptions_file))
    return release_check(vdir, kube, reviewed, upstream)


@dataclass(frozen=True)
class Validation:
    """Strict schema findings for the objects of some rendered files."""

    files: tuple[str, ...]
    kube_versions: tuple[str, ...]
    findings: tuple[Finding, ...]
    objects: int

    @property
    def errors(self) -> list[Finding]:
        return errors(self.findings)


def validate(files: Sequence[str], kube_versions: Sequence[str] = ()) -> Validation:
    """Schema-check rendered manifest files (``-`` for stdin) in strict mode."""
    from renderer.k8s.yamlio import read_text

    kube = resolve_kube_versions(kube_versions)  # a bad version before any file is read
    objects = [o for name in files for o in parse_stream(read_text(name), name)]
    return Validation(tuple(files), *schema_check(objects, kube), objects=len(objects))
