"""The rule registry: a rule is one registered function; shared inputs computed once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from renderer.calico.rules import (
    ERROR,
    REGISTRY,
    WARNING,
    RuleInput,
    Violation,
    rule,
    run_rules,
    violated,
)
from tests.clihelp import ref
from tests.gatehelp import typha_on_objects

TYPHA = "Deployment kube-system/calico-typha"


def _input() -> RuleInput:
    return RuleInput(typha_on_objects(), "v9.1.0")


def test_adding_a_rule_is_one_function() -> None:
    @rule(id="test-only-rule", severity=WARNING, message="the Typha Deployment is suspicious")
    def suspicious(data: RuleInput) -> Iterator[Violation]:
        yield Violation("", data.typha, "metadata")

    try:
        findings = run_rules(_input(), [REGISTRY["test-only-rule"]])
        assert [(f.stage, f.rule, f.severity, ref(f.object), f.field) for f in findings] == [
            ("rules", "test-only-rule", WARNING, TYPHA, "metadata")
        ]
        assert findings[0].file.endswith("-typha.yaml") and findings[0].line > 0
        with pytest.raises(ValueError, match="registered twice"):
            rule(id="test-only-rule", severity=WARNING, message="x")(suspicious)
    finally:
        del REGISTRY["test-only-rule"]


def test_violated_names_the_rules_whose_findings_have_that_severity() -> None:
    @rule(id="test-only-error", severity=ERROR, message="always")
    def always(data: RuleInput) -> Iterator[Violation]:
        yield Violation("twice", data.typha, "metadata")
        yield Violation("twice", data.typha, "spec")

    @rule(id="test-only-warning", severity=WARNING, message="always")
    def warns(data: RuleInput) -> Iterator[Violation]:
        yield Violation("", data.typha)

    try:
        data = _input()
        for severity in (ERROR, WARNING):
            found = sorted({f.rule for f in run_rules(data) if f.severity == severity})
            assert violated(data, severity) == found
        assert "test-only-error" in violated(data) and "test-only-warning" not in violated(data)
    finally:
        del REGISTRY["test-only-error"], REGISTRY["test-only-warning"]


def test_a_rule_has_a_known_severity() -> None:
    with pytest.raises(ValueError, match="severity"):
        rule(id="test-bad-severity", severity="fatal", message="x")
    assert "test-bad-severity" not in REGISTRY


def test_shared_inputs_are_computed_once() -> None:
    data = _input()
    assert data.typha is not None and data.typha.ref == TYPHA
    assert data.typha is data.typha
    assert data.typha_container is not None
    assert data.typha_container[1]["name"] == "calico-typha"
    assert [p.ref for p in data.typha_pdbs] == ["PodDisruptionBudget kube-system/calico-typha"]
    assert data.images is data.images
    assert {image for _, _, image in data.images} >= {data.typha_container[1]["image"]}


def test_every_registered_rule_has_an_id_severity_and_message() -> None:
    assert REGISTRY
    for rule_id, r in REGISTRY.items():
        assert r.id == rule_id and r.severity in (ERROR, WARNING) and r.message
