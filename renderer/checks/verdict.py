"""A version's verdict: the Typha contract and the release rules judged on what its
templates render, kept per template content.

Routing a render needs the contract (is the version Typha-capable?), and every render
above 50 nodes asks for it; judging it costs three renders. So the verdict is kept for
this process and in the result cache, keyed by the bytes of the version's templates
(:func:`renderer.store.cache.key` adds the tool's own code and version).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from renderer.bke import typha as controller
from renderer.bke.values import build_context
from renderer.calico import capability, policy
from renderer.calico.rules import RuleInput, violations
from renderer.checks import exceptions as excepts
from renderer.checks.exceptions import RuleException
from renderer.engine.render import render_version
from renderer.finding import CAPABILITY, ERROR, Finding
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.manifests.tree import VersionDir, tree_path
from renderer.store import cache
from renderer.store.memo import Memo

#: The node count the release rules judge: the smallest cluster that gets Typha.
RULE_NODES = policy.TYPHA_NODE_THRESHOLD + 1


def render_objects(
    version: VersionDir, typha: Mapping[str, str]
) -> tuple[Mapping[str, Any], tuple[K8sObject, ...]]:
    """``version`` rendered on the controller's default context plus Typha keys, parsed:
    the renders the Typha contract judges."""
    context = build_context({}, typha=typha, repo=capability.CHECK_REPO)
    return context, tuple(parse_rendered(render_version(version, context)))


def capability_of(version: VersionDir) -> capability.CapabilityReport:
    """The Typha contract of ``version`` on renders of BKE's default context."""
    return capability.assess_capability(version, render_objects)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a version's templates render, judged once: the Typha contract and the
    release rules (no schemas: they are the gate's, and slow)."""

    capable: bool
    missing: tuple[str, ...]
    summary: str
    #: The release rules' errors on the Typha-on render: (rule id, ``Kind
    #: namespace/name``, field), what a reviewed exception is matched against.
    violations: tuple[tuple[str, str, str], ...] = ()

    @property
    def rule_errors(self) -> tuple[str, ...]:
        """Ids of the release rules with errors, sorted."""
        return tuple(sorted({rule for rule, _, _ in self.violations}))

    @property
    def release_ready(self) -> bool:
        return self.capable and not self.violations

    def excepted(self, exceptions: Sequence[RuleException], version: str) -> Verdict:
        """This verdict with the reviewed ``exceptions`` applied, as ``check`` and
        ``capability`` apply them (a skipped or downgraded error blocks nothing)."""
        left = tuple(
            v
            for v in self.violations
            if excepts.match(exceptions, v[0], version, v[1], v[2]) is None
        )
        return replace(self, violations=left)


#: Verdicts by their cache key; a caller judges a handful of versions, and every
#: template change is a new key.
_VERDICTS: Memo[str, Verdict] = Memo("checks.verdicts", 64)


def _key(version: VersionDir) -> str:
    """The cache key of a version's verdict: every template's name, dialect and bytes."""
    parts: list[str | bytes] = ["verdict"]
    for tf in version.files:
        parts += [tf.name, tf.dialect, tf.digest]
    return cache.key(*parts)


def verdict(version: VersionDir) -> Verdict:
    """The version's :class:`Verdict`, judged once per template content."""
    key = _key(version)
    known = _VERDICTS.get(key)
    if known is None:
        stored = cache.get("verdict", key, _valid)
        known = _from_data(stored) if stored is not None else _judge(version)
        if stored is None:
            cache.put("verdict", key, _to_data(known))
        _VERDICTS[key] = known
    return known


def _judge(version: VersionDir) -> Verdict:
    """The contract on three renders of BKE's default context, and the ids of the
    release rules with errors on the Typha-on render for :data:`RULE_NODES` nodes."""
    report = capability_of(version)
    rules: list[tuple[str, str, str]] = []
    if report.capable:
        on = report.typha_on(policy.decide_typha(RULE_NODES).replicas)
        rules = violations(RuleInput(on.objects, report.version, on.context, RULE_NODES))
    return Verdict(report.capable, tuple(report.missing), report.verdict, tuple(rules))


def typha_capability(version: VersionDir) -> tuple[bool, tuple[str, ...]]:
    """(capable, missing items) judged from what the version's templates render."""
    v = verdict(version)
    return v.capable, v.missing


def readiness_warning(version: VersionDir, exceptions: Sequence[RuleException] = ()) -> str | None:
    """One line when ``version`` is not release-ready (Typha contract, release rules,
    with the tree's reviewed ``exceptions`` applied as ``capability`` applies them);
    ``calico-render capability`` says more."""
    v = verdict(version).excepted(exceptions, version.name)
    if v.release_ready:
        return None
    why = f"release rules fail: {', '.join(v.rule_errors)}" if v.capable else v.summary
    return f"{version.name} is not release-ready ({why})"


def _to_data(v: Verdict) -> list[Any]:
    return [v.capable, list(v.missing), v.summary, [list(x) for x in v.violations]]


def _from_data(value: list[Any]) -> Verdict:
    return Verdict(value[0], tuple(value[1]), value[2], tuple(tuple(x) for x in value[3]))


def _valid(value: Any) -> bool:
    """A stored verdict's shape, and capable exactly when nothing is missing."""
    return (
        isinstance(value, list)
        and len(value) == 4
        and isinstance(value[0], bool)
        and isinstance(value[1], list)
        and all(isinstance(m, str) for m in value[1])
        and value[0] == (not value[1])
        and isinstance(value[2], str)
        and isinstance(value[3], list)
        and all(
            isinstance(r, list) and len(r) == 3 and all(isinstance(x, str) for x in r)
            for r in value[3]
        )
    )


#: The rule id of a version whose capability BKE's controller judges otherwise.
DISAGREES = "typha-controller-disagrees"


def controller_disagreement(version: VersionDir) -> list[Finding]:
    """An error when BKE's controller, which decides Typha by a text search of the
    templates (:mod:`renderer.bke.typha`), judges ``version`` otherwise than what its
    templates render: production then installs (or refuses) what calico-render would
    not. Located at the first string the search found, or at the version's first file."""
    judged = verdict(version)
    found = controller.search(version)
    if found.capable == judged.capable:
        return []
    names = [tf.name for tf in version.files]
    if found.capable:
        what = (
            f"BKE's controller finds every string its Typha search asks for "
            f"({found.where()}) and renders Typha on above 50 nodes, but the rendered "
            f"objects are not Typha-capable ({judged.summary})"
        )
        where = found.found[0]
        file, line = where.file, where.line
    else:
        what = (
            f"BKE's controller misses {', '.join(repr(m) for m in found.missing)} in its "
            "Typha search and refuses a first install above 50 nodes (an upgrade keeps "
            "Typha off), but the rendered objects are Typha-capable"
        )
        file, line = names[0] if names else "", 1
    return [
        Finding(
            DISAGREES,
            ERROR,
            what,
            stage=CAPABILITY,
            file=tree_path(version.name, names, file),
            line=line,
        )
    ]
