"""verb_results: what the verbs other than render return, from real small calls."""

from __future__ import annotations

import json
from pathlib import Path

from renderer import api
from renderer.api.verb_results import ExplainResult, PlanResult, TyphaResult, Validation
from tests.clihelp import ref
from tests.gatehelp import BROKEN

OBJECTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: ok, namespace: default}
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: bad, namespace: default}
data: {a: b}
bogus: 1
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: default}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
"""


def test_validate_reports_schema_findings_of_files() -> None:
    result = api.validate([str(BROKEN / "removed-api.yaml")], ["1.30"])
    assert (result.objects, result.kube_versions) == (1, ("1.30",))
    assert [(f.stage, f.rule, ref(f.object), f.field) for f in result.errors] == [
        ("schema", "schema-invalid", "PodDisruptionBudget kube-system/calico-typha", "apiVersion")
    ]


def test_validation_counts_resources_as_kubeconform_does(tmp_path: Path) -> None:
    (tmp_path / "objects.yaml").write_text(OBJECTS)
    result = api.validate([str(tmp_path)], ["1.34"], skip=["Secret"])
    assert isinstance(result, Validation)
    assert result.files == (str(tmp_path / "objects.yaml"),)
    assert (result.objects, result.skipped) == (4, 1)
    assert [(f.rule, f.severity, ref(f.object)) for f in result.findings] == [
        ("schema-invalid", "error", "ConfigMap default/bad"),
        ("schema-not-checked", "info", "Widget w"),
    ]
    assert [ref(f.object) for f in result.errors] == ["ConfigMap default/bad"]
    assert result.resources() == {"valid": 1, "invalid": 1, "skipped": 1, "not_checked": 1}


def test_typha_gives_one_decision_or_the_boundary_table() -> None:
    one = api.typha(601)
    assert isinstance(one, TyphaResult)
    assert one.nodes == 601
    assert [(d.nodes, d.allow_typha, d.replicas) for d in one.decisions] == [(601, True, 4)]
    table = api.typha()
    assert table.nodes is None
    assert [(d.nodes, d.allow_typha, d.replicas) for d in table.decisions][:4] == [
        (50, False, 0),
        (51, True, 3),
        (600, True, 3),
        (601, True, 4),
    ]


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
