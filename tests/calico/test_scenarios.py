"""Which scenarios the gate renders, and the decisions the goldens record."""

from __future__ import annotations

from renderer.calico.scenarios import (
    Scenario,
    Target,
    cover,
    decision_record,
    derived,
    dimensions,
    route_scenario,
    scenarios_for,
    value_targets,
)


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


# --- derived from the templates -----------------------------------------------------------

REPO = "registry.example.com/check/"


def test_dimensions_are_compared_strings_no_match_repo_and_truth_tests() -> None:
    dims = dimensions(
        {"calicoMode": {"vxlan", "bgp"}, "ipModVersion": {"ipv4", "ipv6", "dual"}, "x": {""}},
        {"ipAutoDetectionMethod"},
        {"calicoMode": "vxlan", "ipModVersion": "ipv4", "ipAutoDetectionMethod": "first-found"},
        {"calicoMode": ["ipip", "vxlan", "bgp"], "ipModVersion": ["ipv4", "ipv6", "dual"]},
        REPO,
        always_set={"ipModVersion"},
    )
    assert dims == {
        # the default (vxlan) matches a branch: the schema's other value is the no-match
        "calicoMode": ("bgp", "ipip"),
        # every allowed value is compared and the controller always sets it: "" is left
        "ipModVersion": ("dual", "ipv6", ""),
        # the other side of a truth test
        "ipAutoDetectionMethod": ("",),
        "repo": ("",),
        # a key no config need set: compared with "" only; unset, its default, matches none
        "x": ("",),
    }
    wanted = value_targets({"calicoMode": {"vxlan", "bgp"}, "x": {""}}, dims)
    assert ("value", "calicoMode", "ipip") in wanted and ("value", "repo", "") in wanted
    assert not any(t[1] == "ipAutoDetectionMethod" for t in wanted)


def test_typha_keys_are_routing_not_dimensions() -> None:
    dims = dimensions({"allowTypha": {"true"}}, set(), {}, {}, REPO)
    assert dims == {"repo": ("",)}


def test_the_greedy_cover_combines_values_and_names_them() -> None:
    """Arm ``a`` needs calicoMode=bgp with Typha on; ``b`` needs repo empty; a scenario
    from the Typha-on start covers both, and is named after what it sets."""
    on, off = Scenario("nodes-51", 51), Scenario("nodes-50", 50)
    dims = {"calicoMode": ("bgp", "ipip"), "repo": ("",)}

    def takes(s: Scenario) -> frozenset[Target]:
        values = dict(s.values)
        out: set[Target] = {("value", k, v) for k, v in values.items()}
        if values.get("calicoMode") == "bgp" and s.nodes > 50:
            out.add(("arm", "a"))
        if values.get("repo") == "":
            out.add(("arm", "b"))
        if values.get("calicoMode") == "ipip":
            out.add(("arm", "c"))
        return frozenset(out)

    wanted: set[Target] = {
        ("arm", "a"),
        ("arm", "b"),
        ("arm", "c"),
        ("value", "calicoMode", "ipip"),
        ("value", "calicoMode", "bgp"),
    }
    chosen = cover([on, off], dims, takes, wanted, set(), REPO)
    assert [(s.name, s.nodes, s.values) for s in chosen] == [
        ("nodes-51-calicoMode-bgp-repo-empty", 51, (("calicoMode", "bgp"), ("repo", ""))),
        ("nodes-51-calicoMode-ipip", 51, (("calicoMode", "ipip"),)),
    ]
    # nothing left to cover: no scenario
    assert cover([on, off], dims, takes, wanted, wanted, REPO) == []
    # a derived scenario's decision says what it sets
    record = decision_record(chosen[0], route_scenario(chosen[0], True, "v3.28.2"))
    assert record["values"] == {"calicoMode": "bgp", "repo": ""}
    assert derived(on, {"calicoMode": None, "repo": REPO}, REPO).name == (
        "nodes-51-calicoMode-unset-repo-set"
    )


def test_an_addons_dimensions_set_repo_to_the_checks_prefix_and_sample_unset_keys() -> None:
    """Another addon's ``repo`` defaults to "" (its templates' own registries): set, it
    is the check's prefix; a key compared with "" whose default is unset (``ne .x nil``
    and ``ne .x ""``) also gets a non-empty string, the only value that takes the body."""
    dims = dimensions({"proxyMode": {""}}, set(), {}, {}, "", repo_sample=REPO, unset_strings=True)
    assert dims == {"proxyMode": ("", "calico-render-check"), "repo": (REPO,)}
    start = Scenario("cluster", 3)
    assert derived(start, {"repo": REPO}, "").name == "cluster-repo-set"


def test_a_long_scenario_name_keeps_its_first_value_and_a_digest() -> None:
    start = Scenario("cluster", 3)
    values = {f"param{i:02d}Enable": "" for i in range(12)}
    long = derived(start, values, "")
    assert long.name.startswith("cluster-param00Enable-empty-and-11-more-")
    assert len(long.name) <= 96 and long.values == tuple(sorted(values.items()))
    assert derived(start, dict(reversed(values.items())), "").name == long.name
    assert derived(start, {**values, "x": "1"}, "").name != long.name
