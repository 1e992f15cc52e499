"""Seed 003's tables (BKE's Calico design notes, "高级主题") and the limits the scale
rules compare with: Calico's and the controller's defaults, this tool's warning
thresholds. Each table cites its section."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from renderer.calico import policy

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


def route_reflectors(nodes: int) -> int:
    """Route reflectors for ``nodes`` in seed 003's topology: one per zone of up to 350."""
    return max(ROUTE_REFLECTORS_MIN, math.ceil(nodes / NODES_PER_ROUTE_REFLECTOR))
