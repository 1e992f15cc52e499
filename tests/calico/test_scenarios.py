"""Which scenarios the gate renders, and the decisions the goldens record."""

from __future__ import annotations

from renderer.calico.scenarios import decision_record, route_scenario, scenarios_for


def test_capable_versions_get_off_on_and_the_four_replica_step() -> None:
    got = [(s.name, s.nodes, s.operation) for s in scenarios_for(True)]
    assert got == [
        ("nodes-50", 50, "install"),
        ("nodes-51", 51, "install"),
        ("nodes-601", 601, "install"),
    ]
    decisions = [
        decision_record(s, route_scenario(s, True, "v3.28.2")) for s in scenarios_for(True)
    ]
    assert [(d["allowTypha"], d["typhaReplicas"]) for d in decisions] == [
        ("false", "0"),
        ("true", "3"),
        ("true", "4"),
    ]
    assert all(not d["compatibility"] and d["warnings"] == [] for d in decisions)


def test_legacy_versions_get_the_upgrade_compatibility_path() -> None:
    scen = scenarios_for(False)
    assert [(s.name, s.nodes, s.operation) for s in scen] == [
        ("nodes-50", 50, "install"),
        ("upgrade-51", 51, "upgrade"),
    ]
    upgrade = decision_record(scen[1], route_scenario(scen[1], False, "v3.25.0"))
    assert upgrade["allowTypha"] == "false" and upgrade["typhaReplicas"] == "0"
    assert upgrade["operation"] == "upgrade" and upgrade["compatibility"] is True
    assert any("compatibility path" in w and "v3.25.0" in w for w in upgrade["warnings"])


def test_no_scenario_is_refused() -> None:
    for capable in (True, False):
        for s in scenarios_for(capable):
            assert not route_scenario(s, capable).refused
