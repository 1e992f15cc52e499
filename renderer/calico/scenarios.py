"""Which scenarios the release gate renders for a version, and what each one decides.

Pure functions of plain data: the gate, the goldens and the project's own regression
tests must agree on the same scenario list, so it is defined once, here.

Two kinds: the routing scenarios (Typha off, on, at the 4-replica step; a legacy
version's upgrade compatibility path), and the scenarios derived from the templates
themselves (:func:`dimensions`, :func:`cover`): every string a branch compares a
context key with, the no-match path of each such comparison, ``repo`` empty and set,
and whatever truth tests take an else, combined greedily until every branch arm that
some reachable context takes has been rendered once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from renderer.calico import policy

#: A context value a scenario leaves unset (the key is missing, as when no config sets it).
UNSET = None
Value = str | None


@dataclass(frozen=True)
class Scenario:
    """One rendering of a version: ``name`` is also its golden directory; ``values`` are
    the context values it sets besides the Typha decision (None: the key is unset)."""

    name: str
    nodes: int
    operation: str = "install"
    values: tuple[tuple[str, Value], ...] = ()


#: Typha-capable versions: off at the threshold, on just above it, and at the 4-replica step.
CAPABLE_SCENARIOS = (
    Scenario("nodes-50", 50),
    Scenario("nodes-51", 51),
    Scenario("nodes-601", 601),
)
#: Legacy versions: a small install, and the upgrade compatibility path above the threshold
#: (a first install there would be refused).
LEGACY_SCENARIOS = (
    Scenario("nodes-50", 50),
    Scenario("upgrade-51", 51, "upgrade"),
)


def scenarios_for(capable: bool) -> tuple[Scenario, ...]:
    """The scenarios of a Typha-capable (``True``) or legacy version."""
    return CAPABLE_SCENARIOS if capable else LEGACY_SCENARIOS


def route_scenario(
    scenario: Scenario, capable: bool, version: str = "", missing: tuple[str, ...] = ()
) -> policy.Route:
    """The policy's routing for ``scenario``; scenarios are chosen so none is refused
    unless the version's Typha templates are incomplete."""
    return policy.route(
        scenario.nodes, capable, scenario.operation, version=version, missing=missing
    )


def decision_record(scenario: Scenario, route: policy.Route) -> dict[str, Any]:
    """What the golden stores about a scenario's decision (plain, stable data)."""
    ctx = route.decision.context()
    record: dict[str, Any] = {
        "scenario": scenario.name,
        "nodes": scenario.nodes,
        "operation": route.operation,
        "allowTypha": ctx["allowTypha"],
        "typhaReplicas": ctx["typhaReplicas"],
        "compatibility": route.compatibility,
        "warnings": list(route.warnings),
    }
    if route.refused:  # rendered all the same: a verdict, not a reason to stop checking
        record["refused"] = route.message
    if scenario.values:
        record["values"] = dict(scenario.values)
    return record


# --- scenarios derived from the templates ---------------------------------------------

#: The ``repo`` of check renders (a registry prefix, so image rules see it honoured).
REPO_KEY = "repo"
#: What a truth test's true side gets when the key's default is empty.
TRUTHY_SAMPLE = "calico-render-check"
#: Derived scenarios at most per version: a bound for adversarial templates (the rest is
#: reported as branches no scenario renders).
MAX_DERIVED = 24

#: What a scenario covers: ("arm", file, offset, 0|1) or ("value", key, value).
Target = tuple[Any, ...]


def dimensions(
    compared: Mapping[str, Collection[str]],
    truthy: Collection[str],
    defaults: Mapping[str, Value],
    enums: Mapping[str, Sequence[str]],
    repo: str,
    always_set: Collection[str] = (),
    *,
    repo_sample: str = TRUTHY_SAMPLE,
    unset_strings: bool = False,
) -> dict[str, tuple[Value, ...]]:
    """Per context key, the values besides its default that the gate may render it with:
    each string compared with it, one value matching none of them (its default when
    that matches none, else a value the context schema allows, else unset unless the
    controller ``always_set``s the key, else ""), the other side of a truth test, and
    for ``repo`` empty and set (``repo_sample`` when its default is empty). With
    ``unset_strings``, a compared key whose default is unset also gets a string
    matching none of its literals (``ne .x nil`` and ``ne .x ""`` both hold only for a
    set, non-empty value). The Typha keys are the routing's, not dimensions."""
    out: dict[str, tuple[Value, ...]] = {}
    for key in sorted(set(compared) | set(truthy) | {REPO_KEY}):
        if key in policy.TYPHA_KEYS:
            continue
        default = repo if key == REPO_KEY else defaults.get(key, UNSET)
        values: list[Value] = [*sorted(compared.get(key, ()))]
        if values and default in values:
            values.append(_no_match(key, values, always_set, enums))
        elif values and default is UNSET and unset_strings:
            values.append(_no_match(key, values, (key,), enums, sample=True))
        if key == REPO_KEY:
            values.append("" if default else repo_sample)
        elif key in truthy:
            values.append("" if default else TRUTHY_SAMPLE)
        out[key] = tuple(v for v in dict.fromkeys(values) if v != default)
    return out


def _no_match(
    key: str,
    literals: Sequence[Value],
    always_set: Collection[str],
    enums: Mapping[str, Sequence[str]],
    *,
    sample: bool = False,
) -> Value:
    """A value of ``key`` that matches none of ``literals``: one the context schema
    allows, else unset (a config without the param), else "" (``sample``: a non-empty
    string first)."""
    for value in enums.get(key, ()):
        if value not in literals:
            return value
    if key not in always_set:
        return UNSET
    if sample and TRUTHY_SAMPLE not in literals:
        return TRUTHY_SAMPLE
    return "" if "" not in literals else TRUTHY_SAMPLE


def value_targets(
    compared: Mapping[str, Collection[str]], dims: Mapping[str, Sequence[Value]]
) -> set[Target]:
    """What must be rendered whatever the branches: every value of a compared key (its
    strings and its no-match value) and ``repo`` empty and set."""
    out: set[Target] = set()
    for key, values in dims.items():
        if key in compared or key == REPO_KEY:
            out.update(("value", key, v) for v in values)
    return out


def _slug(key: str, value: Value, repo: str) -> str:
    if value is UNSET:
        return f"{key}-unset"
    if value == "":
        return f"{key}-empty"
    if key == REPO_KEY:  # the check's prefix (or the sample of an empty default)
        return f"{key}-set"
    return f"{key}-{re.sub(r'[^A-Za-z0-9._]+', '_', value)[:40]}"


#: The longest scenario name spelled out (it is a golden directory's name too); a longer
#: one keeps its first value and a digest of all of them.
MAX_NAME = 96


def derived(start: Scenario, values: Mapping[str, Value], repo: str) -> Scenario:
    """``start`` with ``values`` set, named after what they set
    (``nodes-51-calicoMode-bgp-repo-empty``); past :data:`MAX_NAME` characters,
    ``<start>-<first value>-and-<n>-more-<digest>`` (the same values, the same name)."""
    items = tuple(sorted(values.items()))
    slugs = [_slug(k, v, repo) for k, v in items]
    name = "-".join([start.name, *slugs])
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(repr(items).encode("utf-8", "surrogateescape")).hexdigest()
        name = f"{start.name}-{slugs[0][:40]}-and-{len(slugs) - 1}-more-{digest[:8]}"
    return replace(start, name=name, values=items)


def cover(
    starts: Sequence[Scenario],
    dims: Mapping[str, Sequence[Value]],
    takes: Callable[[Scenario], frozenset[Target]],
    wanted: Collection[Target],
    covered: Collection[Target],
    repo: str,
    limit: int = MAX_DERIVED,
) -> list[Scenario]:
    """A greedy cover: scenarios, each from one of ``starts`` (the Typha states), each
    adding the most ``wanted`` targets not yet ``covered``. A scenario is built one key
    at a time (keys in name order), keeping the value that adds the most; it is taken
    when it adds anything. ``takes`` says what a scenario covers (it renders it)."""
    done = set(covered)
    chosen: list[Scenario] = []
    names: set[str] = set()
    while len(chosen) < limit:
        best: tuple[Scenario, set[Target]] | None = None
        for start in starts:
            values: dict[str, Value] = {}
            gain = (set(takes(start)) & set(wanted)) - done
            for key in sorted(dims):
                for value in dims[key]:
                    trial = {**values, key: value}
                    found = (set(takes(derived(start, trial, repo))) & set(wanted)) - done
                    if len(found) > len(gain):
                        values, gain = trial, found
            if gain and (best is None or len(gain) > len(best[1])):
                best = (derived(start, values, repo), gain)
        if best is None:
            break
        scenario = best[0]
        if scenario.name in names:  # cannot happen with distinct values; a guard
            break
        names.add(scenario.name)
        chosen.append(scenario)
        done |= best[1]
    return chosen
