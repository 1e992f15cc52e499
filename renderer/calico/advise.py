"""Scale advice: the limits of a large Calico cluster, from the cluster's own numbers.

The Typha policy follows the node count, but the pod address pool, its IPAM blocks, the
BGP mesh and the components' resource requests stay silent until production breaks.
The rules here are plain functions of plain data: each number is a :class:`Fact`, a
value with where it came from (a flag, the config, the rendered objects, a default, the
policy, seed 003), so every finding can name the numbers it used and their origin.
:func:`extract` reads those numbers from a version's rendered objects; neither touches
files. Seed 003 (BKE's Calico design notes, "高级主题") supplies the tables below; each
cites its section.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from renderer.calico import names, policy
from renderer.finding import Finding, ObjectRef, locate
from renderer.k8s.objects import as_dict, container, dig, env_var, find
from renderer.k8s.parse import K8sObject

STAGE = "scale"

POD_ADDRESSES = "scale-pod-addresses"
IPAM_BLOCKS = "scale-ipam-blocks"
BGP_MESH = "scale-bgp-mesh"
TYPHA_REPLICAS = "scale-typha-replicas"
TYPHA_RESOURCES = "scale-typha-resources"
FELIX_RESOURCES = "scale-felix-resources"
RULES = (POD_ADDRESSES, IPAM_BLOCKS, BGP_MESH, TYPHA_REPLICAS, TYPHA_RESOURCES, FELIX_RESOURCES)

# Where a number came from.
FLAG = "flag"
CONFIG = "config"
RENDERED = "rendered"
CONTROLLER_DEFAULT = "controller-default"
CALICO_DEFAULT = "calico-default"
KUBERNETES_DEFAULT = "kubernetes-default"
POLICY = "policy"
SEED = "seed-003"
SOURCES = (
    FLAG,
    CONFIG,
    RENDERED,
    CONTROLLER_DEFAULT,
    CALICO_DEFAULT,
    KUBERNETES_DEFAULT,
    POLICY,
    SEED,
)

KUBERNETES_MAX_PODS = policy.KUBERNETES_MAX_PODS
#: BKE's controller passes this ``podSubnet`` when the BKECluster sets none.
CONTROLLER_POD_SUBNET = "10.250.0.0/16"
#: BKE's controller passes this ``ipModVersion`` when nothing sets it.
CONTROLLER_IP_MOD_VERSION = "ipv4"
#: Calico's default IPAM block size per IP version (calico-node without
#: ``CALICO_IPV4POOL_BLOCK_SIZE``/``CALICO_IPV6POOL_BLOCK_SIZE``).
CALICO_BLOCK_SIZE = {4: 26, 6: 122}
#: The block sizes Calico accepts per IP version.
BLOCK_SIZE_LIMITS = {4: (20, 32), 6: (116, 128)}
#: calico-node's default networking backend (``CALICO_NETWORKING_BACKEND``).
CALICO_BACKEND = "bird"
#: Warn when the pods would use more than this share of the pool (this tool's policy).
ADDRESS_WARN = Fraction(4, 5)
#: Above this many nodes a BIRD full mesh gets a warning: Calico's guidance is route
#: reflectors well before a few hundred nodes (this tool's policy).
BGP_MESH_NODES = 100


@dataclass(frozen=True)
class BlockSize:
    """An IPv4 IPAM block size of seed 003's guide and what the seed uses it for."""

    prefix: int
    use: str


#: Seed 003, "IPAM 深入解析 › 块大小配置" (块大小选择指南): block sizes and their use.
#: /29 is the smallest the seed recommends; /30 it advises against.
SEED_BLOCK_SIZES = (
    BlockSize(24, "high pod density, 50+ pods per node"),
    BlockSize(25, "medium-high density"),
    BlockSize(26, "default, balanced"),
    BlockSize(27, "many nodes, moderate pods per node"),
    BlockSize(28, "large clusters, low density"),
    BlockSize(29, "very large clusters, very few pods per node"),
)

#: Seed 003, "大规模集群设计 › 路由反射器拓扑": three route reflectors, one per zone,
#: meshed with each other; every other node peers only with its zone's reflector
#: (nodeToNodeMeshEnabled: false). The seed's zones hold 300 to 350 nodes each.
ROUTE_REFLECTORS_MIN = 3
NODES_PER_ROUTE_REFLECTOR = 350

#: Seed 003, "大规模集群设计 › Typha 容量计算公式": replicas = max(3, ceil(nodes/200)),
#: so one replica serves at most 200 calico-nodes.
NODES_PER_TYPHA = 200
#: Seed 003, "性能调优 › Typha 比率和配置": TYPHA_MAXCONNECTIONSUPPERLIMIT "400".
TYPHA_MAX_CONNECTIONS = 400


@dataclass(frozen=True)
class SizeRow:
    """A row of seed 003's resource guide: requests by cluster size, as (low, high)."""

    label: str
    first: int
    last: int | None
    felix_cpu: tuple[str, str]
    felix_memory: tuple[str, str]
    typha_cpu: tuple[str, str] | None
    typha_memory: tuple[str, str] | None
    typha_replicas: str

    def holds(self, nodes: int) -> bool:
        return self.first <= nodes and (self.last is None or nodes <= self.last)


#: Seed 003, "性能调优 › 资源分配指南". The seed's ranges share their ends ("50-200",
#: "200-500"); a count on an end belongs to the lower row, and 50 nodes to the row
#: without Typha, as BKE's policy turns Typha on only above 50.
SIZE_ROWS = (
    SizeRow("1-50", 1, 50, ("100m", "250m"), ("128Mi", "256Mi"), None, None, "0"),
    SizeRow(
        "51-200",
        51,
        200,
        ("250m", "500m"),
        ("256Mi", "512Mi"),
        ("100m", "250m"),
        ("128Mi", "256Mi"),
        "3",
    ),
    SizeRow(
        "201-500",
        201,
        500,
        ("500m", "1000m"),
        ("512Mi", "1Gi"),
        ("250m", "500m"),
        ("256Mi", "512Mi"),
        "3",
    ),
    SizeRow(
        "501-1000",
        501,
        1000,
        ("500m", "1000m"),
        ("512Mi", "1Gi"),
        ("500m", "1000m"),
        ("512Mi", "1Gi"),
        "5",
    ),
    SizeRow(
        "1001-2000",
        1001,
        2000,
        ("1000m", "2000m"),
        ("1Gi", "2Gi"),
        ("500m", "1000m"),
        ("512Mi", "1Gi"),
        "10",
    ),
    SizeRow(
        "2001+",
        2001,
        None,
        ("1000m", "2000m"),
        ("1Gi", "2Gi"),
        ("1000m", "2000m"),
        ("1Gi", "2Gi"),
        "nodes/200",
    ),
)
RESOURCE_GUIDE = "资源分配指南"


def size_row(nodes: int) -> SizeRow:
    """The row of seed 003's resource guide for a cluster of ``nodes``."""
    for row in SIZE_ROWS:
        if row.holds(nodes):
            return row
    raise ValueError(f"node count must be a positive integer, got {nodes!r}")


# --- facts and findings ------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """A value the advice used and where it came from.

    ``source`` is one of :data:`SOURCES`; ``where`` says more (the flag, file, env var or
    seed section); ``object`` and ``file`` locate a rendered value. ``value`` None means
    the source does not set it (e.g. a resource request the template leaves out).
    """

    value: int | str | None
    source: str
    where: str = ""
    object: str = ""
    file: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "source": self.source,
            "where": self.where,
            "object": self.object,
            "file": self.file,
        }

    def origin(self) -> str:
        """``source: where (object, file)`` for text output."""
        loc = ", ".join(x for x in (self.object, self.file) if x)
        text = f"{self.source}: {self.where}" if self.where else self.source
        return f"{text} ({loc})" if loc else text


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


def _count(n: int) -> str:
    """A count for people: thousands separated; huge powers of two as 2^k (IPv6)."""
    if n >= 2**40 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def _percent(part: int, whole: int) -> float:
    return round(part * 100 / whole, 1)


def _ceil_log2(n: int) -> int:
    """The smallest k with 2**k >= n (n >= 1)."""
    return (n - 1).bit_length()


WARN_FACT = Fact(
    f"{int(ADDRESS_WARN * 100)}%", POLICY, "calico-render advise: warn above this pool use"
)
MESH_FACT = Fact(
    BGP_MESH_NODES,
    POLICY,
    "calico-render advise: route reflectors above this many nodes (Calico's guidance: "
    "well before a few hundred)",
)


# --- pools ---------------------------------------------------------------------------------

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Pool:
    """An IP pool calico-node creates: its CIDR and IPAM block size (IP version 4 or 6)."""

    family: int
    cidr: Fact
    block_size: Fact

    @property
    def name(self) -> str:
        return f"IPv{self.family}"

    @property
    def bits(self) -> int:
        return 32 if self.family == 4 else 128

    def network(self) -> Network | None:
        """The pool's network, None when the CIDR is not one of this IP version."""
        try:
            net = ipaddress.ip_network(str(self.cidr.value).strip(), strict=False)
        except ValueError:
            return None
        return net if net.version == self.family else None


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


def _fits_addresses(needed: int, capacity: int) -> bool:
    """Within :data:`ADDRESS_WARN` of the pool."""
    return needed <= capacity * ADDRESS_WARN


def _pool_prefix_for(needed: int, bits: int) -> int | None:
    """The longest prefix whose pool holds ``needed`` addresses within the warning share;
    None when no pool of this IP version can."""
    k = _ceil_log2(math.ceil(needed / ADDRESS_WARN))
    return bits - k if k <= bits else None


def _wider(net: Network, prefix: int) -> Network:
    """``net`` widened to ``prefix`` (itself when it is already that wide)."""
    return net if prefix >= net.prefixlen else net.supernet(new_prefix=prefix)


def pod_addresses(nodes: Fact, max_pods: Fact, pool: Pool) -> Finding:
    """The pool against nodes x max pods: error when it cannot hold them, warning above 80 %."""
    n, m = _int(nodes, "nodes"), _int(max_pods, "max_pods")
    inputs = {"nodes": nodes, "max_pods": max_pods, "pool_cidr": pool.cidr, "warn_above": WARN_FACT}
    net = pool.network()
    if net is None:
        return _bad_cidr(pool, POD_ADDRESSES, inputs)
    capacity, needed = net.num_addresses, n * m
    used = _percent(needed, capacity)
    computed: dict[str, Any] = {
        "family": pool.name,
        "pool_addresses": capacity,
        "pod_addresses": needed,
        "used_percent": used,
    }
    what = (
        f"{pool.name} pool {net} holds {_count(capacity)} pod addresses; {n:,} nodes x {m} "
        f"max pods need {_count(needed)} ({used} %)"
    )
    if _fits_addresses(needed, capacity):
        return _finding(POD_ADDRESSES, "info", what, inputs, at=pool.cidr, computed=computed)
    severity = "error" if needed > capacity else "warning"
    what += (
        ": the pool runs out" if severity == "error" else f", above {WARN_FACT.value} of the pool"
    )
    suggestions: list[dict[str, Any]] = []
    options: list[str] = []
    prefix = _pool_prefix_for(needed, pool.bits)
    if prefix is not None:
        wider = _wider(net, prefix)
        suggestions.append(
            {
                "cidr": str(wider),
                "pool_addresses": wider.num_addresses,
                "used_percent": _percent(needed, wider.num_addresses),
            }
        )
        options.append(
            f"a /{prefix} pool, e.g. {wider} ({_count(wider.num_addresses)} addresses, "
            f"{_percent(needed, wider.num_addresses)} % used; it must not overlap the "
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


def _block_prefix(pool: Pool, net: Network) -> int | None:
    value = pool.block_size.value
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    low, high = BLOCK_SIZE_LIMITS[pool.family]
    return value if low <= value <= high and value >= net.prefixlen else None


def _blocks_per_node(max_pods: int, block: int, bits: int) -> int:
    return -(-max_pods // (1 << (bits - block)))


def _block_option(nodes: int, max_pods: int, block: int, net: Network, bits: int) -> dict[str, Any]:
    per_node = _blocks_per_node(max_pods, block, bits)
    return {
        "cidr": str(net),
        "block_size": block,
        "block_addresses": 1 << (bits - block),
        "blocks_per_node": per_node,
        "blocks_needed": nodes * per_node,
        "pool_blocks": 1 << (block - net.prefixlen),
    }


def suggest_blocks(
    nodes: int, max_pods: int, net: Network, current: int, bits: int
) -> list[dict[str, Any]]:
    """Block sizes of seed 003's guide (and the current one) that need no borrowing.

    First the largest block that fits the current pool (fewest blocks per node, so routes
    aggregate best), then the smallest wider pool that fits a block size, preferring the
    current one, then fewer blocks per node. A wider pool also keeps the pods within the
    warning share of its addresses, so the two rules' advice agree.
    """
    shift = bits - 32
    candidates = sorted({b.prefix + shift for b in SEED_BLOCK_SIZES} | {current})
    out: list[dict[str, Any]] = []
    keep = [
        b
        for b in candidates
        if b >= net.prefixlen
        and nodes * _blocks_per_node(max_pods, b, bits) <= 1 << (b - net.prefixlen)
    ]
    if keep:
        out.append(_block_option(nodes, max_pods, keep[0], net, bits))
    address_prefix = _pool_prefix_for(nodes * max_pods, bits)
    best: tuple[int, int, int, int] | None = None
    for b in candidates:
        per_node = _blocks_per_node(max_pods, b, bits)
        prefix = b - _ceil_log2(nodes * per_node)
        if address_prefix is not None:
            prefix = min(prefix, address_prefix)
        if prefix < 0 or prefix >= net.prefixlen:
            continue
        rank = (-prefix, 0 if b == current else 1, per_node, b)
        if best is None or rank < best:
            best = rank
    if best is not None:
        prefix, block = -best[0], best[3]
        out.append(_block_option(nodes, max_pods, block, _wider(net, prefix), bits))
    return out


def _block_use(block: int, bits: int) -> str:
    shift = bits - 32
    for b in SEED_BLOCK_SIZES:
        if b.prefix + shift == block:
            return f" (seed 003: {b.use})"
    return ""


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
    block = _block_prefix(pool, net)
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
    option = _block_option(n, m, block, net, pool.bits)
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
        f"{_count(option['block_addresses'])} addresses per block) = {_count(needed)} blocks; "
        f"{pool.name} pool {net} has {_count(have)}"
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
            f"block size /{o['block_size']}{_block_use(o['block_size'], pool.bits)} {where} "
            f"{o['cidr']}: {o['blocks_per_node']} block(s) per node, "
            f"{_count(o['blocks_needed'])} of {_count(o['pool_blocks'])} blocks"
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


# --- BGP -----------------------------------------------------------------------------------


def route_reflectors(nodes: int) -> int:
    """Route reflectors for ``nodes`` in seed 003's topology: one per zone of up to 350."""
    return max(ROUTE_REFLECTORS_MIN, math.ceil(nodes / NODES_PER_ROUTE_REFLECTOR))


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


# --- Typha and Felix -----------------------------------------------------------------------


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


_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+|[A-Za-z]*)$")
#: A quantity's suffix -> its factor: the small decimal ones, then k..E (powers of 1000)
#: and Ki..Ei (powers of 1024), as Kubernetes defines them.
_SUFFIX = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    **{s: Fraction(1000**power) for power, s in enumerate("kMGTPE", start=1)},
    **{f"{s}i": Fraction(1024**power) for power, s in enumerate("KMGTPE", start=1)},
}


def quantity(text: object) -> Fraction | None:
    """A Kubernetes resource quantity ("250m", "1Gi", "0.5", "1e3") as a number; None when
    it is not one."""
    if isinstance(text, bool) or text is None:
        return None
    match = _QUANTITY.match(str(text).strip())
    if not match:
        return None
    number, suffix = match.groups()
    if suffix[:1] in ("e", "E") and suffix[1:].lstrip("+-").isdigit():
        return Fraction(number) * Fraction(10) ** int(suffix[1:])
    scale = _SUFFIX.get(suffix)
    return None if scale is None else Fraction(number) * scale


@dataclass(frozen=True)
class Requests:
    """A container's rendered CPU and memory requests (value None when not set)."""

    cpu: Fact
    memory: Fact


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


# --- all rules -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ScaleInputs:
    """Every number the rules read, each with its origin; ``notes`` say what was skipped."""

    nodes: Fact
    max_pods: Fact
    pools: tuple[Pool, ...]
    backend: Fact
    typha_replicas: Fact
    felix: Requests | None
    typha: Requests | None
    ip_mod_version: Fact | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Every input by name, as the report publishes them."""
        out: dict[str, Fact] = {"nodes": self.nodes, "max_pods": self.max_pods}
        if self.ip_mod_version is not None:
            out["ip_mod_version"] = self.ip_mod_version
        for p in self.pools:
            tag = f"ipv{p.family}"
            out[f"{tag}_pool_cidr"] = p.cidr
            out[f"{tag}_block_size"] = p.block_size
        out["backend"] = self.backend
        out["typha_replicas"] = self.typha_replicas
        for name, req in (("calico_node", self.felix), ("calico_typha", self.typha)):
            if req is not None:
                out[f"{name}_cpu_request"] = req.cpu
                out[f"{name}_memory_request"] = req.memory
        return {k: v.to_dict() for k, v in out.items()}


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


# --- where the request's values came from -------------------------------------------------


@dataclass(frozen=True)
class Origins:
    """Where a request's values came from: context key -> (source, where), and the node
    count's and max pods' origin. Keys not listed were not set by the user."""

    values: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    nodes: tuple[str, str] = (FLAG, "--nodes")
    max_pods: tuple[str, str] = (KUBERNETES_DEFAULT, "kubelet maxPods")

    @classmethod
    def of(
        cls,
        *,
        config: Mapping[str, Any] | None = None,
        config_file: str = "",
        flags: Mapping[str, Any] | None = None,
        flags_where: str = "--set/--values",
        nodes: tuple[str, str] = (FLAG, "--nodes"),
        max_pods: tuple[str, str] = (KUBERNETES_DEFAULT, "kubelet maxPods"),
    ) -> Origins:
        """Config values, then flag values on top (as the render merges them)."""
        values: dict[str, tuple[str, str]] = {}
        for key in config or {}:
            values[key] = (CONFIG, config_file)
        for key in flags or {}:
            values[key] = (FLAG, flags_where)
        return cls(values, nodes, max_pods)

    def fact(self, key: str, context: Mapping[str, Any], default: Fact) -> Fact:
        """The context's ``key`` with its origin when the user set it, else ``default``."""
        if key not in self.values or key not in context:
            return default
        source, where = self.values[key]
        return Fact(str(context[key]), source, f"{key} from {where}" if where else key)


def request_inputs(
    objects: Sequence[K8sObject],
    context: Mapping[str, Any],
    *,
    nodes: int,
    max_pods: int = KUBERNETES_MAX_PODS,
    origins: Origins | None = None,
) -> ScaleInputs:
    """:func:`extract` for a render of ``context``, with podSubnet and ipModVersion from
    the user when set, else the BKE controller's defaults."""
    o = origins or Origins()
    pod_subnet = o.fact(
        "podSubnet",
        context,
        Fact(CONTROLLER_POD_SUBNET, CONTROLLER_DEFAULT, "BKE controller default podSubnet"),
    )
    ip_mod = o.fact(
        "ipModVersion",
        context,
        Fact(
            CONTROLLER_IP_MOD_VERSION,
            CONTROLLER_DEFAULT,
            "BKE controller default ipModVersion",
        ),
    )
    inputs = extract(
        objects,
        nodes=Fact(nodes, *o.nodes),
        max_pods=Fact(max_pods, *o.max_pods),
        pod_subnet=pod_subnet,
        ip_mod_version=ip_mod,
    )
    rendered = next((p.cidr for p in inputs.pools if p.family == 4), None)
    own = context.get("podSubnet")
    if (
        rendered is not None
        and rendered.source == RENDERED
        and pod_subnet.source != CONTROLLER_DEFAULT
        and str(rendered.value) == str(own)
    ):  # the template printed the user's podSubnet: say where that came from
        traced = replace(
            rendered, where=f"{rendered.where} = {pod_subnet.where} ({pod_subnet.source})"
        )
        pools = tuple(replace(p, cidr=traced) if p.cidr is rendered else p for p in inputs.pools)
        inputs = replace(inputs, pools=pools)
    if (
        "podSubnet" not in o.values
        and rendered is not None
        and rendered.source == RENDERED
        and own is not None
        and str(rendered.value) == str(own)
        and str(own) != CONTROLLER_POD_SUBNET
    ):
        note = (
            f"podSubnet is not set: the render used the render context's default {own}, "
            f"while BKE's controller passes {CONTROLLER_POD_SUBNET}"
        )
        inputs = replace(inputs, notes=(*inputs.notes, note))
    return inputs


# --- extraction from rendered objects ------------------------------------------------------

NODE = names.NODE
TYPHA = names.TYPHA
CONFIG_MAP = names.CONFIG_MAP


def calico_node(objects: Sequence[K8sObject]) -> K8sObject | None:
    """The calico-node DaemonSet: by name, else by its ``k8s-app: calico-node`` label."""
    daemonsets = find(objects, "DaemonSet")
    for obj in daemonsets:
        if obj.name == NODE:
            return obj
    for obj in daemonsets:
        if names.app_label(obj.data) == NODE:
            return obj
    return None


def _loc(obj: K8sObject) -> str:
    return obj.where


def _env_value(
    objects: Sequence[K8sObject], obj: K8sObject, c: Mapping[str, Any], name: str
) -> Fact | None:
    """calico-node env ``name`` as rendered: a literal value, or the ConfigMap key it reads;
    None when the env is not set (or reads something not rendered)."""
    found = env_var(c, name)
    if found is None:
        return None
    env = found[1]
    if "value" in env:
        value = env["value"]
        return Fact(
            None if value is None else str(value), RENDERED, f"env {name}", obj.ref, _loc(obj)
        )
    ref = as_dict(dig(env, "valueFrom", "configMapKeyRef"))
    for cm in find(objects, "ConfigMap", str(ref.get("name"))):
        data = as_dict(cm.data.get("data"))
        key = str(ref.get("key"))
        if key in data:
            where = f"env {name} from ConfigMap {cm.name} key {key}"
            return Fact(str(data[key]), RENDERED, where, cm.ref, _loc(cm))
    return None


def _set(fact: Fact | None) -> bool:
    return fact is not None and fact.value is not None and str(fact.value).strip() != ""


def _block_size(fact: Fact | None, family: int, name: str) -> Fact:
    if not _set(fact):
        return Fact(CALICO_BLOCK_SIZE[family], CALICO_DEFAULT, f"{name} not rendered")
    assert fact is not None
    text = str(fact.value).strip().lstrip("/")
    value: int | str = int(text) if text.isdigit() else str(fact.value)
    return Fact(value, fact.source, fact.where, fact.object, fact.file)


def _requests(obj: K8sObject | None, name: str) -> Requests | None:
    if obj is None:
        return None
    found = container(obj, name)
    if found is None:
        return None
    path, c = found
    req = as_dict(dig(c, "resources", "requests"))

    def one(resource: str) -> Fact:
        value = req.get(resource)
        where = f"container {name} {path}.resources.requests.{resource}"
        text = None if value is None else str(value)
        return Fact(text, RENDERED, where + ("" if text else " not set"), obj.ref, _loc(obj))

    return Requests(one("cpu"), one("memory"))


def extract(
    objects: Sequence[K8sObject],
    *,
    nodes: Fact,
    max_pods: Fact,
    pod_subnet: Fact,
    ip_mod_version: Fact,
) -> ScaleInputs:
    """The numbers of a render: pools from calico-node's env (``CALICO_IPV4POOL_CIDR``,
    else ``pod_subnet``; block sizes, else Calico's defaults), the backend, Typha replicas
    and the calico-node and Typha requests.

    IPv4 is skipped when calico-node's ``IP`` is "none"; IPv6 is checked when
    ``ip_mod_version`` is ipv6 or dual and the render sets ``CALICO_IPV6POOL_CIDR``.
    """
    notes: list[str] = []
    ds = calico_node(objects)
    found = container(ds, NODE) if ds else None
    c: Mapping[str, Any] = found[1] if found else {}

    def env(name: str) -> Fact | None:
        return _env_value(objects, ds, c, name) if ds is not None else None

    pools = _pools(env, pod_subnet, ip_mod_version, notes)
    deployments = find(objects, "Deployment", TYPHA)
    dep = deployments[0] if deployments else None
    return ScaleInputs(
        nodes=nodes,
        max_pods=max_pods,
        pools=tuple(pools),
        backend=_backend(objects, env("CALICO_NETWORKING_BACKEND")),
        typha_replicas=_typha_replicas(dep),
        felix=_requests(ds, NODE),
        typha=_requests(dep, TYPHA),
        ip_mod_version=ip_mod_version,
        notes=tuple(notes),
    )


def _pools(
    env: Callable[[str], Fact | None], pod_subnet: Fact, ip_mod_version: Fact, notes: list[str]
) -> list[Pool]:
    """The IPv4 pool (unless calico-node's IP is none) and the IPv6 one when asked for
    and rendered; why one is not checked goes to ``notes``."""
    pools: list[Pool] = []
    ip = env("IP")
    if _set(ip) and str(ip.value if ip else "").strip().lower() == "none":
        notes.append("IPv4 pool not checked: calico-node env IP is none (IPv6 only)")
    else:
        cidr = env("CALICO_IPV4POOL_CIDR")
        if not _set(cidr):
            cidr = Fact(
                pod_subnet.value,
                pod_subnet.source,
                f"CALICO_IPV4POOL_CIDR not rendered; {pod_subnet.where}",
            )
        assert cidr is not None
        size = _block_size(env("CALICO_IPV4POOL_BLOCK_SIZE"), 4, "CALICO_IPV4POOL_BLOCK_SIZE")
        pools.append(Pool(4, cidr, size))
    if str(ip_mod_version.value) in ("ipv6", "dual"):
        cidr6 = env("CALICO_IPV6POOL_CIDR")
        if _set(cidr6):
            assert cidr6 is not None
            size6 = _block_size(env("CALICO_IPV6POOL_BLOCK_SIZE"), 6, "CALICO_IPV6POOL_BLOCK_SIZE")
            pools.append(Pool(6, cidr6, size6))
        else:
            notes.append(
                f"IPv6 pool not checked: ipModVersion is {ip_mod_version.value} but the "
                "render sets no CALICO_IPV6POOL_CIDR"
            )
    return pools


def _backend(objects: Sequence[K8sObject], rendered: Fact | None) -> Fact:
    """The networking backend: calico-node's env, else the ConfigMap's calico_backend,
    else Calico's default."""
    if _set(rendered):
        assert rendered is not None
        return rendered
    for cm in find(objects, "ConfigMap", CONFIG_MAP):
        data = as_dict(cm.data.get("data"))
        if "calico_backend" in data:
            return Fact(
                str(data["calico_backend"]),
                RENDERED,
                f"{CONFIG_MAP} key calico_backend",
                cm.ref,
                _loc(cm),
            )
    return Fact(CALICO_BACKEND, CALICO_DEFAULT, "CALICO_NETWORKING_BACKEND not rendered")


def _typha_replicas(dep: K8sObject | None) -> Fact:
    """The Typha Deployment's replicas (Kubernetes' 1 when not rendered)."""
    if dep is None:
        return Fact(None, RENDERED, f"no Deployment {TYPHA} rendered")
    spec = as_dict(dep.data.get("spec"))
    if "replicas" not in spec:
        return Fact(1, KUBERNETES_DEFAULT, "spec.replicas not rendered", dep.ref, _loc(dep))
    raw = spec["replicas"]
    plain = isinstance(raw, int) and not isinstance(raw, bool)
    value: int | str | None = raw if plain else str(raw)
    return Fact(value, RENDERED, "spec.replicas", dep.ref, _loc(dep))


# --- the report ----------------------------------------------------------------------------


@dataclass
class AdviceReport:
    """Scale advice for one version and cluster; ``version`` None: no Calico to advise on."""

    version: str | None
    manifests: str
    inputs: ScaleInputs | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: User-given params the version ignores (also in ``notes``), for ``--strict``.
    param_warnings: Sequence[Any] = ()

    @property
    def passed(self) -> bool:
        """No limit exceeded (warnings do not fail)."""
        return not any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, int]:
        return {
            s: sum(1 for f in self.findings if f.severity == s)
            for s in ("error", "warning", "info")
        }
