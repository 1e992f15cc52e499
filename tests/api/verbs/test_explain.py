"""The explain-context verb: each file's context and where its values came from."""

from __future__ import annotations

from renderer import api
from renderer.api.results import ExplainResult


def test_explain_context_as_data_names_the_decision_and_each_files_values() -> None:
    result = api.explain_context(api.Request.of("v3.28.2", 60))
    assert isinstance(result, ExplainResult)
    data = result.to_dict()
    assert (data["version"], data["nodes"], data["operation"]) == ("v3.28.2", 60, "install")
    assert {k: v for k, v in data["decision"].items() if k != "reason"} == {
        "allowTypha": "true",
        "typhaReplicas": "3",
    }
    assert [f["file"] for f in data["files"]] == [
        "000-crds.yaml",
        "001-typha.yaml",
        "002-calico.yaml",
    ]
    replicas = [f["values"]["typhaReplicas"] for f in data["files"]]
    assert [(r["value"], r["source"]) for r in replicas] == [("3", "policy")] * 3
    assert data["warnings"] == []
