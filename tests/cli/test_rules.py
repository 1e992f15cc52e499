"""``calico-render rules``: the rule catalogue, every id once, in text and JSON."""

from __future__ import annotations

import json

import pytest

from renderer.checks.catalogue import catalogue
from renderer.data import schemas
from tests.clihelp import one_error, run


def test_json_is_the_catalogue_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "rules", "--format", "json")
    assert (r.code, r.err) == (0, "")
    data = json.loads(r.out)
    schemas.validate_output("rules.schema.json", data)
    assert data["tool"] == "calico-render rules"
    assert data["rules"] == [info.to_dict() for info in catalogue().values()]


def test_text_lists_the_same_ids_with_stage_and_severity(
    capsys: pytest.CaptureFixture[str],
) -> None:
    r = run(capsys, "rules")
    assert (r.code, r.err) == (0, "")
    rows = [line.split()[:3] for line in r.out.splitlines()[1:]]
    assert rows == [[i.id, i.stage, i.severity] for i in catalogue().values()]


@pytest.mark.parametrize("fmt", ["junit", "sarif", "codequality"])
def test_formats_without_findings_are_usage_errors(
    capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    r = run(capsys, "rules", "--format", fmt)
    one_error(r)
    assert r.out == ""
