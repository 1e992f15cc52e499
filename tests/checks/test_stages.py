"""The one list of a version's stages and the views check and capability take of it."""

from __future__ import annotations

import json
from pathlib import Path

from renderer.checks import pipeline
from renderer.checks.exceptions import parse
from renderer.checks.report import STAGES
from renderer.checks.stages import Step, view
from renderer.finding import ERROR, Finding

SCHEMA = Path(__file__).parents[2] / "schemas" / "finding.schema.json"


def _names(stages: tuple[object, ...]) -> list[str]:
    return [s.name for s in stages]  # type: ignore[attr-defined]


def test_every_stage_is_named_as_findings_and_reports_name_it() -> None:
    enum = json.loads(SCHEMA.read_text())["properties"]["stage"]["enum"]
    assert {s.name for s in pipeline.GATE} <= set(enum)
    # every status column of the check report is a stage of the list
    assert set(STAGES) | {"fidelity"} <= {s.name for s in pipeline.GATE}


def _calico_only(stages: tuple[object, ...]) -> list[str]:
    """The stages of the list Calico's view has: all but those needing the controller's
    context (another addon's missing keys)."""
    return [
        s.name  # type: ignore[attr-defined]
        for s in stages
        if pipeline.CONTROLLER_CONTEXT not in s.needs  # type: ignore[attr-defined]
    ]


def test_check_runs_every_stage_schema_last_once_objects_are_validated() -> None:
    before = _names(pipeline.check_stages(upstream=None))
    assert "schema" not in before and "fidelity" not in before and "goldens" in before
    full = _names(pipeline.check_stages(upstream=Path("up"), validated=True))
    assert full == _calico_only(pipeline.GATE)
    assert full[-1] == "schema"


def test_another_addon_runs_the_generic_stages_and_none_of_calicos() -> None:
    """Calico's Typha contract and fidelity are its own; every other addon names the
    keys its controller's context lacks; the rest of the list is everyone's."""
    addon = pipeline.check_stages(upstream=Path("up"), validated=True, addon="coredns")
    assert _names(addon) == [s.name for s in pipeline.GATE if pipeline.CALICO not in s.needs]
    assert "capability" not in _names(addon) and "fidelity" not in _names(addon)
    assert pipeline.stage_columns("coredns", Path("up")) == (
        "templates",
        "rules",
        "schema",
        "coverage",
        "goldens",
    )
    assert pipeline.stage_columns("calico", None) == STAGES


def test_capability_is_the_list_without_templates_and_goldens() -> None:
    assert _names(pipeline.capability_stages(Path("up"))) == [
        s for s in _calico_only(pipeline.GATE) if s not in ("templates", "goldens")
    ]
    assert "fidelity" not in _names(pipeline.capability_stages(None))


def test_a_view_keeps_list_order_and_drops_stages_whose_needs_are_not_given() -> None:
    def none(_: object) -> list[Finding]:
        return []

    a, b, c = Step("a", none), Step("b", none, frozenset({"x"})), Step("c", none)
    assert view((a, b, c), given=()) == (a, c)
    assert view((a, b, c), given=("x",), without=("c",)) == (a, b)
    assert b.run(None) == []


def test_exceptions_are_applied_in_one_place_for_both_views() -> None:
    found = [Finding("typha-anti-affinity", ERROR, "m", stage="rules")]
    items = parse(
        "exceptions:\n  - rule: typha-anti-affinity\n    severity: warning\n    reason: r\n", "f"
    ).items
    kept, matches = pipeline.except_findings(found, items, "v1")
    assert [(f.severity, f.exception) for f in kept] == [("warning", "r")]
    assert matches == [(0, "v1", 1)]
