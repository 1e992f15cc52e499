"""Which scenarios the release gate renders for a version, and what each one decides.

Pure functions of capability: the gate, the goldens and the project's own regression
tests must agree on the same scenario list, so it is defined once, here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from renderer.calico import policy


@dataclass(frozen=True)
class Scenario:
    """One rendering of a version: ``name`` is also its golden directory."""

    name: str
    nodes: int
    operation: str = "install"


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
    """The policy's routing for ``scenario``; scenarios are chosen so none is refused."""
    return policy.route(
        scenario.nodes, capable, scenario.operation, version=version, missing=missing
    )


def decision_record(scenario: Scenario, route: policy.Route) -> dict[str, Any]:
    """What the golden stores about a scenario's decision (plain, stable data)."""
    ctx = route.decision.context()
    return {
        "scenario": scenario.name,
        "nodes": scenario.nodes,
        "operation": route.operation,
        "allowTypha": ctx["allowTypha"],
        "typhaReplicas": ctx["typhaReplicas"],
        "compatibility": route.compatibility,
        "warnings": list(route.warnings),
    }
