"""The scale rule registry: small registered functions over a cluster's scale facts.

Like the release rules (:mod:`renderer.calico.rules.registry`), each scale rule is one
function registered with an id, a severity and a message by :func:`rule` (once for the
cluster) or :func:`pool_rule` (once per IP pool); the message says what the rule checks
(``calico-render rules`` lists it). A rule function is a plain function of plain data:
it takes the :class:`~renderer.calico.scale.facts.ScaleInputs` (and a pool) and returns
one :class:`Advice`, which the registry turns into a
:class:`~renderer.finding.Finding` of stage ``scale`` carrying the rule's id, with the
facts, numbers and advice as its :class:`ScaleDetails`. Unlike a
release rule, a scale rule always answers: info within the limits, and up to its
registered severity past them, so every number it used is reported either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from renderer.calico.scale.facts import Fact, Pool, ScaleInputs
from renderer.finding import ERROR, INFO, SCALE, WARNING, Details, Finding, ObjectRef, locate

#: The stage scale findings belong to.
STAGE = SCALE
#: What a rule may register as its severity: the worst it raises (``error/warning``: an
#: error past the hard limit, a warning past the soft one).
SEVERITIES = (ERROR, WARNING, f"{ERROR}/{WARNING}")


@dataclass(frozen=True)
class Advice:
    """What a scale rule function returns; the registry turns it into a Finding.

    ``inputs`` are the facts the rule used, by name; ``at`` the fact that locates the
    finding (its object and template line); ``computed`` the numbers it derived;
    ``advice`` and ``suggestions`` what fits instead, past a limit.
    """

    severity: str
    message: str
    inputs: Mapping[str, Fact]
    at: Fact | None = None
    computed: Mapping[str, Any] = field(default_factory=dict)
    advice: str = ""
    suggestions: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True)
class ScaleDetails(Details):
    """What a scale finding carries beyond the common fields: the facts its rule used by
    name, the numbers it computed, and past a limit the advice and the suggestions that
    fit (each a mapping of what to set)."""

    inputs: Mapping[str, Fact]
    computed: Mapping[str, Any] = field(default_factory=dict)
    advice: str = ""
    suggestions: Sequence[Mapping[str, Any]] = ()


ClusterFunc = Callable[[ScaleInputs], Advice]
PoolFunc = Callable[[ScaleInputs, Pool], Advice]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    message: str
    func: ClusterFunc | PoolFunc
    per_pool: bool = False

    def finding(self, advice: Advice) -> Finding:
        """``advice`` as this rule's finding, located at its ``at`` fact."""
        if advice.severity not in (INFO, *self.severity.split("/")):
            raise ValueError(
                f"rule {self.id!r} is registered as {self.severity}, but raised {advice.severity!r}"
            )
        at = advice.at
        file, line = locate(at.file if at else "")
        return Finding(
            self.id,
            advice.severity,
            advice.message,
            stage=STAGE,
            object=ObjectRef.parse(at.object) if at else None,
            file=file,
            line=line,
            details=ScaleDetails(
                advice.inputs, advice.computed, advice.advice, tuple(advice.suggestions)
            ),
        )

    def run(self, data: ScaleInputs, pool: Pool | None = None) -> Finding:
        """This rule's finding on ``data`` (and ``pool``, for a per-pool rule)."""
        if self.per_pool:
            if pool is None:
                raise ValueError(f"rule {self.id!r} runs once per pool: name the pool")
            return self.finding(cast(PoolFunc, self.func)(data, pool))
        return self.finding(cast(ClusterFunc, self.func)(data))


REGISTRY: dict[str, Rule] = {}


F = TypeVar("F", ClusterFunc, PoolFunc)


def _register(id: str, severity: str, message: str, per_pool: bool) -> Callable[[F], F]:
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}, got {severity!r}")

    def register(func: F) -> F:
        if id in REGISTRY:
            raise ValueError(f"rule {id!r} is registered twice")
        REGISTRY[id] = Rule(id, severity, message, func, per_pool)
        return func

    return register


def rule(*, id: str, severity: str, message: str) -> Callable[[ClusterFunc], ClusterFunc]:
    """Register a rule over the whole cluster under ``id``."""
    return _register(id, severity, message, per_pool=False)


def pool_rule(*, id: str, severity: str, message: str) -> Callable[[PoolFunc], PoolFunc]:
    """Register a rule run once for each IP pool under ``id``."""
    return _register(id, severity, message, per_pool=True)


def advise(data: ScaleInputs, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Every finding of ``rules`` (default: all registered) in a fixed order: for each
    pool its pool rules, then the cluster rules, each group in registration order."""
    chosen = list(REGISTRY.values() if rules is None else rules)
    out = [r.run(data, pool) for pool in data.pools for r in chosen if r.per_pool]
    out += [r.run(data) for r in chosen if not r.per_pool]
    return out


__all__ = [
    "REGISTRY",
    "STAGE",
    "Advice",
    "Rule",
    "ScaleDetails",
    "advise",
    "pool_rule",
    "rule",
]
