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

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from renderer.bke import addons as addon_rules
from renderer.bke import context as bke_context
from renderer.bke import missing
from renderer.bke.addons import CONTROLLER_ADDON, PLACEHOLDER
from renderer.bke.admission import ADMISSION_DEFAULT
from renderer.calico import capability, fidelity, policy
from renderer.calico.rules import Rule, RuleInput, generic_rules, run_rules
from renderer.calico.scenarios import Scenario
from renderer.checks import coverage, golden
from renderer.checks import exceptions as excepts
from renderer.checks.addons import (
    AddonCluster,
    AddonRender,
    AddonRenders,
    addon_cluster,
    tree_crds,
)
from renderer.checks.addons import decision_record as addon_decision
from renderer.checks.catalogue import EXCEPTABLE_STAGES
from renderer.checks.options import CheckOptions
from renderer.checks.renders import (
    Renders,
    ScenarioRender,
    assess,
    assess_fidelity,
    render_scenarios,
)
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
from renderer.checks.stages import Stage, Step, error_finding, judged, view
from renderer.checks.validation import (
    SchemaInput,
    SchemaSeen,
    check_with_crds,
    schema_inputs,
)
from renderer.checks.verdict import RULE_NODES, controller_disagreement
from renderer.engine.compile import compile_file
from renderer.engine.render import (
    is_verbatim,
    version_nested_keys,
    version_nested_lines,
)
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
from renderer.k8s.schema import strict_unchecked
from renderer.manifests.tree import ADDON, VersionDir, tree_path, unit_label
from renderer.store.read import read_text

# --- stages ---------------------------------------------------------------------------


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


def scenario_rules(
    renders: Sequence[ScenarioRender], version: str, rules: Sequence[Rule] | None = None
) -> list[Finding]:
    """The release rules (or ``rules``) on every scenario's render (each finding naming
    the scenarios it holds in, merged), as both ``check`` and ``capability`` report them."""
    found = [
        replace(f, scenarios=(r.scenario.name,))
        for r in renders
        for f in run_rules(RuleInput(r.objects, version, r.context, r.scenario.nodes), rules)
    ]
    order = [r.scenario.name for r in renders]
    return sorted(
        merge_findings(found, order), key=lambda f: (f.rule, f.object, f.field, f.message)
    )


def context_findings(version: VersionDir) -> list[Finding]:
    """Keys the version's templates read that no BKE config can set (warnings); the
    file is relative to the version directory."""
    return bke_context.unreachable_keys(version_nested_keys(version), version_nested_lines(version))


def in_tree(
    version: tuple[str, Sequence[str]], findings: Sequence[Finding], addon: str = ADDON
) -> list[Finding]:
    """``findings`` with the templates they are located in named relative to ROOT."""
    name, names = version
    return [
        replace(f, file=tree_path(name, names, f.file, addon)) if f.file else f for f in findings
    ]


def version_of(result: VersionResult) -> tuple[str, Sequence[str]]:
    return result.version, result.files


# --- the stages -----------------------------------------------------------------------

#: What a stage may need beyond the version's templates: a golden directory to compare
#: with (``check`` only), upstream's manifests (``--upstream``), and every rendered
#: object validated (``check`` validates them across versions, after the other stages).
GOLDEN_DIR, UPSTREAM, VALIDATED = "golden directory", "upstream", "validated objects"
#: What the addon gives: Calico's facts (its Typha contract, release rules and upstream
#: releases), or, for every other addon, renders with the controller's context from a
#: representative BKECluster (whose missing keys are named).
CALICO, CONTROLLER_CONTEXT = "calico", "the controller's context"


def addon_needs(addon: str) -> frozenset[str]:
    """What a version of ``addon`` gives its stages beside the command's own needs."""
    return frozenset({CALICO if addon == ADDON else CONTROLLER_CONTEXT})


class VersionRun:
    """What the stages of one version share: its renders (each distinct context once),
    and what earlier stages worked out (the contract, the scenarios and their renders),
    each computed when a stage first asks for it.

    A Calico version renders in the gate's fixed context with each scenario's Typha
    decision (:class:`Renders`); a version of any other addon with the contexts BKE's
    controller builds for it from ``cluster`` (:class:`AddonRenders`).
    """

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
        cluster: AddonCluster | None = None,
        tree: tuple[Path | None, Path | None] | None = None,
    ) -> None:
        self.version = version
        #: The tree's root and cluster, whose CRDs check a custom resource the version's
        #: own do not define (None: its own alone).
        self.tree = tree
        self.calico = version.addon == ADDON
        self.shared: Renders | AddonRenders
        if self.calico:
            self.shared = Renders(version, qualified=qualified)
        else:
            if cluster is None:
                raise ValueError(f"{version.addon} renders with a cluster's context")
            self.shared = AddonRenders(version, cluster)
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
        self._addon: list[tuple[Scenario, AddonRender]] | None = None

    @property
    def renders(self) -> Renders:
        """Calico's shared renders."""
        if not isinstance(self.shared, Renders):
            raise ValueError(f"{self.version.addon} has no Typha renders")
        return self.shared

    @property
    def addon_renders(self) -> AddonRenders:
        """Another addon's shared renders."""
        if not isinstance(self.shared, AddonRenders):
            raise ValueError("Calico renders in the gate's fixed context")
        return self.shared

    @property
    def capability(self) -> capability.CapabilityReport:
        """The Typha contract judged on the shared renders."""
        if self._cap is None:
            self._cap = assess(self.renders)
        return self._cap

    @property
    def coverage(self) -> coverage.Coverage:
        """The scenarios derived from the templates' branches, and what they cover."""
        if self._cov is None:
            if self.calico:
                cap = self.capability
                self._cov = coverage.derive(self.version, cap.capable, cap.legacy, cap.missing)
            else:
                shared = self.addon_renders
                self._cov = coverage.derive_addon(
                    self.version,
                    shared.rendered,
                    shared.cluster.base,
                    controller_keys(shared.contexts),
                    derived_keys(shared.contexts, self.version),
                )
        return self._cov

    @property
    def scenarios(self) -> list[ScenarioRender]:
        """Every derived scenario's render."""
        if self._renders is None:
            if self.calico:
                chosen = self.coverage.scenarios
                self._renders = render_scenarios(self.renders, self.capability, chosen)
            else:
                self._renders = [
                    ScenarioRender(
                        s,
                        addon_decision(s, self.addon_renders.cluster),
                        r.files,
                        r.objects,
                        r.context,
                    )
                    for s, r in self.addon_scenarios
                ]
        return self._renders

    @property
    def addon_scenarios(self) -> list[tuple[Scenario, AddonRender]]:
        """Another addon's scenarios, each with its render (failures and missing keys)."""
        if self._addon is None:
            shared = self.addon_renders
            self._addon = [(s, shared.get(s.values)) for s in self.coverage.scenarios]
        return self._addon

    @property
    def schema_inputs(self) -> list[SchemaInput]:
        """The distinct objects the scenarios render, with the scenarios rendering each."""
        return schema_inputs([(r.scenario.name, r.objects) for r in self.scenarios])


def derived_keys(contexts: bke_context.VersionContexts, version: VersionDir) -> set[str]:
    """The keys of an addon's contexts the controller derives from the cluster's nodes
    or builds for the addon itself (a node script's addresses, the manage file's
    nodes, when its param asks): a scenario keeps the cluster's value, another would
    be no cluster's."""
    built = {bke_context.BKENODES, CONTROLLER_ADDON, PLACEHOLDER}
    own = {
        key
        for listed in (True, False)
        for key in addon_rules.supplied_keys(version.addon, version.name, listed=listed)
    }
    return own | {
        key for f in contexts.files for key, entry in f.entries.items() if entry.source in built
    }


def controller_keys(contexts: bke_context.VersionContexts) -> set[str]:
    """The keys of an addon's contexts the controller always sets (a derived scenario
    never unsets them): every key but those an addon param or admission gave."""
    params = {bke_context.ADDON_PARAM, bke_context.FILE_PARAM, ADMISSION_DEFAULT}
    return {
        key
        for f in contexts.files
        for key, entry in f.entries.items()
        if entry.source not in params
    }


def compile_templates(run: VersionRun) -> list[Finding]:
    """Compile every template (verbatim files are applied as is, as the controller does)."""
    for tf in run.version.files:
        if not is_verbatim(run.version, tf):
            compile_file(tf)
    return []


def unreachable(run: VersionRun) -> list[Finding]:
    return context_findings(run.version)


def contract(run: VersionRun) -> list[Finding]:
    """The Typha contract's failures, and where BKE's controller judges otherwise."""
    return [*located_contract(run.capability), *controller_disagreement(run.version)]


def covered(run: VersionRun) -> list[Finding]:
    run.scenarios  # noqa: B018 -- coverage is of what the scenarios render
    return run.coverage.findings(run.strict)


def rules(run: VersionRun) -> list[Finding]:
    """Calico's release rules on every scenario (none on a legacy version: they are
    Typha's); on another addon, the rules that hold for any addon's objects."""
    if not run.calico:
        return scenario_rules(run.scenarios, run.version.name, generic_rules())
    return [] if run.capability.legacy else scenario_rules(run.scenarios, run.version.name)


def injections(run: VersionRun) -> list[Finding]:
    """Values that changed the YAML their template wrote, in every render so far."""
    return list(run.shared.injections)


def missing_keys(run: VersionRun) -> list[Finding]:
    """Keys an addon's contexts lack where a template reads them (a file that fails on
    one, ``<no value>`` printed into an object: ``context-missing-key``, saying who
    sets the key), and files that do not render or decode, over every scenario."""
    found = [replace(f, scenarios=(s.name,)) for s, r in run.addon_scenarios for f in r.findings]
    return merge_findings(found, [s.name for s, _ in run.addon_scenarios])


def goldens(run: VersionRun) -> list[Finding]:
    """The scenarios' renders against their goldens; a changed decision is located at
    the contract failure that changed it, when there is one."""
    if run.result is None or run.options is None:
        raise ValueError("the goldens stage records in a check's result")
    outputs = [
        golden.ScenarioOutput(r.scenario.name, r.decision, tuple(r.files)) for r in run.scenarios
    ]
    contract = located_contract(run.capability) if run.calico else []
    located = [f for f in contract if f.file and f.line]
    given = golden.GoldenInput(
        outputs,
        run.shared.parsed,
        run.shared.maps,
        [tf.name for tf in run.version.files],
        (located[0].file, located[0].line) if located else None,
        run.version.addon,
    )
    return golden.compare_stage(run.result, given, run.options)


def upstream(run: VersionRun) -> list[Finding]:
    if run.upstream is None:
        raise ValueError("the fidelity stage needs an upstream directory")
    run.fidelity = assess_fidelity(run.renders, run.upstream, run.capability.capable)
    return run.fidelity.findings


def schema(run: VersionRun) -> list[Finding]:
    """Every distinct object of every scenario on every Kubernetes version, a custom
    resource against the version's own CRDs, then the tree's."""
    return list(schema_seen(run).findings)


def tree_root(version: VersionDir) -> Path:
    """The ROOT a version directory lives in (``ROOT/kubernetes/<addon>/<version>``)."""
    return version.path.parents[2]


def schema_seen(run: VersionRun) -> SchemaSeen:
    """What the schema stage sees of the version's objects (:func:`schema`)."""
    version = run.version
    where = f"kubernetes/{version.addon}/{version.name}/"
    others = None
    if run.tree is not None:
        root, config = run.tree
        others = partial(tree_crds, root, config)
    return check_with_crds(run.kube_versions, run.schema_inputs, where, others)


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
    Step(CAPABILITY, contract, frozenset({CALICO}), "the Typha contract, each failure located"),
    Step(COVERAGE, covered, about="template branches no scenario renders"),
    Step(RULES, rules, about="the release rules (another addon: the object rules)"),
    Step(CONTEXT, injections, about="values that change the YAML their template wrote"),
    Step(
        CONTEXT,
        missing_keys,
        frozenset({CONTROLLER_CONTEXT}),
        "keys the controller's context lacks, files that do not render or decode",
    ),
    Step(GOLDENS, goldens, frozenset({GOLDEN_DIR}), "renders against reviewed goldens"),
    Step(
        FIDELITY,
        upstream,
        frozenset({UPSTREAM, CALICO}),
        "renders against upstream's manifests",
    ),
    Step(SCHEMA, schema, frozenset({VALIDATED}), "strict Kubernetes schemas"),
)


def check_stages(
    upstream: Path | None, validated: bool = False, addon: str = ADDON
) -> tuple[Stage[VersionRun], ...]:
    """The ``check`` view for a version of ``addon``: every stage that addon has; before
    the objects are validated, all but schema."""
    given = {GOLDEN_DIR, *addon_needs(addon), *([UPSTREAM] if upstream is not None else [])}
    return view(GATE, given | ({VALIDATED} if validated else set()))


def capability_stages(upstream: Path | None) -> tuple[Stage[VersionRun], ...]:
    """The ``capability`` view (Calico's): the stages without goldens; it compiles the
    templates as it renders them (a template that does not is bad input there, not a
    finding)."""
    given = {VALIDATED, CALICO, *([UPSTREAM] if upstream is not None else [])}
    return view(GATE, given, without=(TEMPLATES,))


def stage_columns(addon: str, upstream: Path | None) -> tuple[str, ...]:
    """The status columns a version of ``addon`` has: those of :data:`STAGES` (and
    fidelity) some stage of its view fills."""
    ran = {s.name for s in check_stages(upstream, True, addon)}
    return tuple(s for s in (*STAGES, FIDELITY) if s in ran)


def except_findings(
    findings: Sequence[Finding],
    exceptions: Sequence[excepts.RuleException],
    version: str,
    addon: str = ADDON,
) -> tuple[list[Finding], list[tuple[int, str, int]]]:
    """The reviewed exceptions applied to a version's findings, in one place for every
    view: the findings kept, and (exception index, version's label, count) per match."""
    kept, counts = excepts.apply(findings, exceptions, version, addon)
    label = unit_label(addon, version)
    return kept, [(i, label, n) for i, n in sorted(counts.items())]


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


def new_result(
    name: str, files: list[str], dialect: str, options: CheckOptions, addon: str = ADDON
) -> VersionResult:
    """A version's result before any stage ran: every column of its addon skipped."""
    columns = stage_columns(addon, options.upstream)
    ran = tuple(dict.fromkeys(s.name for s in check_stages(options.upstream, True, addon)))
    return VersionResult(
        name, files, dialect, stages=dict.fromkeys(columns, SKIP), addon=addon, ran=ran
    )


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
        legacy = run.calico and run.capability.legacy
        st[RULES] = LEGACY if legacy else judged(found, PASS, FAIL)
    elif stage == CONTEXT and not run.calico and _not_rendered(found):
        st[TEMPLATES] = FAIL  # a file the controller cannot render or decode
    elif stage == FIDELITY and run.fidelity is not None:
        result.fidelity = run.fidelity.to_dict()
        st[FIDELITY] = run.fidelity.status
    result.findings.extend(found)


def _not_rendered(found: Sequence[Finding]) -> bool:
    """Whether a file failed to render or decode (an error of the templates, or of a key
    the context lacks, that fails the controller's apply of the file)."""
    return any(
        f.severity == ERROR and f.rule in (f"{TEMPLATES}-error", missing.MISSING_RULE)
        for f in found
    )


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
    addon = version.addon
    result = new_result(version.name, files, "/".join(version.dialects), options, addon)
    result.sources = template_sources(version)
    cluster = None if addon == ADDON else addon_cluster(version, options.root, options.config)
    run = VersionRun(
        version,
        strict=options.strict,
        upstream=options.upstream,
        options=options,
        result=result,
        cluster=cluster,
    )
    for stage in check_stages(options.upstream, addon=addon):
        try:
            found = list(stage.run(run))
        except (fidelity.UpstreamError, golden.GoldenError):
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
    checked: SchemaSeen,
    exceptions: Sequence[excepts.RuleException],
) -> list[tuple[int, str, int]]:
    """The schema stage (``checked``: every object of the version validated and
    located), merged findings and the reviewed exceptions of a prepared version;
    returns the exceptions' (index, version, count) matches."""
    if _rendered(result):
        result.findings.extend(checked.findings)
        result.stages[SCHEMA] = judged(checked.findings, PASS, FAIL)
        result.objects = checked.counts()
    result.findings = merge_findings(in_tree(version_of(result), result.findings, result.addon))
    return apply_exceptions(result, exceptions)


def _rendered(result: VersionResult) -> bool:
    """Whether the version's scenarios rendered (so its objects are schema-checked):
    Calico's when its templates passed and the contract was judged; another addon's
    when its scenarios were derived (a file that failed is left out of them)."""
    if result.addon == ADDON:
        return result.stages[TEMPLATES] == PASS and result.stages[CAPABILITY] != SKIP
    return result.stages[COVERAGE] != SKIP


def check_version(version: VersionDir, options: CheckOptions) -> VersionResult:
    """Every stage for one version, in this process; its custom resources checked
    against its own CRDs, then the tree's."""
    result, inputs = prepare_version(version, options)
    where = f"kubernetes/{version.addon}/{version.name}/"
    others = partial(tree_crds, options.root, options.config)
    checked = check_with_crds(options.kube_versions, inputs, where, others)
    finish_version(result, checked, options.exceptions.items)
    return result


def apply_exceptions(
    result: VersionResult, exceptions: Sequence[excepts.RuleException]
) -> list[tuple[int, str, int]]:
    """Apply reviewed exceptions to the version's findings, then re-judge the stages
    whose failures were all excepted; returns (exception index, version, count) matches."""
    kept, matches = except_findings(result.findings, exceptions, result.version, result.addon)
    result.findings = kept
    fid = result.fidelity
    if fid is not None and not fid.get("note"):  # the summary counts what is left
        mine = [f for f in kept if f.stage == FIDELITY]
        fid["errors"] = sum(1 for f in mine if f.severity == ERROR)
        fid["warnings"] = sum(1 for f in mine if f.severity == "warning")
        fid["deviations"] = sum(n for i, _, n in matches if exceptions[i].kind == excepts.DEVIATION)
    for stage in (s for s in (*STAGES, FIDELITY) if s in EXCEPTABLE_STAGES):
        if result.stages.get(stage) != FAIL:
            continue
        if any(f.stage == stage and f.severity == ERROR for f in kept):
            continue
        if stage == FIDELITY and fid is not None:
            if fid.get("note"):
                continue
            fid["status"] = PASS
        result.stages[stage] = PASS
    result.exceptions = [
        (exceptions[i].rule, exceptions[i].severity, exceptions[i].reason, n)
        for i, _, n in matches
        if exceptions[i].kind == excepts.EXCEPTION
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
        key = (f.kube_versions[:1], f.object, f.field, f.message)
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
    run = VersionRun(
        version,
        qualified=True,
        strict=strict,
        upstream=upstream,
        kube_versions=kube,
        tree=(tree_root(version), None),
    )
    where = (version.name, [f.name for f in version.files])
    # Every scenario renders first: a template that does not compile or render is bad
    # input here, and the first file that fails is the one reported.
    run.scenarios  # noqa: B018
    found: list[Finding] = []
    for stage in capability_stages(upstream):
        mine = list(stage.run(run))
        if stage.name == SCHEMA:
            mine = release_schema(strict_unchecked(mine) if strict else mine)
        found += in_tree(where, mine)
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
        fidelity=None
        if fid is None
        else replace(
            fid,
            findings=by.get(FIDELITY, []),
            deviations=sum(
                n for i, _, n in matches if exceptions.items[i].kind == excepts.DEVIATION
            ),
        ),
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
