"""Pure decisions: the Typha scale policy and install/upgrade/rollback routing.

Plain functions of plain data, no I/O, so installer-service-style callers can reuse
them and tests can cover every boundary cheaply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

#: kubelet's default ``maxPods``: the pods per node the scale advice assumes unless told.
KUBERNETES_MAX_PODS = 110

TYPHA_NODE_THRESHOLD = 50
MIN_REPLICAS = 3
MAX_REPLICAS = 20
NODES_PER_REPLICA = 200
#: Above this, ceil(n/200) exceeds the cap: the cluster needs its own capacity assessment.
CAPACITY_ASSESSMENT_NODES = MAX_REPLICAS * NODES_PER_REPLICA
TYPHA_KEYS = ("allowTypha", "typhaReplicas")
OPERATIONS = ("install", "upgrade", "rollback")
BOUNDARY_TABLE = (50, 51, 600, 601, 800, 801, 1000, 4000, 4001)


@dataclass(frozen=True, slots=True)
class TyphaDecision:
    """What the policy decided for a node count, and why."""

    nodes: int
    allow_typha: bool
    replicas: int
    reason: str
    warnings: tuple[str, ...] = ()

    def context(self) -> dict[str, str]:
        """The decision as the controller passes it to templates: strings."""
        return {
            "allowTypha": "true" if self.allow_typha else "false",
            "typhaReplicas": str(self.replicas),
        }


def decide_typha(nodes: int) -> TyphaDecision:
    """Typha on above 50 nodes with ``min(20, max(3, ceil(nodes/200)))`` replicas. Zero
    is a count too: a cluster without BKENodes, which the controller renders Typha off."""
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 0:
        raise ValueError(f"node count must be a non-negative integer, got {nodes!r}")
    if nodes <= TYPHA_NODE_THRESHOLD:
        return TyphaDecision(nodes, False, 0, f"{nodes} nodes <= {TYPHA_NODE_THRESHOLD}: Typha off")
    wanted = math.ceil(nodes / NODES_PER_REPLICA)
    replicas = min(MAX_REPLICAS, max(MIN_REPLICAS, wanted))
    reason = (
        f"{nodes} nodes > {TYPHA_NODE_THRESHOLD}: Typha on, "
        f"replicas = min({MAX_REPLICAS}, max({MIN_REPLICAS}, ceil({nodes}/{NODES_PER_REPLICA})"
        f"={wanted})) = {replicas}"
    )
    warnings: tuple[str, ...] = ()
    if nodes > CAPACITY_ASSESSMENT_NODES:
        warnings = (
            f"{nodes} nodes exceed {CAPACITY_ASSESSMENT_NODES}: Typha is capped at "
            f"{MAX_REPLICAS} replicas; this cluster needs its own capacity assessment",
        )
    assert replicas < nodes
    return TyphaDecision(nodes, True, replicas, reason, warnings)


def overridden_keys(user: Mapping[str, object], decision: TyphaDecision) -> list[str]:
    """Warnings for user-supplied Typha keys the policy replaces (e.g. bkeadm's old ones)."""
    wanted = decision.context()
    out = []
    for key in TYPHA_KEYS:
        if key in user and str(user[key]).lower() != wanted[key]:
            out.append(
                f"{key}={user[key]!r} from the configuration is overridden by the Typha "
                f"policy: {key}={wanted[key]!r}"
            )
    return out


@dataclass(frozen=True, slots=True)
class Route:
    """The routing outcome: render with ``decision``, or refuse (exit 3)."""

    decision: TyphaDecision
    operation: str
    capable: bool
    refused: bool = False
    compatibility: bool = False
    message: str = ""
    warnings: tuple[str, ...] = ()


def route(
    nodes: int,
    capable: bool,
    operation: str = "install",
    *,
    version: str = "",
    missing: tuple[str, ...] = (),
) -> Route:
    """The design's decision table: capability x node count x operation."""
    if operation not in OPERATIONS:
        raise ValueError(f"operation must be one of {', '.join(OPERATIONS)}, got {operation!r}")
    decision = decide_typha(nodes)
    if not decision.allow_typha or capable:
        return Route(decision, operation, capable, warnings=decision.warnings)
    what = "; ".join(missing) if missing else "Typha templates"
    if operation == "install":
        return Route(
            decision,
            operation,
            capable,
            refused=True,
            message=(
                f"refusing to install Calico {version or '(version)'} on {nodes} nodes: "
                f"clusters above {TYPHA_NODE_THRESHOLD} nodes need Typha and this version "
                f"is not Typha-capable (missing: {what})"
            ),
        )
    off = TyphaDecision(
        nodes,
        False,
        0,
        f"{nodes} nodes > {TYPHA_NODE_THRESHOLD} but {version or 'the target'} is not "
        f"Typha-capable: {operation} compatibility path, Typha off",
    )
    warning = (
        f"{operation} to Calico {version or '(version)'} on {nodes} nodes takes the "
        f"compatibility path: the version is not Typha-capable, so calico-node stays "
        f"directly on the API server"
    )
    return Route(
        off, operation, capable, compatibility=True, warnings=(*decision.warnings, warning)
    )
