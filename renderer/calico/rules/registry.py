"""The release rule registry: small registered checks over the Typha-on render of a version.

Each rule is one function registered with an id, a default severity and a message by
:func:`rule`; it takes a :class:`RuleInput` and yields :class:`Violation` objects that the
registry turns into :class:`~renderer.finding.Finding` objects naming the object
(``Kind namespace/name``), field path and template line, so adding a rule is one
function plus its test. The inputs several rules share (the Typha Deployment, its
container, its budgets, every image) are computed once per input. Errors block a
release; warnings are reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from renderer.calico.names import TYPHA_CONTAINER
from renderer.finding import ERROR, RULES, WARNING, Finding, ObjectRef
from renderer.k8s import objects as k8s_objects
from renderer.k8s.objects import container
from renderer.k8s.parse import K8sObject

SEVERITIES = (ERROR, WARNING)
#: The stage rule findings belong to.
STAGE = RULES


@dataclass(frozen=True)
class RuleInput:
    """What every rule sees: the Typha-on render, the version, its context, the node count."""

    objects: Sequence[K8sObject]
    version: str
    context: Mapping[str, Any] = field(default_factory=dict)
    nodes: int = 51

    @cached_property
    def typha(self) -> K8sObject | None:
        """The Typha Deployment, if the render has one."""
        from renderer.calico.capability import typha_deployment  # not for every rule

        return typha_deployment(self.objects)

    @cached_property
    def typha_container(self) -> tuple[str, dict[str, Any]] | None:
        """The Typha container of :attr:`typha` and its field path."""
        return None if self.typha is None else container(self.typha, TYPHA_CONTAINER)

    @cached_property
    def typha_pdbs(self) -> list[K8sObject]:
        """The PodDisruptionBudgets that select the Typha pods."""
        from renderer.calico.capability import typha_pdbs

        return typha_pdbs(self.objects)

    @cached_property
    def images(self) -> list[tuple[K8sObject, str, str]]:
        """Every container image of the render: (object, field path, image)."""
        return [
            (obj, path, image) for obj in self.objects for path, image in k8s_objects.images(obj)
        ]


@dataclass(frozen=True, slots=True)
class Violation:
    """What a rule function yields; the registry turns it into a Finding."""

    detail: str
    obj: K8sObject | None = None
    field: str = ""


RuleFunc = Callable[[RuleInput], Iterable[Violation]]


@dataclass(frozen=True, slots=True)
class Rule:
    """A registered rule: its id, severity and message, and the function that finds it."""

    id: str
    severity: str
    message: str
    func: RuleFunc
    #: The rule holds for any addon's objects, not Calico's alone (the gate runs it on
    #: every addon).
    generic: bool = False

    def run(self, data: RuleInput) -> Iterator[Finding]:
        for v in self.func(data):
            obj = v.obj
            yield Finding(
                rule=self.id,
                severity=self.severity,
                stage=STAGE,
                message=f"{self.message}: {v.detail}" if v.detail else self.message,
                object=ObjectRef(obj.kind, obj.name, obj.namespace, obj.api_version)
                if obj
                else None,
                field=v.field,
                file=obj.file if obj else "",
                line=(obj.field_line(v.field) if v.field else obj.source_line or obj.line)
                if obj
                else 0,
                rendered_line=obj.line if obj else 0,
            )


REGISTRY: dict[str, Rule] = {}


def rule(
    *, id: str, severity: str, message: str, generic: bool = False
) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule function under ``id``; ``generic``: it holds for any addon."""
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}, got {severity!r}")

    def register(func: RuleFunc) -> RuleFunc:
        if id in REGISTRY:
            raise ValueError(f"rule {id!r} is registered twice")
        REGISTRY[id] = Rule(id, severity, message, func, generic)
        return func

    return register


def generic_rules() -> list[Rule]:
    """The rules that hold for any addon's objects (duplicates), in registration order."""
    return [r for r in REGISTRY.values() if r.generic]


def run_rules(data: RuleInput, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Every finding of ``rules`` (default: all registered), sorted for stable output."""
    chosen = REGISTRY.values() if rules is None else rules
    findings = [f for r in chosen for f in r.run(data)]
    return sorted(findings, key=lambda f: (f.rule, str(f.object or ""), f.field, f.message))


def violated(data: RuleInput, severity: str = ERROR) -> list[str]:
    """Ids of the rules of ``severity`` with a violation on ``data``, sorted: the rule
    ids of :func:`run_rules`' findings of that severity, without building and locating
    the findings (what a verdict keeps)."""
    chosen = [r for r in REGISTRY.values() if r.severity == severity]
    return sorted(r.id for r in chosen if any(True for _ in r.func(data)))


def violations(data: RuleInput, severity: str = ERROR) -> list[tuple[str, str, str]]:
    """(rule id, ``Kind namespace/name``, field) of every violation of the rules of
    ``severity`` on ``data``, sorted and unique: what a reviewed exception is matched
    against (its objects and fields), without locating the findings."""
    chosen = [r for r in REGISTRY.values() if r.severity == severity]
    found = {(r.id, v.obj.ref if v.obj else "", v.field) for r in chosen for v in r.func(data)}
    return sorted(found)


__all__ = [
    "ERROR",
    "REGISTRY",
    "WARNING",
    "Rule",
    "RuleInput",
    "Violation",
    "generic_rules",
    "rule",
    "run_rules",
    "violated",
    "violations",
]
