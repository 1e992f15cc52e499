"""The Typha scale policy and the routing table, at every boundary the design names."""

from __future__ import annotations

import pytest

from renderer import bke
from renderer.calico import policy


@pytest.mark.parametrize(
    ("nodes", "allow", "replicas"),
    [
        (1, "false", "0"),
        (50, "false", "0"),
        (51, "true", "3"),
        (100, "true", "3"),
        (400, "true", "3"),
        (401, "true", "3"),
        (600, "true", "3"),
        (601, "true", "4"),
        (800, "true", "4"),
        (801, "true", "5"),
        (1000, "true", "5"),
        (1001, "true", "6"),
        (4000, "true", "20"),
        (4001, "true", "20"),
        (100000, "true", "20"),
    ],
)
def test_decision_table(nodes: int, allow: str, replicas: str) -> None:
    assert policy.decide_typha(nodes).context() == {"allowTypha": allow, "typhaReplicas": replicas}


def test_replicas_always_fewer_than_nodes() -> None:
    for nodes in range(1, 5000):
        d = policy.decide_typha(nodes)
        assert d.replicas < nodes


def test_capacity_warning_only_above_cap() -> None:
    assert policy.decide_typha(4000).warnings == ()
    (warning,) = policy.decide_typha(4001).warnings
    assert "capacity assessment" in warning


@pytest.mark.parametrize("bad", [-1, -3, True, 2.5, "60"])
def test_nodes_must_be_non_negative_integer(bad: object) -> None:
    with pytest.raises(ValueError):
        policy.decide_typha(bad)  # type: ignore[arg-type]


def test_user_typha_keys_overridden_with_warning() -> None:
    d = policy.decide_typha(601)
    warnings = policy.overridden_keys({"allowTypha": False, "typhaReplicas": "1"}, d)
    assert len(warnings) == 2
    assert "allowTypha=False" in warnings[0] and "'true'" in warnings[0]
    assert "typhaReplicas='1'" in warnings[1] and "'4'" in warnings[1]
    assert policy.overridden_keys({"allowTypha": "true", "typhaReplicas": "4"}, d) == []


def test_route_small_cluster_is_off_whatever_the_capability() -> None:
    r = policy.route(50, capable=False, operation="install")
    assert not r.refused and not r.decision.allow_typha and r.warnings == ()


def test_route_capable_large_cluster_is_on() -> None:
    r = policy.route(601, capable=True)
    assert r.decision.context() == {"allowTypha": "true", "typhaReplicas": "4"}


def test_route_first_install_on_non_capable_is_refused() -> None:
    r = policy.route(51, capable=False, version="v3.25.0", missing=("Service calico-typha",))
    assert r.refused
    assert (
        "v3.25.0" in r.message and "51 nodes" in r.message and "Service calico-typha" in r.message
    )


@pytest.mark.parametrize("operation", ["upgrade", "rollback"])
def test_route_upgrade_on_non_capable_takes_compatibility_path(operation: str) -> None:
    r = policy.route(600, capable=False, operation=operation, version="v3.27.3")
    assert not r.refused and r.compatibility
    assert r.decision.context() == {"allowTypha": "false", "typhaReplicas": "0"}
    assert any("stays directly on the API server" in w for w in r.warnings)


def test_route_rejects_unknown_operation() -> None:
    with pytest.raises(ValueError):
        policy.route(10, capable=True, operation="reinstall")


def test_the_policy_writes_the_keys_the_controller_reserves_for_it() -> None:
    """bke and calico do not import each other; each names the two Typha keys."""
    assert policy.TYPHA_KEYS == bke.TYPHA_KEYS
    assert set(policy.decide_typha(601).context()) == set(bke.TYPHA_KEYS)
