"""What SARIF and Code Quality share: a finding's fingerprint and its rule's words.

A fingerprint identifies a problem across runs and machines, so CI can tell a new
finding from one it already showed: a digest of the rule, stage, path, object, field
and message, never the line (an edit above it moves the line, not the problem) nor an
absolute path's machine. Equal digests within one report get an occurrence number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.finding import Finding


def rule_description(rule: str, example: Finding) -> str:
    """What ``rule`` checks, as the rule catalogue (``calico-render rules``) says it,
    or the stage's words for an id it does not list. The catalogue loads every stage's
    rules: only a report that names its rules (SARIF) asks for it."""
    from renderer.checks.catalogue import catalogue

    info = catalogue().get(rule)
    if info is not None:
        return info.description
    return f"A finding of the {example.stage or 'check'} stage ({rule})."


def _portable(path: str) -> str:
    """A path as the fingerprint sees it: an absolute path by its last two parts."""
    if path.startswith("/"):
        return "/".join(path.rstrip("/").split("/")[-2:])
    return path


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """A stable, unique hex digest per finding (see the module doc)."""
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        key = "\x1f".join(
            (f.rule, f.stage, _portable(f.file), str(f.object or ""), f.field, f.message)
        )
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        if n:
            digest = hashlib.sha256(f"{digest}:{n}".encode()).hexdigest()
        out.append(digest)
    return out
