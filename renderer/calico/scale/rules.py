"""The scale rules: plain functions of :mod:`~renderer.calico.scale.facts`, each
returning one finding (info when within the limits) that names the facts it used, what it
computed and, past a limit, the advice and suggestions that fit."""

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
from renderer.finding import Finding, ObjectRef, locate
from renderer.k8s.quantity import quantity

STAGE = "scale"

POD_ADDRESSES = "scale-pod-addresses"
IPAM_BLOCKS = "scale-ipam-blocks"
BGP_MESH = "scale-bgp-mesh"
TYPHA_REPLICAS = "scale-typha-replicas"
TYPHA_RESOURCES = "scale-typha-resources"
FELIX_RESOURCES = "scale-felix-resources"
RULES = (POD_ADDRESSES, IPAM_BLOCKS, BGP_MESH, TYPHA_REPLICAS, TYPHA_RESOURCES, FELIX_RESOURCES)


def _finding(
    rule: str,
    severity: str,
    message: str,
    inputs: dict[str, Fact],
    *,
    at: Fact | None = None,
    computed: dict[str, Any] | None = None,
    advice: str = "",
    suggestions: list[dict[str, Any]] | None = None,
) -> Finding:
    file, line = locate(at.file if at else "")
    return Finding(
        rule,
        severity,
        message,
        stage=STAGE,
        object=ObjectRef.parse(at.object) if at else None,
        file=file,
        line=line,
        details={
            "inputs": inputs,
            "computed": computed or {},
            "advice": advice,
            "suggestions": suggestions or [],
        },
    )


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


def _bad_cidr(pool: Pool, rule: str, inputs: dict[str, Fact]) -> Finding:
    return _finding(
        rule,
        "error",
        f"{pool.name} pool CIDR {pool.cidr.value!r} is not an {pool.name} CIDR; calico-node "
        "cannot create the pool",
        inputs,
        at=pool.cidr,
        computed={"family": pool.name},
        advice=f"set an {pool.name} CIDR"
        + (" (podSubnet)" if pool.family == 4 else " (ClusterCidr.Ipv6)"),
    )


def pod_addresses(nodes: Fact, max_pods: Fact, pool: Pool) -> Finding:
    """The pool against nodes x max pods: error when it cannot hold them, warning above 80 %."""
    n, m = _int(nodes, "nodes"), _int(max_pods, "max_pods")
    inputs = {"nodes": nodes, "max_pods": max_pods, "pool_cidr": pool.cidr, "warn_above": WARN_FACT}
    net = pool.network()
    if net is None:
        return _bad_cidr(pool, POD_ADDRESSES, inputs)
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
        return _finding(POD_ADDRESSES, "info", what, inputs, at=pool.cidr, computed=computed)
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
    return _finding(
        POD_ADDRESSES,
        severity,
        what,
        inputs,
        at=pool.cidr,
        computed=computed,
        advice=" or ".join(options) if options else "no pool of this IP version is large enough",
        suggestions=suggestions,
    )


def ipam_blocks(nodes: Fact, max_pods: Fact, pool: Pool) -> Finding:
    """Blocks the nodes claim (nodes x ceil(max pods / block addresses)) against the pool's
    blocks: a warning when nodes must borrow, with a block size and CIDR that fit."""
    n, m = _int(nodes, "nodes"), _int(max_pods, "max_pods")
    inputs = {
        "nodes": nodes,
        "max_pods": max_pods,
        "pool_cidr": pool.cidr,
        "block_size": pool.block_size,
    }
    net = pool.network()
    if net is None:
        return _bad_cidr(pool, IPAM_BLOCKS, inputs)
    block = block_prefix(pool, net)
    if block is None:
        low, high = BLOCK_SIZE_LIMITS[pool.family]
        return _finding(
            IPAM_BLOCKS,
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
        return _finding(IPAM_BLOCKS, "info", what, inputs, at=at, computed=computed)
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
    return _finding(
        IPAM_BLOCKS,
        "warning",
        what,
        inputs,
        at=at,
        computed=computed,
        advice=" or ".join(texts) if texts else "no block size of seed 003's guide fits",
        suggestions=options,
    )


def bgp_mesh(nodes: Fact, backend: Fact) -> Finding:
    """BIRD's node-to-node mesh: n(n-1)/2 sessions; a warning above 100 nodes with seed 003's
    route-reflector topology. No BIRD (VXLAN) means no BGP sessions."""
    n = _int(nodes, "nodes")
    inputs = {"nodes": nodes, "backend": backend, "mesh_limit": MESH_FACT}
    name = str(backend.value)
    if name != "bird":
        return _finding(
            BGP_MESH,
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
        return _finding(BGP_MESH, "info", what, inputs, at=backend, computed=computed)
    what += f"; above {BGP_MESH_NODES} nodes"
    advice = (
        f"disable the mesh (BGPConfiguration default, nodeToNodeMeshEnabled: false) and peer "
        f"the nodes with {rr} route reflectors, one per zone (label route-reflector=true, "
        f"spec.bgp.routeReflectorClusterID), meshed with each other; each node peers with "
        f"its zone's reflector: {rr_sessions:,} sessions instead of {sessions:,} (seed 003, "
        f"路由反射器拓扑); or calicoMode vxlan, which runs no BIRD"
    )
    return _finding(
        BGP_MESH,
        "warning",
        what,
        inputs,
        at=backend,
        computed=computed,
        advice=advice,
        suggestions=[{"route_reflectors": rr, "bgp_sessions": rr_sessions}],
    )


def typha_replicas(nodes: Fact, rendered: Fact) -> Finding:
    """The policy's replicas against the rendered Deployment, and calico-nodes per replica
    (seed 003: at most 200 per replica)."""
    n = _int(nodes, "nodes")
    decision = policy.decide_typha(n)
    wanted = Fact(decision.replicas, POLICY, decision.reason)
    inputs = {"nodes": nodes, "policy_replicas": wanted, "rendered_replicas": rendered}
    if not decision.allow_typha:
        return _finding(
            TYPHA_REPLICAS,
            "info",
            f"{n:,} nodes: Typha off by the policy; calico-node talks to the API server",
            inputs,
            computed={"typha": False},
        )
    if rendered.value is None:
        return _finding(
            TYPHA_REPLICAS,
            "error",
            f"{n:,} nodes need Typha ({decision.replicas} replicas by the policy) but the render "
            "has no Deployment calico-typha: every calico-node watches the API server directly",
            inputs,
            computed={"typha": False},
            advice="use a Typha-capable Calico version",
        )
    value = rendered.value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return _finding(
            TYPHA_REPLICAS,
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
        return _finding(TYPHA_REPLICAS, "info", what, inputs, at=rendered, computed=computed)
    return _finding(
        TYPHA_REPLICAS,
        "warning",
        f"{what}; {'; '.join(problems)}",
        inputs,
        at=rendered,
        computed=computed,
        advice=f"render the policy's {decision.replicas} replicas (typhaReplicas)"
        + ("; above 4000 nodes assess Typha capacity" if decision.warnings else ""),
    )


def resources(
    rule: str, component: str, nodes: Fact, requests: Requests | None, typha: bool
) -> Finding:
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
        return _finding(rule, "info", f"{component}: {why}; requests not checked", inputs)
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
        return _finding(rule, "info", what, inputs, at=at)
    return _finding(
        rule,
        "warning",
        f"{what}: {'; '.join(problems)}",
        inputs,
        at=at,
        advice=f"request {' and '.join(advice)} for {component} (seed 003, {RESOURCE_GUIDE})",
        suggestions=[{"cpu": cpu_range[0], "memory": mem_range[0]}],
    )


def advise(inputs: ScaleInputs) -> list[Finding]:
    """Every rule over ``inputs``, in a fixed order: per pool addresses then blocks, BGP,
    Typha replicas, Typha requests, calico-node (Felix) requests."""
    out: list[Finding] = []
    for pool in inputs.pools:
        out.append(pod_addresses(inputs.nodes, inputs.max_pods, pool))
        out.append(ipam_blocks(inputs.nodes, inputs.max_pods, pool))
    out.append(bgp_mesh(inputs.nodes, inputs.backend))
    out.append(typha_replicas(inputs.nodes, inputs.typha_replicas))
    typha_on = policy.decide_typha(_int(inputs.nodes, "nodes")).allow_typha
    out.append(
        resources(
            TYPHA_RESOURCES,
            names.TYPHA,
            inputs.nodes,
            inputs.typha if typha_on else None,
            typha=True,
        )
    )
    out.append(resources(FELIX_RESOURCES, names.NODE, inputs.nodes, inputs.felix, typha=False))
    return out
