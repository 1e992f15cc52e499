"""Reviewed exceptions: the one place a gate finding is skipped or downgraded.

A tree keeps them in ``ROOT/.calico-render.yaml`` (an explicit file overrides it),
validated by ``schemas/exceptions.schema.json``. Each names a rule id, optionally the
versions it holds for, the severity a finding is downgraded to (absent: skipped) and a
required reason. Matching is a pure function; every applied exception is reported, and
one that matches nothing is a warning, so a stale entry does not linger unnoticed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from renderer.data import schemas
from renderer.errors import InputError
from renderer.finding import Finding
from renderer.k8s.yamlio import load_all, locate
from renderer.manifests.tree import contained
from renderer.store.read import read_text

FILE_NAME = ".calico-render.yaml"
SCHEMA = "exceptions.schema.json"
#: Stages whose findings an exception may touch; template, capability-contract and
#: golden failures are never excepted (they are fixed, or goldens regenerated).
STAGES = ("rules", "schema", "fidelity", "context")


@dataclass(frozen=True)
class RuleException:
    """One reviewed exception, with the line it was declared on."""

    rule: str
    reason: str
    versions: tuple[str, ...] = ()
    #: The severity findings are downgraded to; None: they are skipped.
    severity: str | None = None
    line: int = 0

    def holds_for(self, rule: str, version: str) -> bool:
        return rule == self.rule and (not self.versions or version in self.versions)

    @property
    def action(self) -> str:
        return "skipped" if self.severity is None else f"downgraded to {self.severity}"


@dataclass(frozen=True)
class ExceptionSet:
    """The exceptions of one file (``file`` None: no file, nothing excepted)."""

    file: str | None = None
    items: tuple[RuleException, ...] = ()


@dataclass
class Applied:
    """How often an exception matched, per version (in the order versions are seen)."""

    exception: RuleException
    matches: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        e = self.exception
        return {
            "rule": e.rule,
            "versions": list(e.versions) or None,
            "severity": e.severity,
            "reason": e.reason,
            "line": e.line,
            "matched": [{"version": v, "findings": n} for v, n in self.matches.items()],
        }


def find_file(root: Path | None, explicit: Path | None) -> Path | None:
    """``explicit`` when given, else ``ROOT/.calico-render.yaml`` if present
    (which, like every file of the tree, must stay inside ROOT)."""
    if explicit is not None:
        if not explicit.is_file():
            raise InputError("no such file", file=str(explicit), key="exceptions")
        return explicit
    path = None if root is None else root / FILE_NAME
    if path is None or not (path.is_file() or path.is_symlink()):
        return None
    contained(path, root.resolve() if root is not None else path.parent)
    return path


def parse(text: str, file: str) -> ExceptionSet:
    """Validate an exceptions file; bad input names its line and key (exit 2)."""
    docs = [d for d in load_all(text, file) if d is not None]
    if not docs:
        return ExceptionSet(file)
    if len(docs) != 1:
        raise InputError("expected one YAML document", file=file)
    data = docs[0]
    error = schemas.best_error(SCHEMA, data)
    if error is not None:
        key, message = schemas.describe(error)
        line = locate(text, 0, list(error.absolute_path))
        raise InputError(message, file=file, line=line, key=key or None)
    items = []
    for i, item in enumerate(data["exceptions"]):
        items.append(
            RuleException(
                rule=item["rule"],
                reason=item["reason"].strip(),
                versions=tuple(item.get("versions", ())),
                severity=item.get("severity"),
                line=locate(text, 0, ["exceptions", i]) or 0,
            )
        )
    return ExceptionSet(file, tuple(items))


def load(path: Path | None) -> ExceptionSet:
    if path is None:
        return ExceptionSet()
    return parse(read_text(path), str(path))


def match(exceptions: Sequence[RuleException], rule: str, version: str) -> RuleException | None:
    """The first exception that holds for ``rule`` on ``version``, or None."""
    return next((e for e in exceptions if e.holds_for(rule, version)), None)


def apply(
    findings: Sequence[Finding], exceptions: Sequence[RuleException], version: str
) -> tuple[list[Finding], dict[int, int]]:
    """``findings`` with the reviewed ``exceptions`` applied: those an exception names
    (in a stage of :data:`STAGES`) are skipped, or downgraded with its reason. Returns
    the findings kept and how many each exception (by index) matched."""
    counts: dict[int, int] = {}
    kept: list[Finding] = []
    for f in findings:
        found = match(exceptions, f.rule, version) if f.stage in STAGES else None
        if found is None:
            kept.append(f)
            continue
        index = exceptions.index(found)
        counts[index] = counts.get(index, 0) + 1
        if found.severity is not None:
            kept.append(replace(f, severity=found.severity, exception=found.reason))
    return kept, counts


def applied_list(
    exceptions: ExceptionSet, per_version: Sequence[Sequence[tuple[int, str, int]]]
) -> list[Applied]:
    """Every exception with its matches: ``per_version`` holds (index, version, count)."""
    out = [Applied(e) for e in exceptions.items]
    for matches in per_version:
        for index, version, count in matches:
            out[index].matches[version] = out[index].matches.get(version, 0) + count
    return out


def unmatched_message(applied: Applied, file: str | None) -> str:
    """The warning for an exception that matched no finding."""
    e = applied.exception
    where = f"{file}:{e.line}" if file else "exceptions"
    scope = f" on {', '.join(e.versions)}" if e.versions else ""
    return f"{where}: exception for rule {e.rule}{scope} matches nothing; remove it"
