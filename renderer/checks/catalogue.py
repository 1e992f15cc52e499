"""Every rule id a gate finding can carry: its stage, its severity and whether a reviewed
exception may waive it.

The release rules and the scale rules come from their registries
(:mod:`renderer.calico.rules`, :mod:`renderer.calico.scale`), the contract items from
:mod:`renderer.calico.capability`; the other stages' ids are listed here,
beside the modules that raise them. The exceptions file is checked against this list
(an unknown id is bad input), and ``calico-render rules`` prints it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from renderer.calico.capability import CONTRACT_ITEMS
from renderer.calico.rules import REGISTRY
from renderer.errors import remedy
from renderer.finding import (
    CAPABILITY,
    CONTEXT,
    COVERAGE,
    ERROR,
    FIDELITY,
    GOLDENS,
    INPUT,
    RULES,
    SCALE,
    SCHEMA,
    TEMPLATES,
    WARNING,
)
from renderer.k8s import readings

#: Stages whose findings an exception may touch; template, capability-contract and
#: golden failures are never excepted (they are fixed, or goldens regenerated).
EXCEPTABLE_STAGES = (RULES, SCHEMA, COVERAGE, FIDELITY, CONTEXT)

#: Why a contract rule cannot be excepted.
CONTRACT_WHY = (
    "a version whose Typha templates miss part of the contract renders a broken Typha for "
    "clusters above 50 nodes; fix the templates, or remove Typha from the version so it "
    "passes as legacy"
)


#: Where rule ids are listed, as the library words it (the CLI names its command).
def listed() -> str:
    """Where every rule id is listed, in the caller's words."""
    return remedy("{} lists every rule id", "rules")


#: The fidelity stage's rules (renderer/calico/fidelity.py) and their severities.
FIDELITY_RULES = {
    "fidelity-missing-object": (ERROR, "an object upstream has is not rendered"),
    "fidelity-missing-field": (ERROR, "a field upstream has is not rendered"),
    "fidelity-changed": (ERROR, "a field's value differs from upstream's"),
    "fidelity-missing-permission": (ERROR, "an RBAC permission upstream grants is missing"),
    "fidelity-cni-plugin": (
        f"{ERROR}/{WARNING}",
        "the CNI plugin chain differs (error: missing or changed; warning: added)",
    ),
    "fidelity-crd-schema": (
        f"{ERROR}/{WARNING}",
        "a CRD version's schema differs (error: missing or changed; warning: added)",
    ),
    "fidelity-extra-object": (WARNING, "an object upstream does not have"),
    "fidelity-extra-field": (WARNING, "a field upstream does not have"),
    "fidelity-extra-permission": (WARNING, "an RBAC permission upstream does not grant"),
}
#: Ids of the other stages: (stage, severity, what it means).
OTHER_RULES = {
    "templates-error": (TEMPLATES, ERROR, "a template does not parse or render"),
    "typha-controller-disagrees": (
        CAPABILITY,
        ERROR,
        "BKE's controller, which decides Typha by a text search, judges the version "
        "otherwise than what its templates render",
    ),
    "schema-invalid": (SCHEMA, ERROR, "an object fails the strict Kubernetes schema"),
    "schema-not-checked": (SCHEMA, "info", "a custom resource without a schema"),
    readings.RULE: (SCHEMA, WARNING, readings.DESCRIPTION),
    "kind-rejected": (SCHEMA, ERROR, "an object of a kind validate --reject names"),
    "context-unreachable-key": (CONTEXT, WARNING, "a key no BKE config can set"),
    "context-missing-key": (
        CONTEXT,
        f"{WARNING}/{ERROR}",
        "a template prints <no value> into an object (warning) or fails (error) on a key "
        "its context lacks",
    ),
    "branch-not-rendered": (
        COVERAGE,
        f"{WARNING}/{ERROR}",
        "a template branch no scenario renders (an error with --strict)",
    ),
    "context-value-injects-yaml": (
        CONTEXT,
        ERROR,
        "a value changes the YAML structure its template wrote",
    ),
    "goldens-error": (GOLDENS, ERROR, "--update-golden could not write the goldens"),
    "golden-changed": (
        GOLDENS,
        ERROR,
        "a field, object or decision differs from the reviewed golden (at its template line)",
    ),
    "golden-text-changed": (
        GOLDENS,
        f"{WARNING}/{ERROR}",
        "a golden's text differs but its objects do not: comments, blank lines, key order "
        "(an error with --strict)",
    ),
    "golden-missing": (GOLDENS, ERROR, "a version has no goldens"),
    "golden-layout": (
        GOLDENS,
        f"{WARNING}/{ERROR}",
        "goldens in the merged layout of earlier releases; --update-golden rewrites them "
        "(an error with --strict)",
    ),
    "golden-stale": (GOLDENS, ERROR, "goldens of a version not in the tree"),
    "input-error": (INPUT, ERROR, "the run could not use its input (exit 2)"),
}


@dataclass(frozen=True)
class RuleInfo:
    """One rule id: its stage, severity, whether an exception may waive it, and what it
    checks."""

    id: str
    stage: str
    severity: str
    exceptable: bool
    description: str

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "stage": self.stage,
            "severity": self.severity,
            "exceptable": self.exceptable,
            "description": self.description,
        }


@cache
def catalogue() -> dict[str, RuleInfo]:
    """Every rule id, by id, in stage order then id."""
    # the scale rules load with their tables: only when the catalogue is first asked for
    from renderer.calico.scale import REGISTRY as SCALE_REGISTRY

    found: list[RuleInfo] = []
    for item, description in CONTRACT_ITEMS.items():
        found.append(RuleInfo(item, CAPABILITY, ERROR, False, f"Typha contract: {description}"))
    for r in REGISTRY.values():
        found.append(RuleInfo(r.id, RULES, r.severity, True, r.message))
    for s in SCALE_REGISTRY.values():
        found.append(RuleInfo(s.id, SCALE, s.severity, False, s.message))
    for rule, (severity, description) in FIDELITY_RULES.items():
        found.append(RuleInfo(rule, FIDELITY, severity, True, description))
    for rule, (stage, severity, description) in OTHER_RULES.items():
        found.append(RuleInfo(rule, stage, severity, stage in EXCEPTABLE_STAGES, description))
    order: tuple[str, ...] = (INPUT, TEMPLATES, CAPABILITY, RULES, SCHEMA, COVERAGE, CONTEXT)
    order += (FIDELITY, GOLDENS, SCALE)
    found.sort(key=lambda r: (order.index(r.stage) if r.stage in order else len(order), r.id))
    return {r.id: r for r in found}


def stage_of(rule: str) -> str | None:
    """The stage of ``rule``, None for an id not in the catalogue."""
    info = catalogue().get(rule)
    return None if info is None else info.stage


def did_you_mean(rule: str) -> str:
    """`` (did you mean X?)`` for the nearest known id, or ""."""
    import difflib  # only for an unknown rule id

    near = difflib.get_close_matches(rule, list(catalogue()), n=1, cutoff=0.6)
    return f" (did you mean {near[0]}?)" if near else ""
