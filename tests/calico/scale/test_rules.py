"""Each scale rule at its boundaries, through the registry, on facts made by hand."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.calico.scale.facts import FLAG, POLICY, RENDERED, SEED, Fact
from renderer.calico.scale.tables import route_reflectors
from renderer.finding import Finding
from tests.calico.scale.inputs import advise_one, details, pool, requests


@pytest.mark.parametrize(
    ("nodes", "severity"),
    [
        (476, "info"),  # 52,360 of 65,536: 79.9 %
        (477, "warning"),  # 52,470: just above 80 %
        (595, "warning"),  # 65,450 fits
        (596, "error"),  # 65,560 does not
    ],
)
def test_pod_addresses_boundaries(nodes: int, severity: str) -> None:
    f = advise_one("scale-pod-addresses", nodes, pool=pool("10.250.0.0/16"))
    assert (f.stage, f.rule, f.severity) == ("scale", "scale-pod-addresses", severity)
    assert details(f).computed["pool_addresses"] == 65_536
    assert details(f).computed["pod_addresses"] == nodes * 110
    assert set(details(f).inputs) == {"nodes", "max_pods", "pool_cidr", "warn_above"}
    assert details(f).inputs["nodes"].source == FLAG
    assert details(f).inputs["warn_above"].source == POLICY
    assert isinstance(f, Finding)


def test_pod_addresses_advice_for_601_nodes() -> None:
    f = advise_one("scale-pod-addresses", 601, pool=pool("10.250.0.0/16"))
    assert f.severity == "error"
    assert list(details(f).suggestions) == [
        {"cidr": "10.250.0.0/15", "pool_addresses": 131_072, "used_percent": 50.4},
        {"max_pods": 87},  # floor(65,536 x 0.8 / 601)
    ]


def test_pod_addresses_no_ipv4_pool_is_large_enough() -> None:
    f = advise_one("scale-pod-addresses", 10**9, pool=pool("10.0.0.0/8"))
    assert f.severity == "error"
    assert list(details(f).suggestions) == []


@pytest.mark.parametrize("cidr", ["<no value>", "", "fd00::/64", "10.0.0.0/33"])
def test_pod_addresses_bad_cidr_is_an_error(cidr: str) -> None:
    f = advise_one("scale-pod-addresses", 10, pool=pool(cidr))
    assert (f.rule, f.severity) == ("scale-pod-addresses", "error")
    assert details(f).computed == {"family": "IPv4"}


def test_pod_addresses_ipv6() -> None:
    f = advise_one("scale-pod-addresses", 601, pool=pool("fd00:10:244::/56", 122, family=6))
    assert (f.severity, details(f).computed["family"]) == ("info", "IPv6")
    assert details(f).computed["pool_addresses"] == 2**72
    small = advise_one("scale-pod-addresses", 601, pool=pool("fd00:10:244::/112", 122, family=6))
    assert small.severity == "error"
    assert details(small).suggestions[0]["cidr"] == "fd00:10:244::/111"


@pytest.mark.parametrize(
    ("block", "nodes", "severity", "per_node", "pool_blocks"),
    [
        (26, 512, "info", 2, 1024),  # 110 pods = 2 blocks of 64
        (26, 513, "warning", 2, 1024),
        (24, 256, "info", 1, 256),  # 1 block of 256
        (24, 257, "warning", 1, 256),
    ],
)
def test_ipam_blocks_boundaries(
    block: int, nodes: int, severity: str, per_node: int, pool_blocks: int
) -> None:
    f = advise_one("scale-ipam-blocks", nodes, pool=pool("10.250.0.0/16", block))
    assert (f.stage, f.rule, f.severity) == ("scale", "scale-ipam-blocks", severity)
    assert details(f).computed["blocks_per_node"] == per_node
    assert details(f).computed["pool_blocks"] == pool_blocks
    assert details(f).computed["blocks_needed"] == nodes * per_node
    assert set(details(f).inputs) == {"nodes", "max_pods", "pool_cidr", "block_size"}


def test_ipam_blocks_2000_nodes_need_a_wider_pool() -> None:
    f = advise_one("scale-ipam-blocks", 2000, pool=pool("10.250.0.0/16"))
    assert f.severity == "warning"
    # 4,000 /26 blocks fit a /14, but 220,000 pods would use 84 % of it: a /13
    assert [(s["cidr"], s["block_size"]) for s in details(f).suggestions] == [("10.248.0.0/13", 26)]
    assert details(f).suggestions[0]["blocks_needed"] <= details(f).suggestions[0]["pool_blocks"]


def test_ipam_blocks_601_nodes_keep_the_default_block_in_a_15() -> None:
    f = advise_one("scale-ipam-blocks", 601, pool=pool("10.250.0.0/16"))
    assert list(details(f).suggestions) == [
        {
            "cidr": "10.250.0.0/15",
            "block_size": 26,
            "block_addresses": 64,
            "blocks_per_node": 2,
            "blocks_needed": 1202,
            "pool_blocks": 2048,
        }
    ]


def test_ipam_blocks_smaller_block_keeps_the_pool() -> None:
    """520 nodes: 1,040 /26 blocks > 1,024; /28 (7 per node) fits the /16, or /26 in a /15."""
    f = advise_one("scale-ipam-blocks", 520, pool=pool("10.250.0.0/16"))
    assert f.severity == "warning"
    assert [(s["cidr"], s["block_size"], s["blocks_per_node"]) for s in details(f).suggestions] == [
        ("10.250.0.0/16", 28, 7),
        ("10.250.0.0/15", 26, 2),
    ]
    for s in details(f).suggestions:
        assert s["blocks_needed"] <= s["pool_blocks"]


@pytest.mark.parametrize("block", ["abc", 19, 33, 24])
def test_ipam_blocks_bad_block_size_is_an_error(block: int | str) -> None:
    f = advise_one(
        "scale-ipam-blocks", 10, pool=pool("10.250.0.0/25", block)
    )  # /24 is wider than a /25
    assert (f.rule, f.severity) == ("scale-ipam-blocks", "error")


def test_ipam_blocks_ipv6() -> None:
    f = advise_one("scale-ipam-blocks", 601, pool=pool("fd00:10:244::/56", 122, family=6))
    assert f.severity == "info"
    assert (details(f).computed["block_addresses"], details(f).computed["blocks_per_node"]) == (
        64,
        2,
    )
    tight = advise_one("scale-ipam-blocks", 601, pool=pool("fd00:10:244::/112", 122, family=6))
    assert tight.severity == "warning"
    assert all(s["blocks_needed"] <= s["pool_blocks"] for s in details(tight).suggestions)
    assert all(116 <= s["block_size"] <= 128 for s in details(tight).suggestions)


@pytest.mark.parametrize(("nodes", "severity"), [(100, "info"), (101, "warning")])
def test_bgp_mesh_boundary(nodes: int, severity: str) -> None:
    f = advise_one("scale-bgp-mesh", nodes, backend=Fact("bird", RENDERED, "calico_backend"))
    assert (f.rule, f.severity) == ("scale-bgp-mesh", severity)
    assert details(f).computed["bgp_sessions"] == nodes * (nodes - 1) // 2


def test_bgp_mesh_601_nodes_route_reflectors() -> None:
    f = advise_one("scale-bgp-mesh", 601, backend=Fact("bird", RENDERED, "calico_backend"))
    assert details(f).computed == {
        "bgp_sessions": 180_300,
        "sessions_per_node": 600,
        "route_reflectors": 3,
        "sessions_with_route_reflectors": 601,
    }
    assert list(details(f).suggestions) == [{"route_reflectors": 3, "bgp_sessions": 601}]
    assert route_reflectors(2000) == 6


@pytest.mark.parametrize("backend", ["vxlan", "none"])
def test_bgp_mesh_without_bird(backend: str) -> None:
    f = advise_one("scale-bgp-mesh", 5000, backend=Fact(backend, RENDERED, "calico_backend"))
    assert (f.severity, details(f).computed) == ("info", {"bgp_sessions": 0})


def test_typha_replicas_off_at_50() -> None:
    f = advise_one("scale-typha-replicas", 50, replicas=Fact(None, RENDERED, "none"))
    assert (f.rule, f.severity, details(f).computed) == (
        "scale-typha-replicas",
        "info",
        {"typha": False},
    )
    assert details(f).inputs["policy_replicas"].value == 0


def test_typha_replicas_on_at_51() -> None:
    f = advise_one("scale-typha-replicas", 51, replicas=Fact(3, RENDERED, "spec.replicas"))
    assert f.severity == "info"
    assert details(f).computed["connections_per_replica"] == 17
    assert details(f).computed["connections_per_replica_one_down"] == 26
    assert (
        details(f).inputs["policy_replicas"].value,
        details(f).inputs["policy_replicas"].source,
    ) == (3, "policy")


def test_typha_replicas_missing_deployment_is_an_error() -> None:
    f = advise_one("scale-typha-replicas", 51, replicas=Fact(None, RENDERED, "no Deployment"))
    assert (f.rule, f.severity) == ("scale-typha-replicas", "error")


@pytest.mark.parametrize(
    ("nodes", "rendered", "per_replica"),
    [(601, 2, 301), (601, 3, 201), (4001, 20, 201)],
)
def test_typha_replicas_warnings(nodes: int, rendered: int, per_replica: int) -> None:
    f = advise_one(
        "scale-typha-replicas", nodes, replicas=Fact(rendered, RENDERED, "spec.replicas")
    )
    assert f.severity == "warning"
    assert details(f).computed["connections_per_replica"] == per_replica


@pytest.mark.parametrize("rendered", [0, "x", True])
def test_typha_replicas_not_a_count(rendered: Any) -> None:
    f = advise_one("scale-typha-replicas", 601, replicas=Fact(rendered, RENDERED, "spec.replicas"))
    assert f.severity == "error"


@pytest.mark.parametrize(
    ("cpu", "memory", "severity"),
    [
        ("100m", "128Mi", "info"),  # the seed's minimum at 51-200 nodes
        ("99m", "128Mi", "warning"),
        ("100m", "127Mi", "warning"),
        ("100m", None, "warning"),
        (None, "128Mi", "warning"),
        ("lots", "128Mi", "warning"),
        ("1", "1Gi", "info"),
    ],
)
def test_typha_resources_at_51(cpu: str | None, memory: str | None, severity: str) -> None:
    f = advise_one("scale-typha-resources", 51, typha=requests(cpu, memory))
    assert (f.rule, f.severity) == ("scale-typha-resources", severity)
    assert details(f).inputs["cpu_minimum"] == Fact("100m", SEED, "资源分配指南: 100m-250m")
    assert details(f).inputs["memory_minimum"].value == "128Mi"
    assert details(f).inputs["size_row"].value == "51-200 nodes"


def test_typha_resources_not_checked_when_typha_is_off() -> None:
    f = advise_one("scale-typha-resources", 50, typha=requests(None, None))
    assert f.severity == "info" and "cpu_request" not in details(f).inputs


@pytest.mark.parametrize(
    ("nodes", "severity"),
    [(50, "info"), (51, "warning"), (200, "warning"), (2001, "warning")],
)
def test_felix_resources_by_size(nodes: int, severity: str) -> None:
    """Calico's manifests request cpu 250m for calico-node: enough up to 50 nodes only
    (memory 128Mi given here)."""
    f = advise_one("scale-felix-resources", nodes, felix=requests("250m", "128Mi"))
    assert (f.rule, f.severity) == ("scale-felix-resources", severity)
