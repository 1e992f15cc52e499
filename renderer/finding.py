"""The one finding model every stage reports in: rules, schema, capability, fidelity,
context, goldens and the scale advice.

A finding names its rule, severity and stage, the object (``Kind namespace/name``) and
field path it is about, where it is (file and template line), and the scenarios and
Kubernetes versions it holds for (see :func:`merge_findings`). What one stage alone
needs (the advice's numbers, a schema finding's apiVersion) is in ``details``. Each
report serialises findings with its own function over this one class
(:mod:`renderer.output.findings`), so the JSON of every report keeps its keys.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One problem (or note) a stage found; severity "error" fails what it is about."""

    rule: str
    severity: str
    message: str
    stage: str = ""
    object: str = ""
    field: str = ""
    file: str = ""
    #: The template line of the field (or object); 0 when unknown.
    line: int = 0
    #: The object's line in the rendered file (rules), as secondary context.
    rendered_line: int = 0
    scenarios: tuple[str, ...] = ()
    kube_versions: tuple[str, ...] = ()
    #: The reason of the reviewed exception that downgraded it (see renderer.checks.exceptions).
    exception: str = ""
    #: What one stage alone carries (advice numbers, a schema finding's apiVersion).
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    @property
    def location(self) -> str:
        """``file:line`` with whatever parts are known."""
        return f"{self.file}:{self.line}" if self.file and self.line else self.file

    def describe(self) -> str:
        """One line for text reports: severity, rule, message, then where and for what."""
        where = [x for x in (self.object, self.location) if x]
        extra = [
            f"{k} {', '.join(v)}"
            for k, v in (("kube", self.kube_versions), ("scenarios", self.scenarios))
            if v
        ]
        if self.exception:
            extra.append(f"excepted: {self.exception}")
        tail = f" ({'; '.join(where + extra)})" if where or extra else ""
        return f"[{self.severity}] {self.rule}: {self.message}{tail}"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file else ""
        at = f"{self.object} " if self.object else ""
        fld = f"{self.field}: " if self.field else ""
        return f"{where}{self.severity}: [{self.rule}] {at}{fld}{self.message}"


def locate(where: str) -> tuple[str, int]:
    """A ``file:line`` location as (file, line); line 0 when it has none."""
    file, line = split_location(where)
    return file or "", line or 0


def split_location(where: str) -> tuple[str | None, int | None]:
    """``file:line`` as JSON reports carry it: the file and the template line apart,
    null for what is unknown."""
    if not where:
        return None, None
    file, sep, line = where.rpartition(":")
    if sep and file and line.isdigit():
        return file, int(line)
    return where, None


def _union(a: tuple[str, ...], b: Iterable[str]) -> tuple[str, ...]:
    return a + tuple(x for x in b if x not in a)


def merge_findings(findings: Iterable[Finding], order: Sequence[str] = ()) -> list[Finding]:
    """Findings equal but for scenario, Kubernetes version and location become one
    listing every scenario (in ``order``, then first-seen) and Kubernetes version,
    located where first seen: a typo'd field is one error, not one per render."""
    merged: dict[tuple[str, ...], Finding] = {}
    for f in findings:
        key = (f.stage, f.rule, f.severity, f.message, f.object, f.field, f.exception)
        m = merged.get(key)
        merged[key] = (
            f
            if m is None
            else replace(
                m,
                scenarios=_union(m.scenarios, f.scenarios),
                kube_versions=_union(m.kube_versions, f.kube_versions),
            )
        )
    if not order:
        return list(merged.values())
    rank = {name: i for i, name in enumerate(order)}
    return [
        replace(f, scenarios=tuple(sorted(f.scenarios, key=lambda s: rank.get(s, len(rank)))))
        for f in merged.values()
    ]


def blocking(findings: Iterable[Finding]) -> list[Finding]:
    """The error findings (what blocks a release)."""
    return [f for f in findings if f.severity == ERROR]


__all__ = [
    "ERROR",
    "INFO",
    "WARNING",
    "Finding",
    "blocking",
    "locate",
    "merge_findings",
    "split_location",
]
