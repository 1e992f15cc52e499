"""Release rules about Calico objects (Typha, images), registered in
:mod:`renderer.calico.rules.registry` when this package is imported."""

from renderer.calico.rules import images, objects, typha
from renderer.calico.rules.registry import (
    ERROR,
    REGISTRY,
    WARNING,
    Rule,
    RuleInput,
    Violation,
    generic_rules,
    rule,
    run_rules,
    violated,
    violations,
)

__all__ = [
    "ERROR",
    "REGISTRY",
    "WARNING",
    "Rule",
    "RuleInput",
    "Violation",
    "generic_rules",
    "images",
    "objects",
    "rule",
    "run_rules",
    "typha",
    "violated",
    "violations",
]
