"""The rule catalogue (``rules``) as a document: every rule id a finding can carry, its
stage, severity and whether a reviewed exception may waive it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from renderer.output import SortedDocument

if TYPE_CHECKING:
    from renderer.checks.catalogue import RuleInfo

RULES = "rules.schema.json"


@dataclass(frozen=True)
class RulesDocument(SortedDocument):
    """Every rule id, in stage order (the order a check runs them)."""

    schema = RULES

    rules: Sequence[RuleInfo]

    def data(self) -> dict[str, Any]:
        return {"tool": "calico-render rules", "rules": [r.to_dict() for r in self.rules]}

    def text(self) -> str:
        rows = [("RULE", "STAGE", "SEVERITY", "EXCEPTABLE", "CHECKS")]
        rows += [
            (r.id, r.stage, r.severity, "yes" if r.exceptable else "no", r.description)
            for r in self.rules
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = [
            "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[4]])
            for row in rows
        ]
        return "".join(f"{line.rstrip()}\n" for line in lines)
