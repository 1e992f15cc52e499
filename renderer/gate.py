"""The release gate: every stage of ``calico-render check`` for one version, in parallel.

Per version, each stage runs once per distinct input: templates compile once (the
compile cache), each scenario renders and parses once, each distinct object is schema
validated once per Kubernetes version, and the goldens are compared from those same
renders. Versions are independent, so they run in worker processes and are merged back
in version order, which keeps every report byte-identical whatever ``--jobs`` is.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import capability, compare, policy
from .compile import compile_file
from .context import build_context
from .errors import CalicoRenderError, InputError
from .parse import K8sObject, parse_stream
from .render import render_version
from .report import (
    FAIL,
    LEGACY,
    MISSING,
    PASS,
    SKIP,
    UPDATED,
    CheckReport,
    Finding,
    ScenarioResult,
    VersionResult,
)
from .scenarios import Scenario, decision_record, route_scenario, scenarios_for
from .tree import VersionDir, list_versions, resolve_version
from .yamlio import C_LOADER

DEFAULT_KUBE_VERSIONS = ("1.28",)


@dataclass(frozen=True)
class CheckOptions:
    """What to check: ROOT (None: bundled), the golden root and the Kubernetes versions."""

    root: Path | None
    golden: Path
    kube_versions: tuple[str, ...] = DEFAULT_KUBE_VERSIONS
    update: bool = False
    jobs: int = 1
    #: How ``--manifests``/``--golden`` are shown in the command that creates goldens.
    manifests_arg: str | None = None
    golden_arg: str | None = None


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
    for the same contexts, so the scenarios reuse the contract's renders.
    """

    def __init__(self, version: VersionDir) -> None:
        self.version = version
        self._cache: dict[tuple[tuple[str, str], ...], tuple[dict[str, Any], list[tuple[str, str]],
                                                             list[K8sObject]]] = {}

    def get(
        self, typha: dict[str, str]
    ) -> tuple[dict[str, Any], list[tuple[str, str]], list[K8sObject]]:
        key = tuple(sorted(typha.items()))
        if key not in self._cache:
            ctx = build_context({}, typha=typha, repo=capability.CHECK_REPO)
            files = [(f.name.split("/", 1)[1], f.text) for f in render_version(self.version, ctx)]
            objects = [o for name, text in files for o in parse_stream(text, name)]
            self._cache[key] = (ctx, files, objects)
        return self._cache[key]


def assess(renders: Renders) -> capability.CapabilityReport:
    """The Typha contract judged on the shared renders (off, on at two replica counts)."""
    version = renders.version
    off_ctx, _, off = renders.get(policy.decide_typha(1).context())
    scen = [capability.Scenario("off", off_ctx, tuple(off))]
    on: dict[int, tuple[K8sObject, ...]] = {}
    for nodes in capability.CONTRACT_NODES:
        decision = policy.decide_typha(nodes)
        ctx, _, objs = renders.get(decision.context())
        on[decision.replicas] = tuple(objs)
        scen.append(capability.Scenario(f"on-{decision.replicas}", ctx, tuple(objs)))
    return capability.CapabilityReport(
        version=version.name,
        files=tuple(f.name for f in version.files),
        dialect="/".join(version.dialects),
        items=capability.check_contract(off, on),
        scenarios=tuple(scen),
    )


def release_rules(
    cap: capability.CapabilityReport, renders: Sequence[ScenarioRender]
) -> list[Finding]:
    """Findings of the release rules over the scenario renders (capable versions only)."""
    rules = _optional("rules")
    out: list[Finding] = []
    run = getattr(rules, "run_rules", None)
    if run is None:
        return out
    for r in renders:
        for f in run(r.objects, report=cap, scenario=r.scenario.name):
            out.append(
                Finding(
                    "rules",
                    str(getattr(f, "id", "rule")),
                    str(getattr(f, "severity", "error")),
                    str(getattr(f, "message", f)),
                    object=str(getattr(f, "object", "") or ""),
                    scenario=r.scenario.name,
                )
            )
    return _dedupe(out)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """Merge findings that repeat across scenarios (listing the scenarios once)."""
    merged: dict[tuple[str, str, str, str], Finding] = {}
    for f in findings:
        key = (f.id, f.severity, f.message, f.object)
        if key in merged:
            prev = merged[key]
            prev.scenario = ", ".join(sorted({*prev.scenario.split(", "), f.scenario}))
        else:
            merged[key] = f
    return list(merged.values())


@dataclass(frozen=True)
class SchemaProblem:
    id: str
    severity: str
    message: str
    kube_version: str


class _Validator:
    """Kubernetes OpenAPI validation with one compiled validator per (kube, kind, apiVersion)."""

    def __init__(self, kube_versions: tuple[str, ...]) -> None:
        import kubernetes_validate.utils as kv

        self.kube_versions = kube_versions
        self._kv = kv
        self._validators: dict[tuple[str, str, str], Any] = {}
        self._defs: dict[str, Any] = {}

    def _validator(self, kube: str, kind: str, api_version: str) -> Any:
        import re

        import jsonschema
        from referencing import Registry, Resource

        key = (kube, kind, api_version)
        if key not in self._validators:
            kv = self._kv
            version = [v for v in kv.all_versions()
                       if kv.major_minor(v) <= kv.major_minor(kube)][-1]
            api = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
            schema_dir = f"v{version}-local"
            try:
                schema = kv.schema_contents(
                    f"kubernetes-json-schema/{schema_dir}/{kind.lower()}-{api}.json", kube
                )
            except FileNotFoundError:
                self._validators[key] = None
                return None
            if schema_dir not in self._defs:
                self._defs[schema_dir] = Resource.from_contents(
                    kv.schema_contents(f"kubernetes-json-schema/{schema_dir}/_definitions.json",
                                       kube)
                )
            registry = self._defs[schema_dir] @ (Resource.from_contents(schema) @ Registry())
            self._validators[key] = jsonschema.validators.Draft202012Validator(
                schema, registry=registry
            )
        return self._validators[key]

    def validate(self, obj: dict[str, Any]) -> list[SchemaProblem]:
        out = []
        for kube in self.kube_versions:
            v = self._validator(kube, str(obj.get("kind", "")), str(obj.get("apiVersion", "")))
            if v is None:
                out.append(SchemaProblem("schema-unknown", "info", "no schema for "
                                         f"{obj.get('apiVersion')} {obj.get('kind')}", kube))
                continue
            err = next(iter(sorted(v.iter_errors(obj), key=lambda e: list(map(str, e.path)))),
                       None)
            if err is not None:
                path = ".".join(str(p) for p in err.absolute_path)
                out.append(SchemaProblem("schema-invalid", "error", f"{path}: {err.message}",
                                         kube))
        return out


def schema_validator(kube_versions: tuple[str, ...]) -> Any:
    kubeschema = _optional("kubeschema")
    if kubeschema is None:
        return _Validator(kube_versions)
    return kubeschema.SchemaValidator(kube_versions)


def _optional(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError:
        return None


def object_digest(data: Any) -> str:
    """Identity of an object's content, so identical objects are validated once."""
    canon = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def schema_findings(
    renders: Sequence[ScenarioRender], kube_versions: Sequence[str]
) -> list[Finding]:
    """Validate each distinct rendered object once per Kubernetes version."""
    validator = schema_validator(tuple(kube_versions))
    distinct: dict[str, tuple[K8sObject, list[str]]] = {}
    for r in renders:
        for obj in r.objects:
            digest = object_digest(obj.data)
            if digest not in distinct:
                distinct[digest] = (obj, [])
            distinct[digest][1].append(r.scenario.name)
    out: list[Finding] = []
    for obj, scen in distinct.values():
        for f in validator.validate(obj.data):
            out.append(
                Finding(
                    "schema",
                    str(getattr(f, "id", "schema")),
                    str(getattr(f, "severity", "error")),
                    str(getattr(f, "message", f)),
                    object=obj.ref,
                    file=obj.file,
                    scenario=", ".join(sorted(set(scen))),
                    kube_version=str(getattr(f, "kube_version", "")),
                )
            )
    return out


# --- one version ----------------------------------------------------------------------


def update_command(options: CheckOptions) -> str:
    """The command that (re)creates goldens for the checked tree."""
    parts = ["calico-render", "check"]
    if options.manifests_arg is not None:
        parts += ["--manifests", options.manifests_arg]
    if options.golden_arg is not None:
        parts += ["--golden", options.golden_arg]
    if tuple(options.kube_versions) != DEFAULT_KUBE_VERSIONS:
        for k in options.kube_versions:
            parts += ["--kube-version", k]
    return shlex.join([*parts, "--update-golden"])


def _error(stage: str, exc: CalicoRenderError) -> Finding:
    return Finding(stage, f"{stage}-error", "error", exc.message, file=exc.location())


def check_version(name: str, options: CheckOptions) -> VersionResult:
    """Run every stage for version ``name``; a failing stage never raises."""
    version = resolve_version(name, options.root)
    result = VersionResult(
        version.name, [f.name for f in version.files], "/".join(version.dialects)
    )
    st = result.stages
    try:
        for tf in version.files:
            compile_file(tf)
        st["templates"] = PASS
    except CalicoRenderError as exc:
        st["templates"] = FAIL
        result.findings.append(_error("templates", exc))
        return result
    shared = Renders(version)
    renders: list[ScenarioRender] = []
    try:
        cap = assess(shared)
        capable = cap.capable
        result.capable = capable
        result.missing = [i.description for i in cap.items if not i.ok]
        st["capability"] = PASS if capable else LEGACY
        for scenario in scenarios_for(capable):
            route = route_scenario(scenario, capable, version.name, tuple(cap.missing))
            decision = decision_record(scenario, route)
            _, files, objects = shared.get(route.decision.context())
            renders.append(ScenarioRender(scenario, decision, files, objects))
            result.scenarios.append(
                ScenarioResult(scenario.name, scenario.nodes, scenario.operation, decision)
            )
    except CalicoRenderError as exc:
        st["templates"] = FAIL
        result.findings.append(_error("templates", exc))
        return result
    if capable:
        rule_findings = release_rules(cap, renders)
        result.findings.extend(rule_findings)
        st["rules"] = FAIL if any(f.severity == "error" for f in rule_findings) else PASS
    else:
        st["rules"] = LEGACY
    try:
        schema = schema_findings(renders, options.kube_versions)
    except CalicoRenderError as exc:
        schema = [_error("schema", exc)]
    result.findings.extend(schema)
    st["schema"] = FAIL if any(f.severity == "error" for f in schema) else PASS
    _goldens(result, renders, options)
    return result


def _goldens(result: VersionResult, renders: list[ScenarioRender], options: CheckOptions) -> None:
    outputs = [
        compare.ScenarioOutput(r.scenario.name, r.decision, tuple(r.files)) for r in renders
    ]
    new = compare.golden_files(outputs)
    result.rendered = new
    directory = options.golden / result.version
    g = result.golden
    g.directory = str(directory)
    g.command = update_command(options)
    try:
        old = compare.load_golden(directory)
    except CalicoRenderError as exc:
        result.findings.append(_error("goldens", exc))
        g.status = result.stages["goldens"] = FAIL
        return
    if old is None:
        g.status = result.stages["goldens"] = MISSING
        for s in result.scenarios:
            s.golden = MISSING
        return
    g.files = compare.file_changes(old, new)
    if not g.files:
        g.status = result.stages["goldens"] = PASS
        for s in result.scenarios:
            s.golden = PASS
        return
    g.status = result.stages["goldens"] = FAIL
    g.diff = compare.unified_diff(old, new, f"golden/{result.version}")
    g.changes = compare.object_changes(old, new, [r.scenario.name for r in renders])
    for s in result.scenarios:
        mine = [c.describe() for c in g.changes if s.name in c.scenarios]
        s.changes = mine
        s.golden = FAIL if mine else PASS


def apply_update(result: VersionResult, options: CheckOptions) -> None:
    """Write the version's rendered goldens (``--update-golden``) and record what changed."""
    if result.rendered is None or result.golden.status not in (FAIL, MISSING):
        return
    directory = options.golden / result.version
    result.golden.files = compare.write_golden(directory, result.rendered)
    result.golden.status = result.stages["goldens"] = UPDATED
    for s in result.scenarios:
        s.golden = UPDATED if s.golden in (FAIL, MISSING) else s.golden


# --- the whole tree ------------------------------------------------------------------


def _worker(name: str, options: CheckOptions) -> VersionResult:
    try:
        return check_version(name, options)
    except CalicoRenderError as exc:
        result = VersionResult(name, [], "")
        result.stages["templates"] = FAIL
        result.findings.append(_error("templates", exc))
        return result


def run_check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None = None
) -> CheckReport:
    """Check every version under ROOT; ``progress`` sees each version as it finishes."""
    if not C_LOADER:
        raise InputError("ruamel.yaml's C loader is not available; install ruamel.yaml.clib")
    names = [v.name for v in list_versions(options.root)]
    results: dict[str, VersionResult] = {}
    jobs = max(1, min(options.jobs, len(names) or 1))
    if jobs == 1:
        for name in names:
            results[name] = _worker(name, options)
            if progress is not None:
                progress(results[name])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_worker, name, options): name for name in names}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                if progress is not None:
                    progress(results[futures[fut]])
    ordered = [results[n] for n in names]
    if options.update:
        for r in ordered:
            apply_update(r, options)
    return CheckReport(
        manifests=options.manifests_arg or "(bundled manifests)",
        golden=options.golden_arg or "(bundled goldens)",
        kube_versions=list(options.kube_versions),
        versions=ordered,
        update=options.update,
    )


def supported_kube_versions() -> tuple[str, ...]:
    """``X.Y`` Kubernetes versions with bundled schemas (kubernetes-validate's)."""
    import kubernetes_validate.utils as kv

    return tuple(dict.fromkeys(kv.major_minor(v) for v in kv.all_versions()))


def default_jobs() -> int:
    return os.cpu_count() or 1


__all__ = [
    "SKIP",
    "CheckOptions",
    "apply_update",
    "check_version",
    "default_jobs",
    "run_check",
]
