"""The verdict on a version's templates, kept per content digest: the Typha contract
(:func:`renderer.checks.renders.capability_of`) and the release rules, judged once.

A long-running caller pays the three renders once per version, a command line once per
template change (the persistent cache, never trusted without a shape check).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from renderer.calico import policy
from renderer.manifests.tree import VersionDir
from renderer.store import cache
from renderer.store.memo import Memo

if TYPE_CHECKING:
    from renderer.k8s.parse import K8sObject


@dataclass(frozen=True)
class Verdict:
    """What a version's templates render, judged once: the Typha contract and the
    release rules (no schemas: they are the gate's, and slow)."""

    capable: bool
    missing: tuple[str, ...]
    summary: str
    #: Ids of the release rules with errors (on the Typha-on render).
    rule_errors: tuple[str, ...]

    @property
    def release_ready(self) -> bool:
        return self.capable and not self.rule_errors


#: Verdicts by the version's template digests; a caller judges a handful of versions,
#: and every template change is a new key.
_VERDICTS: Memo[tuple[tuple[str, str], ...], Verdict] = Memo("checks.verdicts", 64)


def _key(version: VersionDir) -> tuple[tuple[str, str], ...]:
    from renderer.engine.compile import template_digest

    return tuple((tf.name, template_digest(tf)) for tf in version.files)


def verdict(version: VersionDir) -> Verdict:
    """The version's :class:`Verdict`, kept per content digest: a long-running caller
    pays the three renders once per version, not once per request, and a command line
    once per template change (the persistent cache)."""
    key = _key(version)
    cached = _VERDICTS.get(key)
    if cached is None:
        stored_key = "\n".join(
            f"{tf.name}\t{tf.dialect}\t{d}" for tf, (_, d) in zip(version.files, key, strict=True)
        )
        stored = cache.get("capability", stored_key, _valid_verdict)
        if stored is not None:
            cached = Verdict(stored[0], tuple(stored[1]), stored[2], tuple(stored[3]))
        else:
            cached = _judge(version)
            cache.put(
                "capability",
                stored_key,
                [cached.capable, list(cached.missing), cached.summary, list(cached.rule_errors)],
            )
        _VERDICTS[key] = cached
    return cached


#: The node count the release rules judge: the smallest cluster that gets Typha (what
#: :data:`renderer.checks.renders.RULE_NODES` is).
RULE_NODES = policy.TYPHA_NODE_THRESHOLD + 1


def _render_objects(
    version: VersionDir, typha: Mapping[str, str]
) -> tuple[Mapping[str, Any], tuple[K8sObject, ...]]:
    """``version`` rendered on the controller's default context plus Typha keys, parsed
    (:func:`renderer.checks.renders.render_objects`)."""
    from renderer.bke.values import build_context
    from renderer.calico.capability import CHECK_REPO
    from renderer.engine.render import render_version
    from renderer.k8s.parse import parse_rendered

    context = build_context({}, typha=typha, repo=CHECK_REPO)
    return context, tuple(parse_rendered(render_version(version, context)))


def _judge(version: VersionDir) -> Verdict:
    """The contract on three renders and the ids of the release rules with errors on the
    Typha-on one for :data:`RULE_NODES`: the gate's
    :func:`~renderer.checks.renders.capability_of` and
    :func:`~renderer.checks.pipeline.release_rules`, without loading the gate and
    without locating findings a verdict does not keep."""
    from renderer.calico import capability
    from renderer.calico.rules import RuleInput, violated

    with cache.reading_only():  # the renders are kept as this verdict, not one by one
        report = capability.assess_capability(version, _render_objects)
    rules: list[str] = []
    if report.capable:
        on = report.typha_on(policy.decide_typha(RULE_NODES).replicas)
        rules = violated(RuleInput(on.objects, report.version, on.context, RULE_NODES))
    return Verdict(report.capable, tuple(report.missing), report.verdict, tuple(rules))


def typha_capability(version: VersionDir) -> tuple[bool, tuple[str, ...]]:
    """(capable, missing items) judged from what the version's templates render."""
    v = verdict(version)
    return v.capable, v.missing


def readiness_warning(version: VersionDir, *, assess: bool = True) -> str | None:
    """One line when ``version`` is not release-ready (Typha contract, release rules);
    :func:`verdict` says more. ``assess`` False: only from a verdict already judged (no
    renders for it)."""
    if not assess and _key(version) not in _VERDICTS:
        return None
    v = verdict(version)
    if v.release_ready:
        return None
    why = f"release rules fail: {', '.join(v.rule_errors)}" if v.capable else v.summary
    return f"{version.name} is not release-ready ({why})"


def _valid_verdict(value: Any) -> bool:
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
        and all(isinstance(r, str) for r in value[3])
    )
