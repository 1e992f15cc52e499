"""The report of a run that ended in bad input: one error finding of stage input."""

from __future__ import annotations

import jsonschema

from renderer import api
from renderer.finding import Finding
from renderer.output.inputerror import InputErrorDocument


def test_one_error_finding_of_stage_input_in_every_form() -> None:
    finding = Finding("input-error", "error", "not YAML", stage="input", file="c.yaml", line=3)
    document = InputErrorDocument("check", finding)
    data = document.data()
    jsonschema.validate(data, api.schema("input-error"))
    assert data["passed"] is False and data["summary"]["error"] == 1
    assert document.text() == f"{finding}\n"
    assert document.annotations() == [finding]
    [suite] = document.testsuites()
    assert [c.failure is not None for c in suite.cases] == [True]
