"""Pool arithmetic: addresses against the warning share, IPAM blocks per node, the
wider pools and block sizes that fit, and counts as people read them."""

from __future__ import annotations

import math
from typing import Any

from renderer.calico.scale.facts import Network, Pool
from renderer.calico.scale.tables import ADDRESS_WARN, BLOCK_SIZE_LIMITS, SEED_BLOCK_SIZES


def count(n: int) -> str:
    """A count for people: thousands separated; huge powers of two as 2^k (IPv6)."""
    if n >= 2**40 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def percent(part: int, whole: int) -> float:
    return round(part * 100 / whole, 1)


def ceil_log2(n: int) -> int:
    """The smallest k with 2**k >= n (n >= 1)."""
    return (n - 1).bit_length()


def fits_addresses(needed: int, capacity: int) -> bool:
    """Within :data:`ADDRESS_WARN` of the pool."""
    return needed <= capacity * ADDRESS_WARN


def pool_prefix_for(needed: int, bits: int) -> int | None:
    """The longest prefix whose pool holds ``needed`` addresses within the warning share;
    None when no pool of this IP version can."""
    k = ceil_log2(math.ceil(needed / ADDRESS_WARN))
    return bits - k if k <= bits else None


def widen(net: Network, prefix: int) -> Network:
    """``net`` widened to ``prefix`` (itself when it is already that wide)."""
    return net if prefix >= net.prefixlen else net.supernet(new_prefix=prefix)


def block_prefix(pool: Pool, net: Network) -> int | None:
    value = pool.block_size.value
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    low, high = BLOCK_SIZE_LIMITS[pool.family]
    return value if low <= value <= high and value >= net.prefixlen else None


def blocks_per_node(max_pods: int, block: int, bits: int) -> int:
    return -(-max_pods // (1 << (bits - block)))


def block_option(nodes: int, max_pods: int, block: int, net: Network, bits: int) -> dict[str, Any]:
    per_node = blocks_per_node(max_pods, block, bits)
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
        and nodes * blocks_per_node(max_pods, b, bits) <= 1 << (b - net.prefixlen)
    ]
    if keep:
        out.append(block_option(nodes, max_pods, keep[0], net, bits))
    address_prefix = pool_prefix_for(nodes * max_pods, bits)
    best: tuple[int, int, int, int] | None = None
    for b in candidates:
        per_node = blocks_per_node(max_pods, b, bits)
        prefix = b - ceil_log2(nodes * per_node)
        if address_prefix is not None:
            prefix = min(prefix, address_prefix)
        if prefix < 0 or prefix >= net.prefixlen:
            continue
        rank = (-prefix, 0 if b == current else 1, per_node, b)
        if best is None or rank < best:
            best = rank
    if best is not None:
        prefix, block = -best[0], best[3]
        out.append(block_option(nodes, max_pods, block, widen(net, prefix), bits))
    return out


def block_use(block: int, bits: int) -> str:
    shift = bits - 32
    for b in SEED_BLOCK_SIZES:
        if b.prefix + shift == block:
            return f" (seed 003: {b.use})"
    return ""
