"""Facts and the plain data they make up: where a value came from, a pool's network, and
the inputs as the report publishes them."""

from __future__ import annotations

import ipaddress

from renderer.calico.scale.facts import CALICO_DEFAULT, RENDERED, Fact, Pool, ScaleInputs
from tests.calico.scale.inputs import BIRD, NO_TYPHA, PODS, n, pool, requests


def test_origin_names_source_where_object_and_file() -> None:
    fact = Fact("10.0.0.0/16", RENDERED, "env X", "DaemonSet kube-system/calico-node", "f:3")
    assert fact.origin() == "rendered: env X (DaemonSet kube-system/calico-node, f:3)"
    assert Fact(26, CALICO_DEFAULT).origin() == "calico-default"
    assert list(fact.to_dict()) == ["value", "source", "where", "object", "file"]


def test_a_pool_network_is_of_its_own_ip_version() -> None:
    assert pool("10.0.0.5/16").network() == ipaddress.ip_network("10.0.0.0/16")
    assert pool("fd00::/48", 122, 6).network() == ipaddress.ip_network("fd00::/48")
    assert pool("fd00::/48").network() is None  # an IPv6 CIDR for the IPv4 pool
    assert pool("<no value>").network() is None
    assert (Pool(6, BIRD, BIRD).name, Pool(6, BIRD, BIRD).bits) == ("IPv6", 128)


def test_inputs_by_name_in_report_order() -> None:
    data = ScaleInputs(
        n(601),
        PODS,
        (pool("10.0.0.0/16"), pool("fd00::/48", 122, 6)),
        BIRD,
        NO_TYPHA,
        requests("250m", None),
        None,
    )
    assert list(data.to_dict()) == [
        "nodes",
        "max_pods",
        "ipv4_pool_cidr",
        "ipv4_block_size",
        "ipv6_pool_cidr",
        "ipv6_block_size",
        "backend",
        "typha_replicas",
        "calico_node_cpu_request",
        "calico_node_memory_request",
    ]
    assert data.to_dict()["calico_node_memory_request"]["value"] is None
