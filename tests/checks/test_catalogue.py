"""The rule catalogue: every id a gate finding can carry, once, with its stage, its
severity and whether a reviewed exception may waive it."""

from __future__ import annotations

from renderer.calico.capability import CONTRACT_ITEMS
from renderer.calico.rules import REGISTRY
from renderer.calico.scale import REGISTRY as SCALE_REGISTRY
from renderer.checks.catalogue import (
    EXCEPTABLE_STAGES,
    FIDELITY_RULES,
    OTHER_RULES,
    catalogue,
    did_you_mean,
    stage_of,
)
from renderer.finding import CAPABILITY, ERROR, FIDELITY, RULES, SCALE

STAGE_ORDER = (
    "input",
    "templates",
    "capability",
    "rules",
    "schema",
    "coverage",
    "context",
    "fidelity",
    "goldens",
    "scale",
)


def test_every_source_of_ids_is_listed_under_its_stage() -> None:
    rules = catalogue()
    assert {i: rules[i].stage for i in CONTRACT_ITEMS} == dict.fromkeys(CONTRACT_ITEMS, CAPABILITY)
    assert {i: rules[i].stage for i in REGISTRY} == dict.fromkeys(REGISTRY, RULES)
    assert {i: rules[i].stage for i in SCALE_REGISTRY} == dict.fromkeys(SCALE_REGISTRY, SCALE)
    assert {i: rules[i].stage for i in FIDELITY_RULES} == dict.fromkeys(FIDELITY_RULES, FIDELITY)
    assert {i: rules[i].stage for i in OTHER_RULES} == {
        i: s for i, (s, _, _) in OTHER_RULES.items()
    }
    assert len(rules) == len(
        set(CONTRACT_ITEMS) | set(REGISTRY) | set(SCALE_REGISTRY) | set(FIDELITY_RULES)
        | set(OTHER_RULES)
    )  # fmt: skip
    assert all(rule_id == info.id for rule_id, info in rules.items())


def test_only_the_exceptable_stages_may_be_waived() -> None:
    rules = catalogue()
    assert all(info.exceptable == (info.stage in EXCEPTABLE_STAGES) for info in rules.values())
    contract = rules[next(iter(CONTRACT_ITEMS))]
    assert (contract.severity, contract.exceptable) == (ERROR, False)
    assert rules["golden-changed"].exceptable is False
    assert rules["schema-invalid"].exceptable is True


def test_severities_come_from_the_registries() -> None:
    rules = catalogue()
    assert {i: rules[i].severity for i in REGISTRY} == {i: r.severity for i, r in REGISTRY.items()}
    assert {i: rules[i].severity for i in SCALE_REGISTRY} == {
        i: r.severity for i, r in SCALE_REGISTRY.items()
    }


def test_ids_come_in_stage_order_then_by_id() -> None:
    infos = list(catalogue().values())
    keys = [(STAGE_ORDER.index(info.stage), info.id) for info in infos]
    assert keys == sorted(keys)


def test_to_dict_carries_every_field() -> None:
    info = catalogue()["typha-anti-affinity"]
    assert info.to_dict() == {
        "id": "typha-anti-affinity",
        "stage": RULES,
        "severity": info.severity,
        "exceptable": True,
        "description": info.description,
    }


def test_stage_of_a_known_and_an_unknown_id() -> None:
    assert stage_of("fidelity-changed") == FIDELITY
    assert stage_of("scale-bgp-mesh") == SCALE
    assert stage_of("no-such-rule") is None


def test_did_you_mean_names_the_nearest_known_id() -> None:
    assert "fidelity-changed?" in did_you_mean("fidelity-chnaged")
    assert did_you_mean("zzzzzzzz") == ""
