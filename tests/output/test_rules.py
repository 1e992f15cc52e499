"""The rule catalogue document (``rules``): every id once, text and JSON alike."""

from __future__ import annotations

import json

import pytest

from renderer import api, output
from renderer.calico.rules import REGISTRY
from renderer.calico.scale import REGISTRY as SCALE_REGISTRY
from renderer.checks.catalogue import EXCEPTABLE_STAGES as STAGES
from renderer.data import schemas
from renderer.output.rules import RulesDocument
from tests.clihelp import run


def test_every_rule_id_once_with_its_stage_and_whether_it_can_be_excepted() -> None:
    doc = RulesDocument(api.rules())
    data = json.loads(output.render("json", doc))
    schemas.validate_output("rules.schema.json", data)
    by = {r["id"]: r for r in data["rules"]}
    assert len(by) == len(data["rules"])
    assert set(REGISTRY) <= set(by)  # every registered release rule
    assert set(SCALE_REGISTRY) <= set(by)  # and every scale rule, never exceptable
    assert {(by[i]["stage"], by[i]["exceptable"]) for i in SCALE_REGISTRY} == {("scale", False)}
    assert by["scale-pod-addresses"]["severity"] == "error/warning"
    assert (by["typha-anti-affinity"]["stage"], by["typha-anti-affinity"]["exceptable"]) == (
        "rules",
        True,
    )
    assert by["typha-replicas"]["stage"] == "capability" and not by["typha-replicas"]["exceptable"]
    assert all(r["exceptable"] == (r["stage"] in STAGES) for r in data["rules"])


def test_the_text_has_a_row_per_rule(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "rules")
    rows = [line.split()[:4] for line in r.out.splitlines()]
    assert r.code == 0 and rows[0] == ["RULE", "STAGE", "SEVERITY", "EXCEPTABLE"]
    assert [row[0] for row in rows[1:]] == [x.id for x in api.rules()]
