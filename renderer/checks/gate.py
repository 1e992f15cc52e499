"""The release gate: every stage of ``calico-render check`` for one version, in parallel.

Per version, each stage runs once per distinct input: templates compile once (the
compile cache), each scenario renders and parses once, each distinct object is schema
validated once per Kubernetes version, and the goldens are compared from those same
renders. Versions are independent, so they run in worker processes and are merged back
in version order, which keeps every report byte-identical whatever ``--jobs`` is.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import signal
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from renderer.bke import context as bke_context
from renderer.bke.values import build_context
from renderer.calico import capability, fidelity
from renderer.calico.policy import TYPHA_KEYS
from renderer.calico.scenarios import Scenario, decision_record, route_scenario, scenarios_for
from renderer.checks import exceptions as excepts
from renderer.checks import golden as compare
from renderer.checks import release
from renderer.checks.report import (
    FAIL,
    LEGACY,
    MISSING,
    PASS,
    SKIP,
    UPDATED,
    CheckReport,
    Finding,
    ScenarioResult,
    StaleGolden,
    VersionResult,
    merge_findings,
)
from renderer.engine import limits
from renderer.engine.compile import compile_file
from renderer.engine.render import (
    is_verbatim,
    render_version,
    version_keys,
    version_nested_keys,
    version_nested_lines,
)
from renderer.engine.sourcemap import SourceMap
from renderer.errors import CalicoRenderError, InputError
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.k8s.yamlio import C_LOADER
from renderer.manifests.tree import VersionDir, list_versions, semver_key
from renderer.store.files import exclusive_lock

#: Where a tree's goldens live when ``--golden`` is not given: ``ROOT/golden/calico``.
TREE_GOLDEN = Path("golden") / "calico"


@dataclass(frozen=True)
class CheckOptions:
    """What to check: ROOT (None: bundled), the golden root and the Kubernetes versions."""

    root: Path | None
    golden: Path
    kube_versions: tuple[str, ...] = ()
    #: Whether ``--kube-version`` was given (so the update command repeats it).
    kube_args: bool = False
    update: bool = False
    jobs: int = 1
    #: How ``--manifests``/``--golden`` are shown in the command that creates goldens.
    manifests_arg: str | None = None
    golden_arg: str | None = None
    #: ``--upstream DIR``: compare each version with upstream's manifests there.
    upstream: Path | None = None
    upstream_arg: str | None = None
    #: Reviewed exceptions (ROOT/.calico-render.yaml or --exceptions FILE).
    exceptions: excepts.ExceptionSet = field(default_factory=excepts.ExceptionSet)


@dataclass
class ScenarioRender:
    scenario: Scenario
    decision: dict[str, Any]
    files: list[tuple[str, str]]
    objects: list[K8sObject]


# --- renders, capability, rules and schema -------------------------------------------


class Renders:
    """Renders of one version keyed by their Typha context: each distinct one renders once.

    The capability contract (off, on at 3 and at 4 replicas) and the gate's scenarios ask
    for the same contexts, so the scenarios reuse the contract's renders; a file that
    renders alike in several contexts is parsed once.
    """

    def __init__(self, version: VersionDir) -> None:
        self.version = version
        self._parsed: dict[tuple[str, str], list[K8sObject]] = {}
        self._cache: dict[
            tuple[Any, ...],
            tuple[dict[str, Any], list[tuple[str, str]], list[K8sObject]],
        ] = {}

    def get(
        self,
        typha: Mapping[str, str],
        values: Mapping[str, str] | None = None,
        repo: str = capability.CHECK_REPO,
    ) -> tuple[dict[str, Any], list[tuple[str, str]], list[K8sObject]]:
        """The render with ``typha`` (and other context ``values``) on the defaults."""
        key: tuple[Any, ...] = tuple(sorted(typha.items()))
        if values or repo != capability.CHECK_REPO:
            key = (key, tuple(sorted((values or {}).items())), repo)
        if key not in self._cache:
            ctx = build_context(dict(values or {}), typha=typha, repo=repo)
            rendered = render_version(self.version, ctx)
            files = [(f.name.split("/", 1)[1], f.text) for f in rendered]
            objects = [
                o
                for (name, text), f in zip(files, rendered, strict=True)
                for o in self._parse(name, text, f.lines)
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


def assess(renders: Renders) -> capability.CapabilityReport:
    """The Typha contract judged on the shared renders (off, on at two replica counts)."""
    return capability.assess_capability(renders.version, render=renders.render)


def incomplete_findings(cap: capability.CapabilityReport) -> list[Finding]:
    """A capability failure per contract item that incomplete Typha templates miss."""
    return [
        Finding(
            "capability",
            item.id,
            "error",
            f"Typha templates incomplete: missing {item.description}"
            + (f" ({item.detail})" if item.detail else ""),
        )
        for item in cap.items
        if not item.ok
    ]


def rule_findings(cap: capability.CapabilityReport) -> list[Finding]:
    """The release rules as ``capability`` judges them, as report findings."""
    return [
        Finding(
            "rules",
            f.rule,
            f.severity,
            f"{f.field}: {f.message}" if f.field else f.message,
            object=f.object,
            field=f.field,
            file=f"{f.file}:{f.line}" if f.file and f.line else f.file,
        )
        for f in release.release_rules(cap)
    ]


_VALIDATORS: dict[tuple[str, ...], kubeschema.SchemaValidator] = {}


def _schema_validator(kube_versions: tuple[str, ...]) -> kubeschema.SchemaValidator:
    """One validator per process and Kubernetes versions, so its per-object cache spans
    every version this process checks (CRDs repeat across Calico releases)."""
    if kube_versions not in _VALIDATORS:
        _VALIDATORS[kube_versions] = kubeschema.SchemaValidator(kube_versions)
    return _VALIDATORS[kube_versions]


@dataclass(frozen=True)
class SchemaInput:
    """A distinct rendered object of a version (first occurrence) and its scenarios."""

    digest: str
    obj: K8sObject
    scenarios: tuple[str, ...]


SchemaResults = dict[str, tuple[kubeschema.SchemaFinding, ...]]


def schema_inputs(renders: Sequence[ScenarioRender]) -> list[SchemaInput]:
    """The distinct objects of a version's scenarios, in first-seen order."""
    distinct: dict[str, tuple[K8sObject, list[str]]] = {}
    for r in renders:
        for obj in r.objects:
            digest = kubeschema.canonical_hash(obj.data)
            if digest not in distinct:
                distinct[digest] = (obj, [])
            if r.scenario.name not in distinct[digest][1]:
                distinct[digest][1].append(r.scenario.name)
    return [SchemaInput(d, obj, tuple(scen)) for d, (obj, scen) in distinct.items()]


def validate_objects(
    kube_versions: tuple[str, ...], items: Sequence[tuple[str, dict[str, Any]]]
) -> SchemaResults:
    """Schema findings per object digest, on every Kubernetes version (no location)."""
    validator = _schema_validator(kube_versions)
    return {digest: tuple(validator.validate(data)) for digest, data in items}


def schema_findings(inputs: Sequence[SchemaInput], results: SchemaResults) -> list[Finding]:
    """Report findings for a version's objects, located at their first occurrence."""
    out: list[Finding] = []
    for item in inputs:
        obj = item.obj
        for f in results[item.digest]:
            error = f.severity == kubeschema.ERROR
            out.append(
                Finding(
                    "schema",
                    "schema-invalid" if error else f"schema-{f.severity}",
                    "error" if error else "info",
                    f"{f.path}: {f.message}" if f.path else f.message,
                    object=obj.ref,
                    file=f"{obj.file}:{obj.field_line(f.path)}",
                    scenarios=item.scenarios,
                    kube_versions=(f.kube_version,),
                )
            )
    return out


def finish_schema(
    result: VersionResult, inputs: Sequence[SchemaInput], results: SchemaResults
) -> None:
    """Record the schema stage of a prepared version once its objects are validated."""
    if result.stages["templates"] != PASS or result.stages["capability"] == FAIL:
        return
    found = schema_findings(inputs, results)
    result.findings.extend(found)
    result.stages["schema"] = FAIL if any(f.severity == "error" for f in found) else PASS


def render_scenarios(shared: Renders, cap: capability.CapabilityReport) -> list[ScenarioRender]:
    """The version's scenarios (chosen by capability), each from the shared renders."""
    out = []
    for scenario in scenarios_for(cap.capable):
        route = route_scenario(scenario, cap.capable, shared.version.name, tuple(cap.missing))
        _, files, objects = shared.get(route.decision.context())
        out.append(ScenarioRender(scenario, decision_record(scenario, route), files, objects))
    return out


def golden_output(renders: Sequence[ScenarioRender]) -> dict[str, str]:
    """The golden tree of a version's scenario renders, as {relative path: text}."""
    return compare.golden_files(
        [compare.ScenarioOutput(r.scenario.name, r.decision, tuple(r.files)) for r in renders]
    )


def golden_tree(version: VersionDir) -> dict[str, str]:
    """What ``--update-golden`` would write for ``version`` (no rules, no schemas)."""
    shared = Renders(version)
    return golden_output(render_scenarios(shared, assess(shared)))


# --- one version ----------------------------------------------------------------------


def update_command(options: CheckOptions) -> str:
    """The command that (re)creates goldens for the checked tree."""
    parts = ["calico-render", "check"]
    if options.manifests_arg is not None:
        parts += ["--manifests", options.manifests_arg]
    if options.golden_arg is not None:
        parts += ["--golden", options.golden_arg]
    if options.kube_args:
        for k in options.kube_versions:
            parts += ["--kube-version", k]
    return shlex.join([*parts, "--update-golden"])


def fidelity_render(shared: Renders) -> fidelity.RenderFn:
    """Fidelity's renders of a version (empty repo) through the shared renders, so a
    file that renders alike (the CRDs) is parsed once for every stage."""

    def render(values: Mapping[str, str]) -> list[K8sObject]:
        typha = {k: v for k, v in values.items() if k in TYPHA_KEYS}
        rest = {k: v for k, v in values.items() if k not in TYPHA_KEYS}
        return shared.get(typha, rest, repo="")[2]

    return render


def _fidelity(result: VersionResult, shared: Renders, capable: bool, options: CheckOptions) -> None:
    """The fidelity stage: the version against upstream's manifests of its tag."""
    assert options.upstream is not None
    try:
        found = fidelity.assess_fidelity(
            result.version,
            options.upstream,
            fidelity_render(shared),
            capable=capable,
            keys=version_keys(shared.version),
        )
    except fidelity.UpstreamError:
        raise
    except CalicoRenderError as exc:  # a scenario the other stages never render
        result.stages[fidelity.STAGE] = FAIL
        result.findings.append(_error(fidelity.STAGE, exc))
        note = f"not compared: a scenario failed to render: {exc.message}"
        result.fidelity = fidelity.FidelityResult("", FAIL, note=note).to_dict()
        return
    result.fidelity = found.to_dict()
    result.findings.extend(found.findings)
    result.stages[fidelity.STAGE] = found.status


def context_findings(version: VersionDir) -> list[bke_context.UnreachableKey]:
    """Keys the version's templates read that no BKE config can set (warnings)."""
    return bke_context.unreachable_keys(version_nested_keys(version), version_nested_lines(version))


def _error(stage: str, error: CalicoRenderError) -> Finding:
    return Finding(stage, f"{stage}-error", "error", error.message, file=error.location())


def apply_exceptions(
    result: VersionResult, exceptions: Sequence[excepts.RuleException]
) -> list[tuple[int, str, int]]:
    """Skip or downgrade the findings reviewed exceptions name, then re-judge the stages
    whose failures were all excepted; returns (exception index, version, count) matches."""
    counts: dict[int, int] = {}
    kept: list[Finding] = []
    for f in result.findings:
        found = (
            excepts.match(exceptions, f.id, result.version) if f.stage in excepts.STAGES else None
        )
        if found is None:
            kept.append(f)
            continue
        index = exceptions.index(found)
        counts[index] = counts.get(index, 0) + 1
        if found.severity is not None:
            kept.append(replace(f, severity=found.severity, exception=found.reason))
    result.findings = kept
    for stage in ("rules", "schema", fidelity.STAGE):
        if result.stages.get(stage) != FAIL:
            continue
        if any(f.stage == stage and f.severity == "error" for f in kept):
            continue
        if stage == fidelity.STAGE and result.fidelity is not None:
            if result.fidelity.get("note"):
                continue
            mine = [f for f in kept if f.stage == stage]
            result.fidelity["errors"] = 0
            result.fidelity["warnings"] = sum(1 for f in mine if f.severity == "warning")
            result.fidelity["status"] = PASS
        result.stages[stage] = PASS
    result.exceptions = [
        (exceptions[i].rule, exceptions[i].severity, exceptions[i].reason, n)
        for i, n in sorted(counts.items())
    ]
    return [(i, result.version, n) for i, n in sorted(counts.items())]


def prepare_version(
    version: VersionDir, options: CheckOptions
) -> tuple[VersionResult, list[SchemaInput]]:
    """Every stage but schema validation, and the distinct objects left to validate.

    Validation is left to the caller so objects repeated across versions (and worker
    processes) are validated once. A failing stage never raises.
    """
    result = VersionResult(
        version.name, [f.name for f in version.files], "/".join(version.dialects)
    )
    st = result.stages
    if options.upstream is not None:
        st[fidelity.STAGE] = SKIP
    try:
        for tf in version.files:
            if not is_verbatim(version, tf):  # applied as is, as the controller does
                compile_file(tf)
        st["templates"] = PASS
    except CalicoRenderError as exc:
        st["templates"] = FAIL
        result.findings.append(_error("templates", exc))
        return result, []
    result.findings.extend(
        Finding(
            bke_context.CONTEXT_STAGE,
            u.rule,
            u.severity,
            u.message,
            file=f"{version.name}/{u.file}",
        )
        for u in context_findings(version)
    )
    shared = Renders(version)
    renders: list[ScenarioRender] = []
    try:
        cap = assess(shared)
        result.missing = cap.missing
        if not cap.capable and not cap.legacy:
            st["capability"] = FAIL
            result.findings.extend(incomplete_findings(cap))
            return result, []
        st["capability"] = PASS if cap.capable else LEGACY
        renders = render_scenarios(shared, cap)
        result.scenarios = [
            ScenarioResult(r.scenario.name, r.scenario.nodes, r.scenario.operation, r.decision)
            for r in renders
        ]
    except CalicoRenderError as exc:
        st["templates"] = FAIL
        result.findings.append(_error("templates", exc))
        return result, []
    if cap.capable:
        found = rule_findings(cap)
        result.findings.extend(found)
        st["rules"] = FAIL if any(f.severity == "error" for f in found) else PASS
    else:
        st["rules"] = LEGACY
    _goldens(result, renders, shared.parsed, options)
    if options.upstream is not None:
        _fidelity(result, shared, cap.capable, options)
    return result, schema_inputs(renders)


def _goldens(
    result: VersionResult,
    renders: list[ScenarioRender],
    parsed: Mapping[tuple[str, str], Sequence[K8sObject]],
    options: CheckOptions,
) -> None:
    new = golden_output(renders)
    result.rendered = new
    directory = options.golden / result.version
    g = result.golden
    g.directory = str(directory)
    g.command = update_command(options)
    try:
        loaded = compare.read_golden(directory)
    except (CalicoRenderError, OSError) as exc:
        err = exc if isinstance(exc, CalicoRenderError) else _os_error(exc, directory)
        result.findings.append(_error("goldens", err))
        g.status = result.stages["goldens"] = FAIL
        return
    if loaded is None:
        g.status = result.stages["goldens"] = MISSING
        for s in result.scenarios:
            s.golden = MISSING
        return
    old, unreadable = loaded
    for path, why in unreadable.items():
        result.findings.append(
            Finding(
                "goldens",
                "golden-unreadable",
                "error",
                f"golden file {why}; it counts as changed",
                file=str(directory / path),
            )
        )
    g.files = compare.file_changes(old, new, unreadable)
    if not g.files:
        g.status = result.stages["goldens"] = PASS
        for s in result.scenarios:
            s.golden = PASS
        return
    g.status = result.stages["goldens"] = FAIL
    names = [r.scenario.name for r in renders]
    g.file_diffs = compare.file_diffs(old, new, compare.diff_label(directory), unreadable)
    g.diff = "".join(g.file_diffs.values())
    g.changes = compare.object_changes(old, new, names, parsed, unreadable)
    for s in result.scenarios:
        mine = [c.describe() for c in g.changes if s.name in c.scenarios]
        owned = any(s.name in compare.owners(f.path, names) for f in g.files)
        s.changes = mine
        s.golden = FAIL if mine or owned else PASS


def _os_error(exc: OSError, path: Path) -> InputError:
    return InputError(f"cannot read: {exc.strerror or exc}", file=str(path))


def apply_update(result: VersionResult, options: CheckOptions) -> None:
    """Write the version's rendered goldens (``--update-golden``) and record what changed."""
    if result.rendered is None or result.golden.status not in (FAIL, MISSING):
        return
    directory = options.golden / result.version
    if result.golden.status == FAIL:
        changes = result.golden.files  # what the comparison found
    else:  # MISSING: there are no goldens, every file is new
        changes = compare.file_changes({}, result.rendered)
    result.golden.files = compare.write_golden(directory, result.rendered, changes)
    result.golden.status = result.stages["goldens"] = UPDATED
    for s in result.scenarios:
        s.golden = UPDATED if s.golden in (FAIL, MISSING) else s.golden


# --- the whole tree ------------------------------------------------------------------


def _prepare(version: VersionDir, options: CheckOptions) -> tuple[VersionResult, list[SchemaInput]]:
    start = time.monotonic()
    try:
        result, inputs = prepare_version(version, options)
        result.seconds = time.monotonic() - start
        return result, inputs
    except fidelity.UpstreamError:
        raise  # bad --upstream input stops the whole check (exit 2)
    except CalicoRenderError as exc:
        result = VersionResult(version.name, [], "")
        if options.upstream is not None:
            result.stages[fidelity.STAGE] = SKIP
        result.stages["templates"] = FAIL
        result.findings.append(_error("templates", exc))
        return result, []


def _chunks(items: list[Any], parts: int) -> list[list[Any]]:
    size = max(1, -(-len(items) // parts))
    return [items[i : i + size] for i in range(0, len(items), size)]


class _Merger:
    """Collects prepared versions and validation results; finishes a version when every
    object it rendered has been validated, whichever version's task validated it."""

    def __init__(
        self, options: CheckOptions, progress: Callable[[VersionResult], None] | None
    ) -> None:
        self.options = options
        self.progress = progress
        self.results: dict[str, VersionResult] = {}
        self.inputs: dict[str, list[SchemaInput]] = {}
        self.known: SchemaResults = {}
        self.submitted: set[str] = set()
        self.done: set[str] = set()
        self.matches: list[list[tuple[int, str, int]]] = []

    def add(self, name: str, prepared: tuple[VersionResult, list[SchemaInput]]) -> list[Any]:
        """Record a prepared version; return the objects nobody has validated yet."""
        self.results[name], self.inputs[name] = prepared
        new = [(i.digest, i.obj.data) for i in prepared[1] if i.digest not in self.submitted]
        self.submitted.update(d for d, _ in new)
        return new

    def validated(self, found: SchemaResults) -> None:
        self.known.update(found)
        for name, result in self.results.items():
            if name in self.done or any(i.digest not in self.known for i in self.inputs[name]):
                continue
            finish_schema(result, self.inputs[name], self.known)
            result.findings = merge_findings(result.findings)
            self.matches.append(apply_exceptions(result, self.options.exceptions.items))
            self.done.add(name)
            if self.progress is not None:
                self.progress(result)


def _init_worker(render_timeout: float) -> None:
    """Workers leave Ctrl-C to the main process, which reports it once, and render
    under the main process's time limit (not inherited by spawned processes)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limits.set_render_timeout(render_timeout)


def run_check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None = None
) -> CheckReport:
    """Check every version under ROOT; ``progress`` sees each version as it finishes.

    Versions are prepared (rendered, ruled, compared) in worker processes; each object
    not seen before is sent for validation as soon as its version is prepared.
    """
    if not C_LOADER:
        raise InputError("ruamel.yaml's C loader is not available; install ruamel.yaml.clib")
    if not options.kube_versions:
        options = replace(options, kube_versions=kubeschema.resolve_kube_versions())
    if options.update and not list_versions(options.root):
        # An update of a tree without versions would remove every golden as stale.
        raise InputError(
            "no Calico versions found; refusing to update goldens (it would remove them all)",
            file=options.manifests_arg,
            key="--update-golden",
        )
    if options.update:  # two updates of one golden directory would interleave
        with exclusive_lock(options.golden, "update-golden"):
            return _run_check(options, progress)
    return _run_check(options, progress)


def _run_check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None
) -> CheckReport:
    versions = list_versions(options.root)
    names = [v.name for v in versions]
    if options.upstream is not None:  # refuse a bad DIR before any work
        fidelity.check_upstream_dir(options.upstream)
        for name in names:
            fidelity.upstream_files(options.upstream, name)
    merger = _Merger(options, progress)
    kube = options.kube_versions
    jobs = max(1, min(options.jobs, len(names) or 1))
    if jobs == 1:
        for version in versions:
            new = merger.add(version.name, _prepare(version, options))
            merger.validated(validate_objects(kube, new))
    else:
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=_init_worker, initargs=(limits.render_timeout(),)
        ) as pool:
            prepared = {pool.submit(_prepare, v, options): v.name for v in versions}
            pending: set[Future[Any]] = set(prepared)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    if fut in prepared:
                        new = merger.add(prepared[fut], fut.result())
                        for chunk in _chunks(new, jobs):
                            pending.add(pool.submit(validate_objects, kube, chunk))
                        merger.validated({})
                    else:
                        merger.validated(fut.result())
    ordered = [merger.results[n] for n in names]
    stale = find_stale(options, names)
    if options.update:
        for r in ordered:
            apply_update(r, options)
        for s in stale:  # only once every new golden is in place
            remove_stale(s)
    return CheckReport(
        manifests=options.manifests_arg or "(bundled manifests)",
        golden=golden_label(options),
        kube_versions=list(options.kube_versions),
        versions=ordered,
        update=options.update,
        stale=stale,
        upstream=options.upstream_arg if options.upstream is not None else None,
        exceptions_file=options.exceptions.file,
        exceptions=excepts.applied_list(options.exceptions, merger.matches),
    )


def golden_label(options: CheckOptions) -> str:
    """How the report names the golden directory."""
    if options.golden_arg is not None:
        return options.golden_arg
    return "(bundled goldens)" if options.root is None else str(options.golden)


def find_stale(options: CheckOptions, versions: Collection[str]) -> list[StaleGolden]:
    """Golden directories named like a version that is not in the tree, in version order.

    Only directories whose name is a version (``v3.28.2``) count, so a ``--golden``
    pointing at the wrong place never makes unrelated directories "stale".
    """
    root = options.golden
    if not root.is_dir():
        return []
    dirs = [
        p
        for p in root.iterdir()
        if p.is_dir()
        and not p.name.startswith(".")
        and p.name not in versions
        and semver_key(p.name)[0] == 0
    ]
    out = []
    for d in sorted(dirs, key=lambda p: semver_key(p.name)):
        try:
            files = sorted(
                f.relative_to(d).as_posix()
                for f in d.rglob("*")
                if f.is_file() and not any(x.startswith(".") for x in f.relative_to(d).parts)
            )
        except FileNotFoundError:  # removed while listed (a concurrent update)
            continue
        out.append(StaleGolden(d.name, str(d), files, update_command(options)))
    return out


def remove_stale(stale: StaleGolden) -> None:
    """Remove a stale golden directory: renamed aside first (one atomic step, so it is
    gone or whole), then deleted."""
    directory = Path(stale.directory)
    aside = directory.with_name(f".{directory.name}.removed-{secrets.token_hex(6)}")
    try:
        try:
            os.replace(directory, aside)
        except FileNotFoundError:  # removed meanwhile by someone else: gone is the goal
            stale.status = UPDATED
            return
        if aside.is_symlink():
            aside.unlink()
        else:
            shutil.rmtree(aside)
    except OSError as exc:
        raise InputError(f"cannot remove: {exc.strerror or exc}", file=str(directory)) from None
    stale.status = UPDATED


def default_jobs() -> int:
    return os.cpu_count() or 1


__all__ = [
    "CheckOptions",
    "apply_update",
    "default_jobs",
    "run_check",
]
