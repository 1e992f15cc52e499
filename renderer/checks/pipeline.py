"""The version check: one list of stages (:data:`GATE`), and the two views of it that
``check`` and ``capability`` run.

Every stage is a function of a :class:`VersionRun` (the version's shared renders: each
distinct context renders once, each distinct file parses once) returning findings with
its own ``stage``. :func:`check_version` runs the whole list for one version; the runner
(:mod:`renderer.checks.runner`) splits it around schema validation to share that work
across versions and processes. :func:`release_check` is the ``capability`` view: the
list without templates and goldens. Both apply the reviewed exceptions through
:func:`except_findings`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from renderer.bke import TYPHA_KEYS
from renderer.bke import context as bke_context
from renderer.bke.values import build_context
from renderer.calico import capability, fidelity, policy
from renderer.calico.rules import RuleInput, run_rules
from renderer.calico.scenarios import Scenario, decision_record, route_scenario, scenarios_for
from renderer.checks import coverage, golden
from renderer.checks import exceptions as excepts
from renderer.checks.catalogue import EXCEPTABLE_STAGES
from renderer.checks.coverage import scenario_context
from renderer.checks.options import CheckOptions
from renderer.checks.report import (
    FAIL,
    LEGACY,
    PASS,
    SKIP,
    STAGES,
    ReleaseReport,
    ScenarioResult,
    VersionResult,
)
from renderer.checks.stages import Stage, Step, judged, view
from renderer.engine.compile import compile_file
from renderer.engine.render import (
    is_verbatim,
    render_version,
    version_keys,
    version_nested_keys,
    version_nested_lines,
)
from renderer.engine.sourcemap import SourceMap
from renderer.errors import CalicoRenderError
from renderer.finding import (
    CAPABILITY,
    CONTEXT,
    COVERAGE,
    ERROR,
    FIDELITY,
    GOLDENS,
    RULES,
    SCHEMA,
    TEMPLATES,
    Finding,
    ObjectRef,
    merge_findings,
)
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject, parse_rendered, parse_stream
from renderer.manifests.tree import VersionDir, tree_path
from renderer.store.memo import Memo
from renderer.store.read import read_text

#: The node count rules judge: the smallest cluster that gets Typha (3 replicas).
RULE_NODES = policy.TYPHA_NODE_THRESHOLD + 1

Rendered = tuple[dict[str, Any], list[tuple[str, str]], list[K8sObject]]


@dataclass
class ScenarioRender:
    scenario: Scenario
    decision: dict[str, Any]
    files: list[tuple[str, str]]
    objects: list[K8sObject]
    context: Mapping[str, Any]


class Renders:
    """Renders of one version keyed by their Typha context: each distinct one renders once.

    The capability contract (off, on at 3 and at 4 replicas) and the scenarios ask for
    the same contexts, so the scenarios reuse the contract's renders; a file that
    renders alike in several contexts is parsed once. Objects name their file relative
    to the version directory (as goldens do), or with it when ``qualified``.
    """

    def __init__(self, version: VersionDir, *, qualified: bool = False) -> None:
        self.version = version
        self.qualified = qualified
        self._parsed: dict[tuple[str, str], list[K8sObject]] = {}
        self._cache: dict[tuple[Any, ...], Rendered] = {}
        #: Values that changed the YAML a template wrote, over every render so far.
        self.injections: list[Finding] = []

    def get(
        self,
        typha: Mapping[str, str],
        values: Mapping[str, str] | None = None,
        repo: str = capability.CHECK_REPO,
        overrides: Sequence[tuple[str, str | None]] = (),
    ) -> Rendered:
        """The render with ``typha`` (and other context ``values``) on the defaults;
        ``overrides`` are a derived scenario's values, set last (None: unset)."""
        key: tuple[Any, ...] = tuple(sorted(typha.items()))
        if values or repo != capability.CHECK_REPO or overrides:
            key = (key, tuple(sorted((values or {}).items())), repo, tuple(overrides))
        if key not in self._cache:
            base = build_context(dict(values or {}), typha=typha, repo=repo)
            ctx = scenario_context(base, overrides)
            rendered = render_version(self.version, ctx)
            self.injections.extend(bke_context.injection_findings(rendered))
            files = [(f.name.split("/", 1)[1], f.text) for f in rendered]
            objects = [
                o
                for (name, text), f in zip(files, rendered, strict=True)
                for o in self._parse(f.name if self.qualified else name, text, f.lines)
            ]
            self._cache[key] = (ctx, files, objects)
        return self._cache[key]

    def render(
        self, version: VersionDir, typha: Mapping[str, str]
    ) -> tuple[dict[str, Any], list[K8sObject]]:
        """:data:`capability.Render` over these renders (``version`` must be theirs)."""
        if version != self.version:
            raise ValueError(f"renders of {self.version.name} asked for {version.name}")
        ctx, _, objects = self.get(typha)
        return ctx, objects

    @property
    def parsed(self) -> Mapping[tuple[str, str], list[K8sObject]]:
        """Every rendered file parsed so far, keyed by (file name, text)."""
        return self._parsed

    def _parse(self, name: str, text: str, lines: SourceMap | None = None) -> list[K8sObject]:
        """Parse a rendered file once even when several contexts render it alike (CRDs)."""
        key = (name, text)
        if key not in self._parsed:
            self._parsed[key] = parse_stream(text, name, lines=lines)
        return self._parsed[key]


def render_objects(
    version: VersionDir, typha: Mapping[str, str]
) -> tuple[Mapping[str, Any], tuple[K8sObject, ...]]:
    """Render ``version`` on the controller's default context plus Typha keys; parse it."""
    context = build_context({}, typha=typha, repo=capability.CHECK_REPO)
    files = render_version(version, context)
    return context, tuple(parse_rendered(files))


def capability_of(version: VersionDir) -> capability.CapabilityReport:
    """The Typha contract of ``version`` on renders of BKE's default context."""
    return capability.assess_capability(version, render_objects)


def fidelity_renderer(version: VersionDir) -> fidelity.RenderFn:
    """Renders of ``version`` on the context defaults with an empty repo; a file that
    renders alike in several scenarios (the CRDs) is parsed once."""
    parsed: dict[tuple[str, str], list[K8sObject]] = {}

    def render(values: Mapping[str, str]) -> list[K8sObject]:
        out: list[K8sObject] = []
        for f in render_version(version, build_context(dict(values), repo="")):
            if (f.name, f.text) not in parsed:
                parsed[f.name, f.text] = parse_stream(f.text, f.name, lines=f.lines)
            out.extend(parsed[f.name, f.text])
        return out

    return render


# --- stages ---------------------------------------------------------------------------


def assess(renders: Renders) -> capability.CapabilityReport:
    """The Typha contract judged on the shared renders (off, on at two replica counts)."""
    return capability.assess_capability(renders.version, render=renders.render)


def located_contract(cap: capability.CapabilityReport) -> list[Finding]:
    """A capability failure per problem of each contract item incomplete Typha templates
    miss (none for a legacy version), located at the object it is about, or the object
    that needs a missing one: ``typha-replicas: spec.replicas: 3, typhaReplicas=4``
    about ``Deployment kube-system/calico-typha`` at its template line."""
    if cap.legacy:
        return []
    out: dict[tuple[Any, ...], Finding] = {}
    for item in cap.items:
        if item.ok:
            continue
        for p in item.problems or (capability.Problem(item.detail, item.detail),):
            obj = p.obj
            f = Finding(
                item.id,
                ERROR,
                p.message,
                stage=CAPABILITY,
                object=ObjectRef(obj.kind, obj.name, obj.namespace, obj.api_version)
                if obj is not None
                else None,
                field=p.path,
                file=obj.file if obj is not None else "",
                line=(obj.field_line(p.path) if p.path else obj.source_line or obj.line)
                if obj is not None
                else 0,
                rendered_line=obj.line if obj is not None else 0,
            )
            out.setdefault((f.rule, f.message, f.object, f.field), f)
    return list(out.values())


def release_rules(report: capability.CapabilityReport) -> list[Finding]:
    """The release rules on the contract's Typha-on render for :data:`RULE_NODES`."""
    on = report.typha_on(policy.decide_typha(RULE_NODES).replicas)
    return run_rules(RuleInput(on.objects, report.version, on.context, RULE_NODES))


def rule_findings(cap: capability.CapabilityReport) -> list[Finding]:
    """The release rules as the check report shows them (as capability does)."""
    return release_rules(cap)


def scenario_rules(renders: Sequence[ScenarioRender], version: str) -> list[Finding]:
    """The release rules on every scenario's render (each finding naming the scenarios
    it holds in, merged), as both ``check`` and ``capability`` report them."""
    found = [
        replace(f, scenarios=(r.scenario.name,))
        for r in renders
        for f in run_rules(RuleInput(r.objects, version, r.context, r.scenario.nodes))
    ]
    order = [r.scenario.name for r in renders]
    return sorted(
        merge_findings(found, order), key=lambda f: (f.rule, f.object, f.field, f.message)
    )


def context_findings(version: VersionDir) -> list[Finding]:
    """Keys the version's templates read that no BKE config can set (warnings); the
    file is relative to the version directory."""
    return bke_context.unreachable_keys(version_nested_keys(version), version_nested_lines(version))


def error_finding(stage: str, error: CalicoRenderError) -> Finding:
    """A stage that failed with ``error``, located where the error is."""
    return Finding(
        f"{stage}-error",
        ERROR,
        error.message,
        stage=stage,
        file=error.file or "",
        line=error.line or 0,
        column=error.column or 0 if error.line else 0,
    )


def in_tree(version: tuple[str, Sequence[str]], findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the templates they are located in named relative to ROOT."""
    name, names = version
    return [replace(f, file=tree_path(name, names, f.file)) if f.file else f for f in findings]


def version_of(result: VersionResult) -> tuple[str, Sequence[str]]:
    return result.version, result.files


def render_scenarios(
    shared: Renders,
    cap: capability.CapabilityReport,
    chosen: Sequence[Scenario] | None = None,
) -> list[ScenarioRender]:
    """The version's scenarios (``chosen``, by default routing's), each from the shared
    renders. Incomplete Typha templates render the capable scenarios: routing refuses
    their installs above 50 nodes (the decision says so), but their Typha-on renders are
    what needs checking."""
    out = []
    for scenario in scenarios_for(not cap.legacy) if chosen is None else chosen:
        route = route_scenario(scenario, cap.capable, shared.version.name, tuple(cap.missing))
        ctx, files, objects = shared.get(route.decision.context(), overrides=scenario.values)
        decision = decision_record(scenario, route)
        out.append(ScenarioRender(scenario, decision, files, objects, ctx))
    return out


def gate_renders(
    shared: Renders,
) -> tuple[capability.CapabilityReport, coverage.Coverage, list[ScenarioRender]]:
    """The contract, the scenarios derived from the templates (and what they cover), and
    their renders: what both ``check`` and ``capability`` judge."""
    cap = assess(shared)
    cov = coverage.derive(shared.version, cap.capable, cap.legacy, cap.missing)
    return cap, cov, render_scenarios(shared, cap, cov.scenarios)


def fidelity_render(shared: Renders) -> fidelity.RenderFn:
    """Fidelity's renders of a version (empty repo) through the shared renders, so a
    file that renders alike (the CRDs) is parsed once for every stage."""

    def render(values: Mapping[str, str]) -> list[K8sObject]:
        typha = {k: v for k, v in values.items() if k in TYPHA_KEYS}
        rest = {k: v for k, v in values.items() if k not in TYPHA_KEYS}
        return shared.get(typha, rest, repo="")[2]

    return render


def assess_fidelity(shared: Renders, upstream: Path, capable: bool) -> fidelity.FidelityResult:
    """The version against upstream's manifests of its tag."""
    return fidelity.assess_fidelity(
        shared.version.name,
        upstream,
        fidelity_render(shared),
        capable=capable,
        keys=version_keys(shared.version),
    )


# --- schema ---------------------------------------------------------------------------

_VALIDATORS: Memo[tuple[str, ...], kubeschema.SchemaValidator] = Memo("checks.validators", 8)


def schema_validator(kube_versions: Sequence[str]) -> kubeschema.SchemaValidator:
    """One validator per process and Kubernetes versions, so its per-object cache spans
    every version this process checks (CRDs repeat across Calico releases)."""
    key = tuple(kube_versions)
    return _VALIDATORS.setdefault(key, lambda: kubeschema.SchemaValidator(key))


@dataclass(frozen=True)
class SchemaInput:
    """A distinct rendered object of a version (first occurrence) and its scenarios."""

    digest: str
    obj: K8sObject
    scenarios: tuple[str, ...]


SchemaResults = dict[str, tuple[Finding, ...]]


def schema_inputs(renders: Sequence[tuple[str, Sequence[K8sObject]]]) -> list[SchemaInput]:
    """The distinct objects of (scenario name, objects) renders, in first-seen order."""
    distinct: dict[str, tuple[K8sObject, list[str]]] = {}
    for name, objects in renders:
        for obj in objects:
            digest = kubeschema.canonical_hash(obj.data)
            if digest not in distinct:
                distinct[digest] = (obj, [])
            if name not in distinct[digest][1]:
                distinct[digest][1].append(name)
    return [SchemaInput(d, obj, tuple(scen)) for d, (obj, scen) in distinct.items()]


def validate_objects(
    kube_versions: Sequence[str], items: Sequence[tuple[str, dict[str, Any]]]
) -> SchemaResults:
    """Schema findings per object digest, on every Kubernetes version (no location)."""
    validator = schema_validator(kube_versions)
    return {digest: tuple(validator.validate(data)) for digest, data in items}


def located(inputs: Sequence[SchemaInput], results: SchemaResults) -> list[Finding]:
    """The schema findings of ``inputs``, located at each object's first occurrence."""
    return [
        replace(f, file=item.obj.file, line=item.obj.field_line(f.field), scenarios=item.scenarios)
        for item in inputs
        for f in results[item.digest]
    ]


# --- the stages -----------------------------------------------------------------------

#: What a stage may need beyond the version's templates: a golden directory to compare
#: with (``check`` only), upstream's manifests (``--upstream``), and every rendered
#: object validated (``check`` validates them across versions, after the other stages).
GOLDEN_DIR, UPSTREAM, VALIDATED = "golden directory", "upstream", "validated objects"


class VersionRun:
    """What the stages of one version share: its renders (each distinct context once),
    and what earlier stages worked out (the contract, the scenarios and their renders),
    each computed when a stage first asks for it."""

    def __init__(
        self,
        version: VersionDir,
        *,
        qualified: bool = False,
        strict: bool = False,
        upstream: Path | None = None,
        kube_versions: Sequence[str] = (),
        options: CheckOptions | None = None,
        result: VersionResult | None = None,
    ) -> None:
        self.version = version
        self.shared = Renders(version, qualified=qualified)
        self.strict = strict
        self.upstream = upstream
        self.kube_versions = tuple(kube_versions)
        #: The check's goldens options and the result the goldens stage records in.
        self.options = options
        self.result = result
        self.fidelity: fidelity.FidelityResult | None = None
        self._cap: capability.CapabilityReport | None = None
        self._cov: coverage.Coverage | None = None
        self._renders: list[ScenarioRender] | None = None

    @property
    def capability(self) -> capability.CapabilityReport:
        """The Typha contract judged on the shared renders."""
        if self._cap is None:
            self._cap = assess(self.shared)
        return self._cap

    @property
    def coverage(self) -> coverage.Coverage:
        """The scenarios derived from the templates' branches, and what they cover."""
        if self._cov is None:
            cap = self.capability
            self._cov = coverage.derive(self.version, cap.capable, cap.legacy, cap.missing)
        return self._cov

    @property
    def scenarios(self) -> list[ScenarioRender]:
        """Every derived scenario's render."""
        if self._renders is None:
            self._renders = render_scenarios(self.shared, self.capability, self.coverage.scenarios)
        return self._renders

    @property
    def schema_inputs(self) -> list[SchemaInput]:
        """The distinct objects the scenarios render, with the scenarios rendering each."""
        return schema_inputs([(r.scenario.name, r.objects) for r in self.scenarios])


def compile_templates(run: VersionRun) -> list[Finding]:
    """Compile every template (verbatim files are applied as is, as the controller does)."""
    for tf in run.version.files:
        if not is_verbatim(run.version, tf):
            compile_file(tf)
    return []


def unreachable(run: VersionRun) -> list[Finding]:
    return context_findings(run.version)


def contract(run: VersionRun) -> list[Finding]:
    return located_contract(run.capability)


def covered(run: VersionRun) -> list[Finding]:
    run.scenarios  # noqa: B018 -- coverage is of what the scenarios render
    return run.coverage.findings(run.strict)


def rules(run: VersionRun) -> list[Finding]:
    """The release rules on every scenario; none on a legacy version (they are Typha's)."""
    return [] if run.capability.legacy else scenario_rules(run.scenarios, run.version.name)


def injections(run: VersionRun) -> list[Finding]:
    """Values that changed the YAML their template wrote, in every render so far."""
    return list(run.shared.injections)


def goldens(run: VersionRun) -> list[Finding]:
    if run.result is None or run.options is None:
        raise ValueError("the goldens stage records in a check's result")
    outputs = [
        golden.ScenarioOutput(r.scenario.name, r.decision, tuple(r.files)) for r in run.scenarios
    ]
    return golden.compare_stage(run.result, outputs, run.shared.parsed, run.options)


def upstream(run: VersionRun) -> list[Finding]:
    if run.upstream is None:
        raise ValueError("the fidelity stage needs an upstream directory")
    run.fidelity = assess_fidelity(run.shared, run.upstream, run.capability.capable)
    return run.fidelity.findings


def schema(run: VersionRun) -> list[Finding]:
    """Every distinct object of every scenario on every Kubernetes version."""
    inputs = run.schema_inputs
    items = [(i.digest, i.obj.data) for i in inputs]
    return located(inputs, validate_objects(run.kube_versions, items))


#: The context keys a config cannot reach (their own step: the check report lists them first).
UNREACHABLE = Step(CONTEXT, unreachable, about="keys the templates read that no BKE config can set")

#: Every stage of a version check, in the order they run and list their findings (a
#: report's status columns are :data:`renderer.checks.report.STAGES`). ``check`` runs
#: them all (the schema stage last, once the runner validated every version's objects),
#: ``capability`` all but the templates and goldens (:func:`check_stages`,
#: :func:`capability_stages`).
GATE: tuple[Step[VersionRun], ...] = (
    Step(TEMPLATES, compile_templates, about="every template compiles"),
    UNREACHABLE,
    Step(CAPABILITY, contract, about="the Typha contract, each failure located"),
    Step(COVERAGE, covered, about="template branches no scenario renders"),
    Step(RULES, rules, about="the release rules on every scenario"),
    Step(CONTEXT, injections, about="values that change the YAML their template wrote"),
    Step(GOLDENS, goldens, frozenset({GOLDEN_DIR}), "renders against reviewed goldens"),
    Step(FIDELITY, upstream, frozenset({UPSTREAM}), "renders against upstream's manifests"),
    Step(SCHEMA, schema, frozenset({VALIDATED}), "strict Kubernetes schemas"),
)


def check_stages(upstream: Path | None, validated: bool = False) -> tuple[Stage[VersionRun], ...]:
    """The ``check`` view: every stage; before the objects are validated, all but schema."""
    given = {GOLDEN_DIR, *([UPSTREAM] if upstream is not None else [])}
    return view(GATE, given | ({VALIDATED} if validated else set()))


def capability_stages(upstream: Path | None) -> tuple[Stage[VersionRun], ...]:
    """The ``capability`` view: the stages without goldens; it compiles the templates
    as it renders them (a template that does not is bad input there, not a finding)."""
    given = {VALIDATED, *([UPSTREAM] if upstream is not None else [])}
    return view(GATE, given, without=(TEMPLATES,))


def except_findings(
    findings: Sequence[Finding], exceptions: Sequence[excepts.RuleException], version: str
) -> tuple[list[Finding], list[tuple[int, str, int]]]:
    """The reviewed exceptions applied to a version's findings, in one place for every
    view: the findings kept, and (exception index, version, count) per match."""
    kept, counts = excepts.apply(findings, exceptions, version)
    return kept, [(i, version, n) for i, n in sorted(counts.items())]


# --- the check view -------------------------------------------------------------------


def template_sources(version: VersionDir) -> dict[str, str]:
    """Each readable template's text by name (a report shows the lines around a
    finding); a file that cannot be read is left out, the templates stage reports it."""
    out = {}
    for tf in version.files:
        try:
            out[tf.name] = read_text(tf.path)
        except CalicoRenderError:
            continue
    return out


def new_result(name: str, files: list[str], dialect: str, options: CheckOptions) -> VersionResult:
    """A version's result before any stage ran: every column skipped."""
    result = VersionResult(name, files, dialect)
    if options.upstream is not None:
        result.stages[FIDELITY] = SKIP
    return result


def _record(result: VersionResult, run: VersionRun, stage: str, found: list[Finding]) -> None:
    """A stage's findings and status in the check's result, and what it records beside."""
    st = result.stages
    if stage == TEMPLATES:
        st[TEMPLATES] = PASS
    elif stage == CAPABILITY:
        cap = run.capability
        result.missing = cap.missing
        # Incomplete Typha templates fail here; every other stage still runs on them.
        st[CAPABILITY] = PASS if cap.capable else LEGACY if cap.legacy else FAIL
    elif stage == COVERAGE:
        result.scenarios = [
            ScenarioResult(r.scenario.name, r.scenario.nodes, r.scenario.operation, r.decision)
            for r in run.scenarios
        ]
        result.coverage = run.coverage.to_dict()
        st[COVERAGE] = judged(found, PASS, FAIL)
    elif stage == RULES:
        st[RULES] = LEGACY if run.capability.legacy else judged(found, PASS, FAIL)
    elif stage == FIDELITY and run.fidelity is not None:
        result.fidelity = run.fidelity.to_dict()
        st[FIDELITY] = run.fidelity.status
    result.findings.extend(found)


def _fidelity_failed(result: VersionResult, exc: CalicoRenderError) -> None:
    """A scenario only fidelity renders failed: the stage fails, nothing is compared."""
    result.stages[FIDELITY] = FAIL
    result.findings.append(error_finding(FIDELITY, exc))
    note = f"not compared: a scenario failed to render: {exc.message}"
    result.fidelity = fidelity.FidelityResult("", FAIL, note=note).to_dict()


def prepare_version(
    version: VersionDir, options: CheckOptions
) -> tuple[VersionResult, list[SchemaInput]]:
    """Every stage but schema validation, and the distinct objects left to validate.

    Validation is left to the caller so objects repeated across versions (and worker
    processes) are validated once. A failing stage never raises: a template that does
    not compile or render fails the templates and ends the version's check.
    """
    files = [f.name for f in version.files]
    result = new_result(version.name, files, "/".join(version.dialects), options)
    result.sources = template_sources(version)
    run = VersionRun(
        version, strict=options.strict, upstream=options.upstream, options=options, result=result
    )
    for stage in check_stages(options.upstream):
        try:
            found = list(stage.run(run))
        except fidelity.UpstreamError:
            raise
        except CalicoRenderError as exc:
            if stage.name == FIDELITY:  # a scenario the other stages never render
                _fidelity_failed(result, exc)
                continue
            result.stages[TEMPLATES] = FAIL
            result.findings.append(error_finding(TEMPLATES, exc))
            return result, []
        if stage is UNREACHABLE:  # the check report carries no key with them
            found = [replace(f, details=None) for f in found]
        _record(result, run, stage.name, found)
    return result, run.schema_inputs


def finish_version(
    result: VersionResult,
    inputs: Sequence[SchemaInput],
    results: SchemaResults,
    exceptions: Sequence[excepts.RuleException],
) -> list[tuple[int, str, int]]:
    """The schema stage, merged findings and the reviewed exceptions of a prepared
    version; returns the exceptions' (index, version, count) matches."""
    if result.stages[TEMPLATES] == PASS and result.stages[CAPABILITY] != SKIP:
        found = located(inputs, results)
        result.findings.extend(found)
        result.stages[SCHEMA] = judged(found, PASS, FAIL)
    result.findings = merge_findings(in_tree(version_of(result), result.findings))
    return apply_exceptions(result, exceptions)


def check_version(version: VersionDir, options: CheckOptions) -> VersionResult:
    """Every stage for one version, in this process."""
    result, inputs = prepare_version(version, options)
    results = validate_objects(options.kube_versions, [(i.digest, i.obj.data) for i in inputs])
    finish_version(result, inputs, results, options.exceptions.items)
    return result


def apply_exceptions(
    result: VersionResult, exceptions: Sequence[excepts.RuleException]
) -> list[tuple[int, str, int]]:
    """Apply reviewed exceptions to the version's findings, then re-judge the stages
    whose failures were all excepted; returns (exception index, version, count) matches."""
    kept, matches = except_findings(result.findings, exceptions, result.version)
    result.findings = kept
    for stage in (s for s in (*STAGES, FIDELITY) if s in EXCEPTABLE_STAGES):
        if result.stages.get(stage) != FAIL:
            continue
        if any(f.stage == stage and f.severity == ERROR for f in kept):
            continue
        if stage == FIDELITY and result.fidelity is not None:
            if result.fidelity.get("note"):
                continue
            mine = [f for f in kept if f.stage == stage]
            result.fidelity["errors"] = 0
            result.fidelity["warnings"] = sum(1 for f in mine if f.severity == "warning")
            result.fidelity["status"] = PASS
        result.stages[stage] = PASS
    result.exceptions = [
        (exceptions[i].rule, exceptions[i].severity, exceptions[i].reason, n) for i, _, n in matches
    ]
    return matches


# --- the capability view --------------------------------------------------------------


def release_schema(found: Sequence[Finding]) -> list[Finding]:
    """The schema findings as ``capability`` lists them: one per Kubernetes version,
    object, field and message (whatever scenarios render it), sorted by version and
    place."""
    seen: set[tuple[object, ...]] = set()
    out: list[Finding] = []
    for f in found:
        key = (f.kube_versions[0], f.object, f.field, f.message)
        if key not in seen:
            seen.add(key)
            out.append(replace(f, scenarios=()))
    return sorted(out, key=kubeschema.schema_sort_key)


def release_check(
    version: VersionDir,
    kube_versions: Sequence[str],
    exceptions: excepts.ExceptionSet,
    upstream: Path | None = None,
    strict: bool = False,
) -> ReleaseReport:
    """The ``capability`` view of the pipeline: the contract (its failures located),
    rules and schemas on every scenario ``check`` renders, context and fidelity, with
    the reviewed exceptions applied; no goldens. A contract failure stops nothing."""
    if upstream is not None:
        fidelity.check_upstream_dir(upstream)
    kube = kubeschema.resolve_kube_versions(kube_versions)
    run = VersionRun(version, qualified=True, strict=strict, upstream=upstream, kube_versions=kube)
    where = (version.name, [f.name for f in version.files])
    # Every scenario renders first: a template that does not compile or render is bad
    # input here, and the first file that fails is the one reported.
    run.scenarios  # noqa: B018
    found: list[Finding] = []
    for stage in capability_stages(upstream):
        mine = list(stage.run(run))
        found += in_tree(where, release_schema(mine) if stage.name == SCHEMA else mine)
    kept, matches = except_findings(found, exceptions.items, version.name)
    by: dict[str, list[Finding]] = {}
    for f in kept:
        by.setdefault(f.stage, []).append(f)
    cap = run.capability
    fid = run.fidelity
    return ReleaseReport(
        cap,
        tuple(by.get(RULES, ())),
        tuple(by.get(SCHEMA, ())),
        tuple(kube),
        nodes=RULE_NODES,
        fidelity=None if fid is None else replace(fid, findings=by.get(FIDELITY, [])),
        context=tuple(by.get(CONTEXT, ())),
        exceptions_file=exceptions.file,
        exceptions=tuple(excepts.applied_list(exceptions, [matches])),
        exceptions_notes=exceptions.notes,
        sources=template_sources(version),
        contract=tuple(by.get(CAPABILITY, ())),
        scenarios=() if cap.legacy else tuple(r.scenario.name for r in run.scenarios),
        coverage=tuple(by.get(COVERAGE, ())),
        coverage_counts=run.coverage.to_dict(),
    )
