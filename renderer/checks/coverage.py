"""Coverage stage: which scenarios a version needs so every branch a cluster can reach is
rendered, and which template branches no scenario renders.

The scenarios come from the templates themselves (:mod:`renderer.calico.scenarios`
chooses them from what the Go parse trees compare and test); each candidate is rendered
with a trace of the branch arms it takes, every file once per distinct set of the keys
it reads, so the greedy search costs a few milliseconds per candidate and nothing is
parsed until a scenario is chosen. Jinja2 templates are rendered by the chosen
scenarios but their branches are not traced (they count as not analysed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.bke.context import controller_defaults
from renderer.bke.values import build_context, default_context
from renderer.calico import capability, scenarios
from renderer.calico.scenarios import Scenario, Target, route_scenario
from renderer.data import schemas
from renderer.engine.compile import compile_file
from renderer.engine.gotemplate import GoTemplate
from renderer.engine.render import is_verbatim
from renderer.errors import CalicoRenderError
from renderer.finding import COVERAGE, ERROR, WARNING, Finding
from renderer.manifests.tree import VersionDir

STAGE = COVERAGE
RULE = "branch-not-rendered"


def scenario_context(
    base: Mapping[str, Any], overrides: Sequence[tuple[str, str | None]]
) -> dict[str, Any]:
    """``base`` with a derived scenario's values set (None: the key removed). They are
    strings the templates compare with, set as the controller passes any param: not
    held to our context schema, which is stricter than the controller."""
    ctx = dict(base)
    for key, value in overrides:
        if value is None:
            ctx.pop(key, None)
        else:
            ctx[key] = value
    return ctx


@dataclass(frozen=True)
class Branch:
    """A body the template wrote (``if``, ``else``, ``with``, ``range``) and where."""

    file: str
    line: int
    kind: str
    target: Target


@dataclass
class Coverage:
    """A version's scenarios and the branches they render."""

    scenarios: list[Scenario]
    branches: list[Branch] = field(default_factory=list)
    uncovered: list[Branch] = field(default_factory=list)
    #: Template files whose branches are not traced (Jinja2).
    unanalysed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenarios": len(self.scenarios),
            "branches": len(self.branches),
            "covered": len(self.branches) - len(self.uncovered),
            "uncovered": len(self.uncovered),
            "not_analysed": list(self.unanalysed),
        }

    def findings(self, strict: bool = False) -> list[Finding]:
        """A warning per branch no scenario renders (an error with ``strict``)."""
        return [
            Finding(
                RULE,
                ERROR if strict else WARNING,
                f"the {b.kind} body at line {b.line} is rendered by no scenario: no "
                "context the gate derives from the templates takes it",
                stage=STAGE,
                file=b.file,
                line=b.line,
            )
            for b in self.uncovered
        ]


def _enums() -> dict[str, list[str]]:
    """The values the render context schema allows per key, where it lists them."""
    props = schemas.load_schema(schemas.RENDER_CONTEXT)["properties"]
    return {k: list(v["enum"]) for k, v in props.items() if isinstance(v, dict) and "enum" in v}


def derive(version: VersionDir, capable: bool, legacy: bool, missing: Sequence[str]) -> Coverage:
    """The scenarios of a Calico ``version`` (routing's, then the greedy cover of its
    branches) and the branches none of them renders."""
    bases = list(scenarios.scenarios_for(not legacy))
    # Typha on (3 replicas) first, so values that change Typha's objects too (repo) are
    # rendered with them; then Typha off
    starts = bases[:1] if legacy else [bases[1], bases[0]]
    base: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}

    def context(scenario: Scenario) -> Callable[[str], Mapping[str, Any]]:
        route = route_scenario(scenario, capable, version.name, tuple(missing))
        typha = route.decision.context()
        key = tuple(sorted(typha.items()))
        if key not in base:
            base[key] = build_context({}, typha=typha, repo=capability.CHECK_REPO)
        ctx = scenario_context(base[key], scenario.values)
        return lambda _name: ctx

    return _derive(
        version,
        bases,
        starts,
        context,
        Space(default_context(), _enums(), capability.CHECK_REPO, set(controller_defaults())),
    )


def derive_addon(
    version: VersionDir,
    contexts: Callable[[Sequence[tuple[str, str | None]]], Mapping[str, Mapping[str, Any]]],
    start: Scenario,
    always_set: Collection[str] = (),
    fixed: Collection[str] = (),
) -> Coverage:
    """The scenarios of a version of another addon: ``start`` (its files' contexts as
    the controller builds them from the representative cluster), then the greedy cover
    of its branches, each scenario's files' ``contexts`` built from its values, and the
    branches none of them renders. A key the controller sets (``always_set``) is never
    unset; one it derives from the cluster's nodes or for the addon itself (``fixed``:
    the addresses a node script runs on) keeps the cluster's value. ``repo`` set is
    the check's registry prefix."""
    defaults: dict[str, Any] = {}
    for ctx in contexts(()).values():
        for key, value in ctx.items():
            defaults.setdefault(key, value if isinstance(value, str) else None)
    repo = str(defaults.get(scenarios.REPO_KEY) or "")

    def context(scenario: Scenario) -> Callable[[str], Mapping[str, Any]]:
        made = contexts(scenario.values)
        return lambda name: made.get(name, {})

    space = Space(defaults, {}, repo, set(always_set), frozenset(fixed), capability.CHECK_REPO)
    return _derive(version, [start], [start], context, space)


@dataclass(frozen=True)
class Space:
    """Where derived scenarios take their values from: each key's default, the values
    a context schema allows (Calico's), the ``repo`` the renders use, and the keys the
    controller always sets (never unset)."""

    defaults: Mapping[str, Any]
    enums: Mapping[str, Sequence[str]]
    repo: str
    always_set: Collection[str]
    #: Keys no scenario varies; and the ``repo`` a scenario sets when its default is
    #: empty (None: Calico's derivation, whose ``repo`` default is the check's prefix).
    fixed: frozenset[str] = frozenset()
    repo_sample: str | None = None


#: A scenario's context per template file (by name).
ContextOf = Callable[[Scenario], Callable[[str], Mapping[str, Any]]]


def _derive(
    version: VersionDir,
    bases: Sequence[Scenario],
    starts: Sequence[Scenario],
    context: ContextOf,
    space: Space,
) -> Coverage:
    """The greedy cover of ``version``'s branches from ``starts``, after ``bases``."""
    traced: list[tuple[str, GoTemplate]] = []
    unanalysed = []
    for tf in version.files:
        if is_verbatim(version, tf):
            continue
        compiled = compile_file(tf)
        if isinstance(compiled, GoTemplate):
            traced.append((tf.name, compiled))
        else:
            unanalysed.append(tf.name)
    compared: dict[str, set[str]] = {}
    truthy: set[str] = set()
    for _, t in traced:
        for key, values in t.conditions.compared.items():
            if key not in space.fixed:
                compared.setdefault(key, set()).update(values)
        truthy |= t.conditions.truthy - space.fixed
    addon = space.repo_sample is not None
    dims = scenarios.dimensions(
        compared,
        truthy,
        space.defaults,
        space.enums,
        space.repo,
        always_set=space.always_set,
        repo_sample=space.repo_sample or scenarios.TRUTHY_SAMPLE,
        unset_strings=addon,
    )
    branches = [
        Branch(name, t.line_of(arm.offset), arm.kind, ("arm", name, *arm.key))
        for name, t in traced
        for arm in t.arms
        if arm.explicit
    ]
    wanted = {b.target for b in branches}
    wanted |= {("arm", name, *arm.key) for name, t in traced for arm in t.arms if arm.compares}
    wanted |= scenarios.value_targets(compared, dims)
    takes = _Tracer(traced, dims, context)
    covered: set[Target] = set()
    for b in bases:
        covered |= takes(b)
    extra = scenarios.cover(starts, dims, takes, wanted, covered, space.repo)
    for e in extra:
        covered |= takes(e)
    return Coverage(
        [*bases, *extra],
        branches,
        [b for b in branches if b.target not in covered],
        unanalysed,
    )


class _Tracer:
    """What a scenario covers: the branch arms its render takes and the values it sets.
    Each file renders once per distinct value of the keys it reads."""

    def __init__(
        self,
        traced: Sequence[tuple[str, GoTemplate]],
        dims: Mapping[str, Sequence[str | None]],
        context: ContextOf,
    ) -> None:
        self.traced = traced
        self.dims = dims
        self.context = context
        self.files: dict[tuple[str, str], frozenset[tuple[int, int]]] = {}
        self.memo: dict[tuple[Any, ...], frozenset[Target]] = {}

    def __call__(self, scenario: Scenario) -> frozenset[Target]:
        key = (scenario.nodes, scenario.operation, scenario.values)
        if key in self.memo:
            return self.memo[key]
        of = self.context(scenario)
        out: set[Target] = set()
        first: Mapping[str, Any] = {}
        for i, (name, t) in enumerate(self.traced):
            ctx = of(name)
            if i == 0:
                first = ctx
            reads = {k: ctx.get(k, "\0unset") for k in sorted(t.keys)}
            memo = (name, json.dumps(reads, sort_keys=True, default=str))
            if memo not in self.files:
                try:
                    self.files[memo] = t.render_branches(ctx)[2]
                except CalicoRenderError:  # a context this file cannot render covers nothing
                    self.files[memo] = frozenset()
            out.update(("arm", name, *arm) for arm in self.files[memo])
        for k in self.dims:
            value = first.get(k)
            out.add(("value", k, value if value is None or isinstance(value, str) else repr(value)))
        self.memo[key] = frozenset(out)
        return self.memo[key]
