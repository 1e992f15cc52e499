"""Fingerprints SARIF and Code Quality share: stable across runs and machines, blind to
the line, distinct per problem and per occurrence; rule descriptions from the catalogue."""

from __future__ import annotations

from renderer.checks.catalogue import catalogue
from renderer.finding import Finding, ObjectRef
from renderer.output.fingerprint import fingerprints, rule_description


def test_fingerprints_ignore_the_line_and_the_machine_but_tell_problems_apart() -> None:
    a = Finding("r", "error", "m", stage="schema", file="/home/a/x/y.yaml", line=3)
    moved = Finding("r", "error", "m", stage="schema", file="/builds/b/x/y.yaml", line=9)
    other = Finding("r", "error", "other", stage="schema", file="x/y.yaml", line=3)
    assert fingerprints([a]) == fingerprints([moved])
    assert fingerprints([a]) != fingerprints([other])
    twice = fingerprints([a, moved])
    assert len(set(twice)) == 2 and twice == fingerprints([a, moved])


def test_each_part_of_the_problem_changes_the_fingerprint() -> None:
    base = Finding("r", "error", "m", stage="schema", file="x/y.yaml", field="spec.a")
    variants = [
        Finding("r2", "error", "m", stage="schema", file="x/y.yaml", field="spec.a"),
        Finding("r", "error", "m", stage="rules", file="x/y.yaml", field="spec.a"),
        Finding("r", "error", "m", stage="schema", file="z/y.yaml", field="spec.a"),
        Finding("r", "error", "m", stage="schema", file="x/y.yaml", field="spec.b"),
        Finding(
            "r", "error", "m", stage="schema", file="x/y.yaml", field="spec.a",
            object=ObjectRef("Deployment", "calico-typha", "kube-system"),
        ),
    ]  # fmt: skip
    prints = fingerprints([base, *variants])
    assert len(set(prints)) == len(prints)
    assert all(len(p) == 64 and int(p, 16) >= 0 for p in prints)


def test_the_first_occurrence_keeps_the_plain_digest() -> None:
    a = Finding("r", "error", "m", stage="schema", file="x/y.yaml", line=3)
    one = fingerprints([a])
    three = fingerprints([a, a, a])
    assert three[0] == one[0] and len(set(three)) == 3
    # an unrelated finding in between does not renumber the occurrences
    b = Finding("q", "warning", "n", stage="rules")
    assert fingerprints([a, b, a, a])[::2] == [three[0], three[1]]
    assert fingerprints([a, b, a, a])[3] == three[2]


def test_the_description_is_the_catalogue_s_for_a_listed_rule() -> None:
    info = catalogue()["typha-replicas"]
    example = Finding("typha-replicas", "error", "m", stage=info.stage)
    assert rule_description("typha-replicas", example) == info.description


def test_an_unlisted_rule_is_described_by_its_stage_and_id() -> None:
    example = Finding("no-such-rule", "error", "m", stage="schema")
    text = rule_description("no-such-rule", example)
    assert "no-such-rule" in text and "schema" in text
