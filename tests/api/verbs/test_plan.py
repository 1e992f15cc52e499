"""The plan verb: phases and their files."""

from __future__ import annotations

import json

from renderer import api
from renderer.api.verbs.plan import PlanResult


def test_a_plan_as_data_is_a_copy_and_its_files_are_its_phases_and_plan_json() -> None:
    result = api.plan(api.Request.of("v3.28.2", 60), from_nodes=10)
    assert isinstance(result, PlanResult)
    data = result.to_dict()
    phases = [p["name"] for p in data["phases"]]
    data["phases"].clear()  # the caller's copy: the result is unchanged
    assert [p["name"] for p in result.to_dict()["phases"]] == phases
    files = result.files()
    assert list(files) == [
        *(f"{i:02d}-{name}.apply.yaml" for i, name in enumerate(phases)),
        "plan.json",
    ]
    assert json.loads(files["plan.json"]) == result.to_dict()
