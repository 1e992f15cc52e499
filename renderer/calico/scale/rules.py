"""The scale rules, registered in :mod:`~renderer.calico.scale.registry` when this module
is imported: plain functions of :mod:`~renderer.calico.scale.facts`, each returning one
:class:`~renderer.calico.scale.registry.Advice` (info when within the limits) that names
the facts it used, what it computed and, past a limit, the advice and suggestions that
fit. Adding a rule is one registered function here and its test in
``tests/calico/scale/test_rules.py``."""

from __future__ import annotations

import math
from typing import Any

from renderer.calico import names, policy
from renderer.calico.scale.facts import POLICY, RENDERED, SEED, Fact, Pool, Requests, ScaleInputs
from renderer.calico.scale.pools import (
    block_option,
    block_prefix,
    block_use,
    count,
    fits_addresses,
    percent,
    pool_prefix_for,
    suggest_blocks,
    widen,
)
from renderer.calico.scale.registry import REGISTRY, Advice, pool_rule, rule
from renderer.calico.scale.tables import (
    ADDRESS_WARN,
    BGP_MESH_NODES,
    BLOCK_SIZE_LIMITS,
    CALICO_BLOCK_SIZE,
    NODES_PER_TYPHA,
    RESOURCE_GUIDE,
    TYPHA_MAX_CONNECTIONS,
    route_reflectors,
    size_row,
)
from renderer.finding import ERROR, WARNING
from renderer.k8s.quantity import quantity

POD_ADDRESSES = "scale-pod-addresses"
IPAM_BLOCKS = "scale-ipam-blocks"
BGP_MESH = "scale-bgp-mesh"
TYPHA_REPLICAS = "scale-typha-replicas"
TYPHA_RESOURCES = "scale-typha-resources"
FELIX_RESOURCES = "scale-felix-resources"


def _int(fact: Fact, name: str) -> int:
    value = fact.value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


WARN_FACT = Fact(
    f"{int(ADDRESS_WARN * 100)}%", POLICY, "calico-render advise: warn above this pool use"
)
MESH_FACT = Fact(
    BGP_MESH_NODES,
    POLICY,
    "calico-render advise: route reflectors above this many nodes (Calico's guidance: "
    "well before a few hundred)",
)


def _bad_cidr(pool: Pool, inputs: dict[str, Fact]) -> Advice:
    return Advice(
        "error",
        f"{pool.name} pool CIDR {pool.cidr.value!r} is not an {pool.name} CIDR; calico-node "
        "cannot create the pool",
        inputs,
        at=pool.cidr,
        computed={"family": pool.name},
        advice=f"set an {pool.name} CIDR"
        + (" (podSubnet)" if pool.family == 4 else " (ClusterCidr.Ipv6)"),
    )


@pool_rule(
    id=POD_ADDRESSES,
    severity=f"{ERROR}/{WARNING}",
    message="the pod address pool must hold nodes x max pods (error: it cannot; warning: "
    "above 80 % of it)",
)
def pod_addresses(data: ScaleInputs, pool: Pool) -> Advice:
    """The pool against nodes x max pods: error when it cannot hold them, warning above 80 %."""
    nodes, max_pods = data.nodes, data.max_pods
    n, m = _int(nodes, "nodes"), _int(max_pods, "max_pods")
    inputs = {"nodes": nodes, "max_pods": max_pods, "pool_cidr": pool.cidr, "warn_above": WARN_FACT}
    net = pool.network()
    if net is None:
        return _bad_cidr(pool, inputs)
    capacity, needed = net.num_addresses, n * m
    used = percent(needed, capacity)
    computed: dict[str, Any] = {
        "family": pool.name,
        "pool_addresses": capacity,
        "pod_addresses": needed,
        "used_percent": used,
    }
    what = (
        f"{pool.name} pool {net} holds {count(capacity)} pod addresses; {n:,} nodes x {m} "
        f"max pods need {count(needed)} ({used} %)"
    )
    if fits_addresses(needed, capacity):
        return Advice("info", what, inputs, at=pool.cidr, computed=computed)
    severity = "error" if needed > capacity else "warning"
    what += (
        ": the pool runs out" if severity == "error" else f", above {WARN_FACT.value} of the pool"
    )
    suggestions: list[dict[str, Any]] = []
    options: list[str] = []
    prefix = pool_prefix_for(needed, pool.bits)
    if prefix is not None:
        wider = widen(net, prefix)
        suggestions.append(
            {
                "cidr": str(wider),
                "pool_addresses": wider.num_addresses,
                "used_percent": percent(needed, wider.num_addresses),
            }
        )
        options.append(
            f"a /{prefix} pool, e.g. {wider} ({count(wider.num_addresses)} addresses, "
            f"{percent(needed, wider.num_addresses)} % used; it must not overlap the "
            "service and node networks)"
        )
    fewer = math.floor(capacity * ADDRESS_WARN / n)
    if fewer >= 1:
        suggestions.append({"max_pods": fewer})
        options.append(f"at most {fewer} max pods per node to stay within {WARN_FACT.value}")
    return Advice(
        severity,
        what,
        inputs,
        at=pool.cidr,
        computed=computed,
        advice=" or ".join(options) if options else "no pool of this IP version is large enough",
        suggestions=suggestions,
    )


@pool_rule(
    id=IPAM_BLOCKS,
    severity=f"{ERROR}/{WARNING}",
    message="every node's IPAM blocks must fit the pool (warning: nodes must borrow "
    "addresses; error: a block size calico-node refuses)",
)
def ipam_blocks(data: ScaleInputs, pool: Pool) -> Advice:
    """Blocks the nodes claim (nodes x ceil(max pods / block addresses)) against the pool's
    blocks: a warning when nodes must borrow, with a block size and CIDR that fit."""
    nodes, max_pods = data.nodes, data.max_pods
    n, m = _int(nodes, "nodes"), _int(max_pods, "max_pods")
    inputs = {
        "nodes": nodes,
        "max_pods": max_pods,
        "pool_cidr": pool.cidr,
        "block_size": pool.block_size,
    }
    net = pool.network()
    if net is None:
        return _bad_cidr(pool, inputs)
    block = block_prefix(pool, net)
    if block is None:
        low, high = BLOCK_SIZE_LIMITS[pool.family]
        return Advice(
            "error",
            f"{pool.name} block size {pool.block_size.value!r} is not a prefix length from "
            f"/{max(low, net.prefixlen)} to /{high} for pool {net}; calico-node refuses it",
            inputs,
            at=pool.block_size if pool.block_size.source == RENDERED else pool.cidr,
            computed={"family": pool.name},
            advice=f"use Calico's default /{CALICO_BLOCK_SIZE[pool.family]}",
        )
    option = block_option(n, m, block, net, pool.bits)
    per_node, needed, have = (
        option["blocks_per_node"],
        option["blocks_needed"],
        option["pool_blocks"],
    )
    computed: dict[str, Any] = {
        "family": pool.name,
        "block_addresses": option["block_addresses"],
        "blocks_per_node": per_node,
        "blocks_needed": needed,
        "pool_blocks": have,
    }
    what = (
        f"{n:,} nodes x {per_node} /{block} block(s) per node ({m} max pods, "
        f"{count(option['block_addresses'])} addresses per block) = {count(needed)} blocks; "
        f"{pool.name} pool {net} has {count(have)}"
    )
    at = pool.block_size if pool.block_size.source == RENDERED else pool.cidr
    if needed <= have:
        return Advice("info", what, inputs, at=at, computed=computed)
    what += (
        ": nodes must borrow addresses from other nodes' blocks, so routes stop aggregating "
        "per node"
    )
    options = suggest_blocks(n, m, net, block, pool.bits)
    texts = []
    for o in options:
        where = "keeps the pool" if o["cidr"] == str(net) else "in a wider pool"
        texts.append(
            f"block size /{o['block_size']}{block_use(o['block_size'], pool.bits)} {where} "
            f"{o['cidr']}: {o['blocks_per_node']} block(s) per node, "
            f"{count(o['blocks_needed'])} of {count(o['pool_blocks'])} blocks"
        )
    return Advice(
        "warning",
        what,
        inputs,
        at=at,
        computed=computed,
        advice=" or ".join(texts) if texts else "no block size of seed 003's guide fits",
        suggestions=options,
    )


@rule(
    id=BGP_MESH,
    severity=WARNING,
    message="a BIRD node-to-node mesh above 100 nodes should give way to route reflectors",
)
def bgp_mesh(data: ScaleInputs) -> Advice:
    """BIRD's node-to-node mesh: n(n-1)/2 sessions; a warning above 100 nodes with seed 003's
    route-reflector topology. No BIRD (VXLAN) means no BGP sessions."""
    nodes, backend = data.nodes, data.backend
    n = _int(nodes, "nodes")
    inputs = {"nodes": nodes, "backend": backend, "mesh_limit": MESH_FACT}
    name = str(backend.value)
    if name != "bird":
        return Advice(
            "info",
            f"calico_backend {name}: no BIRD, so no BGP sessions between nodes",
            inputs,
            at=backend,
            computed={"bgp_sessions": 0},
        )
    sessions = n * (n - 1) // 2
    rr = route_reflectors(n)
    rr_sessions = max(n - rr, 0) + rr * (rr - 1) // 2
    computed = {
        "bgp_sessions": sessions,
        "sessions_per_node": n - 1,
        "route_reflectors": rr,
        "sessions_with_route_reflectors": rr_sessions,
    }
    what = (
        f"calico_backend bird: the node-to-node mesh peers every node with every other: "
        f"{n:,} nodes = {sessions:,} BGP sessions, {n - 1:,} per node"
    )
    if n <= BGP_MESH_NODES:
        return Advice("info", what, inputs, at=backend, computed=computed)
    what += f"; above {BGP_MESH_NODES} nodes"
    advice = (
        f"disable the mesh (BGPConfiguration default, nodeToNodeMeshEnabled: false) and peer "
        f"the nodes with {rr} route reflectors, one per zone (label route-reflector=true, "
        f"spec.bgp.routeReflectorClusterID), meshed with each other; each node peers with "
        f"its zone's reflector: {rr_sessions:,} sessions instead of {sessions:,} (seed 003, "
        f"路由反射器拓扑); or calicoMode vxlan, which runs no BIRD"
    )
    return Advice(
        "warning",
        what,
        inputs,
        at=backend,
        computed=computed,
        advice=advice,
        suggestions=[{"route_reflectors": rr, "bgp_sessions": rr_sessions}],
    )


@rule(
    id=TYPHA_REPLICAS,
    severity=f"{ERROR}/{WARNING}",
    message="Typha must be rendered with the policy's replicas, at most 200 calico-nodes "
    "each (error: Typha needed but not rendered, or replicas not a count)",
)
def typha_replicas(data: ScaleInputs) -> Advice:
    """The policy's replicas against the rendered Deployment, and calico-nodes per replica
    (seed 003: at most 200 per replica)."""
    nodes, rendered = data.nodes, data.typha_replicas
    n = _int(nodes, "nodes")
    decision = policy.decide_typha(n)
    wanted = Fact(decision.replicas, POLICY, decision.reason)
    inputs = {"nodes": nodes, "policy_replicas": wanted, "rendered_replicas": rendered}
    if not decision.allow_typha:
        return Advice(
            "info",
            f"{n:,} nodes: Typha off by the policy; calico-node talks to the API server",
            inputs,
            computed={"typha": False},
        )
    if rendered.value is None:
        return Advice(
            "error",
            f"{n:,} nodes need Typha ({decision.replicas} replicas by the policy) but the render "
            "has no Deployment calico-typha: every calico-node watches the API server directly",
            inputs,
            computed={"typha": False},
            advice="use a Typha-capable Calico version",
        )
    value = rendered.value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return Advice(
            "error",
            f"Deployment calico-typha replicas {value!r} is not a positive count",
            inputs,
            at=rendered,
            computed={"typha": True},
            advice=f"render {decision.replicas} replicas (typhaReplicas)",
        )
    per = math.ceil(n / value)
    one_down = math.ceil(n / (value - 1)) if value > 1 else None
    computed = {
        "typha": True,
        "connections_per_replica": per,
        "connections_per_replica_one_down": one_down,
    }
    what = f"{n:,} nodes on {value} Typha replicas: {per:,} calico-node connections per replica" + (
        f" ({one_down:,} with one replica down)" if one_down is not None else ""
    )
    problems = []
    if value != decision.replicas:
        problems.append(f"the policy wants {decision.replicas} replicas")
    if per > NODES_PER_TYPHA:
        problems.append(
            f"above seed 003's {NODES_PER_TYPHA} per replica (Typha 容量计算公式; "
            f"its example caps connections at {TYPHA_MAX_CONNECTIONS})"
        )
    if not problems:
        return Advice("info", what, inputs, at=rendered, computed=computed)
    return Advice(
        "warning",
        f"{what}; {'; '.join(problems)}",
        inputs,
        at=rendered,
        computed=computed,
        advice=f"render the policy's {decision.replicas} replicas (typhaReplicas)"
        + ("; above 4000 nodes assess Typha capacity" if decision.warnings else ""),
    )


@rule(
    id=TYPHA_RESOURCES,
    severity=WARNING,
    message="Typha's cpu and memory requests must reach seed 003's guide for the cluster size",
)
def typha_resources(data: ScaleInputs) -> Advice:
    """Typha's requests, when the policy turns Typha on for this cluster."""
    typha_on = policy.decide_typha(_int(data.nodes, "nodes")).allow_typha
    return resources(names.TYPHA, data.nodes, data.typha if typha_on else None, typha=True)


@rule(
    id=FELIX_RESOURCES,
    severity=WARNING,
    message="calico-node's cpu and memory requests must reach seed 003's guide for the "
    "cluster size",
)
def felix_resources(data: ScaleInputs) -> Advice:
    """calico-node's (Felix's) requests."""
    return resources(names.NODE, data.nodes, data.felix, typha=False)


def resources(component: str, nodes: Fact, requests: Requests | None, typha: bool) -> Advice:
    """Rendered requests against the lower end of seed 003's range for the cluster size:
    a warning when a request is missing or below it."""
    n = _int(nodes, "nodes")
    row = size_row(n)
    cpu_range, mem_range = (
        (row.typha_cpu, row.typha_memory) if typha else (row.felix_cpu, row.felix_memory)
    )
    inputs: dict[str, Fact] = {
        "nodes": nodes,
        "size_row": Fact(f"{row.label} nodes", SEED, RESOURCE_GUIDE),
    }
    if requests is None or cpu_range is None or mem_range is None:
        why = (
            "Typha off for this cluster size"
            if cpu_range is None
            else f"no {component} container rendered"
        )
        return Advice("info", f"{component}: {why}; requests not checked", inputs)
    inputs |= {
        "cpu_request": requests.cpu,
        "memory_request": requests.memory,
        "cpu_minimum": Fact(cpu_range[0], SEED, f"{RESOURCE_GUIDE}: {'-'.join(cpu_range)}"),
        "memory_minimum": Fact(mem_range[0], SEED, f"{RESOURCE_GUIDE}: {'-'.join(mem_range)}"),
    }
    problems, advice = [], []
    for resource, fact, wanted in (
        ("cpu", requests.cpu, cpu_range),
        ("memory", requests.memory, mem_range),
    ):
        minimum = quantity(wanted[0])
        assert minimum is not None
        if fact.value is None:
            problems.append(f"no {resource} request")
        else:
            have = quantity(fact.value)
            if have is None:
                problems.append(f"{resource} request {fact.value!r} is not a quantity")
            elif have < minimum:
                problems.append(f"{resource} request {fact.value} is below {wanted[0]}")
            else:
                continue
        advice.append(f"{resource} {'-'.join(wanted)}")
    what = (
        f"{component} requests cpu {requests.cpu.value or 'unset'}, memory "
        f"{requests.memory.value or 'unset'}; seed 003 gives cpu {'-'.join(cpu_range)}, "
        f"memory {'-'.join(mem_range)} at {row.label} nodes"
    )
    at = requests.cpu
    if not problems:
        return Advice("info", what, inputs, at=at)
    return Advice(
        "warning",
        f"{what}: {'; '.join(problems)}",
        inputs,
        at=at,
        advice=f"request {' and '.join(advice)} for {component} (seed 003, {RESOURCE_GUIDE})",
        suggestions=[{"cpu": cpu_range[0], "memory": mem_range[0]}],
    )


#: Every scale rule id, in the order :func:`~renderer.calico.scale.registry.advise` runs
#: them (the report schema's enum).
RULES = tuple(REGISTRY)
