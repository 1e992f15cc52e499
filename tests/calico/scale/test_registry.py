"""The scale rule registry: a rule is one registered function (per cluster or per pool),
its findings carry its id and stage, and the rules run in a fixed order."""

from __future__ import annotations

import pytest

from renderer.calico.scale.facts import FLAG, Fact, Pool, ScaleInputs
from renderer.calico.scale.registry import (
    REGISTRY,
    Advice,
    ScaleDetails,
    advise,
    pool_rule,
    rule,
)
from renderer.finding import ERROR, WARNING
from renderer.output.findings import details_dict
from tests.calico.scale.inputs import (
    BIRD,
    NO_TYPHA,
    PODS,
    TYPHA,
    details,
    extract,
    n,
    objects,
    pool,
)


def _dual() -> ScaleInputs:
    return ScaleInputs(
        n(601), PODS, (pool("10.0.0.0/12"), pool("fd00::/48", 122, 6)), BIRD, NO_TYPHA, None, None
    )


def test_adding_a_rule_is_one_function() -> None:
    @pool_rule(id="test-only-pool", severity=WARNING, message="a pool is suspicious")
    def per_pool(data: ScaleInputs, p: Pool) -> Advice:
        return Advice(WARNING, f"{p.name} pool", {"pool_cidr": p.cidr}, at=p.cidr)

    @rule(id="test-only-cluster", severity=ERROR, message="the cluster is suspicious")
    def cluster(data: ScaleInputs) -> Advice:
        return Advice("info", "fine", {"nodes": data.nodes}, computed={"n": 1})

    try:
        found = advise(_dual(), [REGISTRY["test-only-cluster"], REGISTRY["test-only-pool"]])
        assert [(f.stage, f.rule, f.severity, f.message) for f in found] == [
            ("scale", "test-only-pool", WARNING, "IPv4 pool"),
            ("scale", "test-only-pool", WARNING, "IPv6 pool"),
            ("scale", "test-only-cluster", "info", "fine"),
        ]
        assert found[2].details == ScaleDetails({"nodes": n(601)}, {"n": 1})
        assert details_dict(found[2].details) == {
            "inputs": {"nodes": n(601).to_dict()},
            "computed": {"n": 1},
            "advice": "",
            "suggestions": [],
        }
        with pytest.raises(ValueError, match="registered twice"):
            rule(id="test-only-cluster", severity=ERROR, message="x")(cluster)
    finally:
        del REGISTRY["test-only-pool"], REGISTRY["test-only-cluster"]


def test_a_rule_has_a_known_severity_and_raises_no_worse() -> None:
    with pytest.raises(ValueError, match="severity"):
        rule(id="test-bad-severity", severity="info", message="x")
    assert "test-bad-severity" not in REGISTRY

    @rule(id="test-only-warns", severity=WARNING, message="only warns")
    def worse(data: ScaleInputs) -> Advice:
        return Advice(ERROR, "worse than registered", {})

    try:
        with pytest.raises(ValueError, match="registered as warning"):
            advise(_dual(), [REGISTRY["test-only-warns"]])
    finally:
        del REGISTRY["test-only-warns"]


def test_registered_rules_in_the_order_they_run() -> None:
    assert [(r.id, r.severity, r.per_pool) for r in REGISTRY.values()] == [
        ("scale-pod-addresses", "error/warning", True),
        ("scale-ipam-blocks", "error/warning", True),
        ("scale-bgp-mesh", WARNING, False),
        ("scale-typha-replicas", "error/warning", False),
        ("scale-typha-resources", WARNING, False),
        ("scale-felix-resources", WARNING, False),
    ]
    assert all(r.message for r in REGISTRY.values())


def test_advise_rule_order() -> None:
    env = """\
            - {name: CALICO_IPV4POOL_CIDR, value: 10.0.0.0/12}
            - {name: CALICO_IPV6POOL_CIDR, value: "fd00::/48"}"""
    i = extract(objects(env, TYPHA % "replicas: 4"), Fact("dual", FLAG, "--set"))
    assert [(f.rule, details(f).computed.get("family")) for f in advise(i)] == [
        ("scale-pod-addresses", "IPv4"),
        ("scale-ipam-blocks", "IPv4"),
        ("scale-pod-addresses", "IPv6"),
        ("scale-ipam-blocks", "IPv6"),
        ("scale-bgp-mesh", None),
        ("scale-typha-replicas", None),
        ("scale-typha-resources", None),
        ("scale-felix-resources", None),
    ]
