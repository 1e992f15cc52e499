"""Pool arithmetic: the warning share, blocks per node, and the pools and block sizes
that fit."""

from __future__ import annotations

import ipaddress

import pytest

from renderer.calico.scale.pools import (
    blocks_per_node,
    count,
    fits_addresses,
    pool_prefix_for,
    suggest_blocks,
    widen,
)


@pytest.mark.parametrize(
    ("n", "text"), [(65_536, "65,536"), (2**72, "2^72"), (2**72 + 1, f"{2**72 + 1:,}")]
)
def test_count(n: int, text: str) -> None:
    assert count(n) == text


def test_the_warning_share_is_80_percent() -> None:
    assert fits_addresses(52_428, 65_536) and not fits_addresses(52_429, 65_536)
    # 66,110 addresses within 80 %: 82,638 -> a /15 (131,072) holds them, a /16 does not
    assert pool_prefix_for(66_110, 32) == 15
    assert pool_prefix_for(2**40, 32) is None


def test_blocks_per_node_and_widen() -> None:
    assert (blocks_per_node(110, 26, 32), blocks_per_node(110, 24, 32)) == (2, 1)
    net = ipaddress.IPv4Network("10.250.0.0/16")
    assert str(widen(net, 14)) == "10.248.0.0/14" and widen(net, 20) is net


def test_suggest_blocks_keeps_the_pool_first_then_a_wider_one() -> None:
    net = ipaddress.IPv4Network("10.250.0.0/16")
    got = suggest_blocks(520, 110, net, 26, 32)
    assert [(o["cidr"], o["block_size"], o["blocks_per_node"]) for o in got] == [
        ("10.250.0.0/16", 28, 7),
        ("10.250.0.0/15", 26, 2),
    ]
    assert all(o["blocks_needed"] <= o["pool_blocks"] for o in got)
