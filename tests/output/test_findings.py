"""The one finding shape (output/findings.py): every key of finding.schema.json, null for
what is unset, the location relative to the tree, details typed per stage."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.data import schemas
from renderer.finding import ERROR, Finding, ObjectRef
from renderer.output.findings import finding_dict, report_header, severity_counts

TYPHA = ObjectRef("Deployment", "calico-typha", "kube-system", "apps/v1")
PATH = "kubernetes/calico/v3.31.3/001-typha.yaml"


def _valid(data: Any) -> None:
    schemas.validate_output(schemas.FINDING, data)


def test_every_key_of_the_schema_with_nulls_for_what_is_unset() -> None:
    f = Finding("r", "warning", "m", stage="rules")
    data = finding_dict(f)
    _valid(data)
    assert sorted(data) == sorted(schemas.load_schema(schemas.FINDING)["required"])
    assert (data["object"], data["field"], data["location"], data["rendered"]) == (None,) * 4
    assert (data["exception"], data["details"]) == (None, {})


def test_object_location_and_render_as_ci_reads_them() -> None:
    f = Finding(
        "typha-anti-affinity",
        ERROR,
        "m",
        stage="rules",
        object=TYPHA,
        field="spec.x",
        file=PATH,
        line=26,
        column=7,
        rendered_line=3,
        scenarios=("nodes-51",),
    )
    data = finding_dict(f)
    _valid(data)
    assert data["object"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "kube-system",
        "name": "calico-typha",
    }
    assert data["location"] == {"path": PATH, "line": 26, "column": 7}
    assert data["rendered"] == {"scenarios": ["nodes-51"], "line": 3}
    assert str(f).startswith(f"{PATH}:26:7: error: [typha-anti-affinity] {TYPHA} spec.x: m")


def test_a_cluster_scoped_object_has_a_null_namespace() -> None:
    data = finding_dict(Finding("r", ERROR, "m", stage="schema", object=ObjectRef("Node", "n")))
    _valid(data)
    assert data["object"] == {"apiVersion": None, "kind": "Node", "namespace": None, "name": "n"}


@pytest.mark.parametrize(
    ("stage", "details", "ok"),
    [
        ("context", {"key": "ClusterCidr"}, True),
        ("rules", {"key": "x"}, False),  # a stage with nothing more to say carries nothing
        ("scale", {"inputs": {}, "computed": {}, "advice": "", "suggestions": []}, True),
        ("scale", {}, False),
    ],
)
def test_details_are_typed_per_stage(stage: str, details: dict[str, Any], ok: bool) -> None:
    data = {**finding_dict(Finding("r", ERROR, "m", stage=stage)), "details": details}
    if ok:
        _valid(data)
    else:
        with pytest.raises(AssertionError):
            _valid(data)


def test_every_report_names_tool_version_and_shape() -> None:
    head = report_header("check")
    assert head["tool"] == "calico-render check" and head["report_version"] == 2
    assert head["tool_version"]
    found = [Finding("a", "error", "m"), Finding("b", "info", "m"), Finding("c", "info", "m")]
    assert severity_counts(found) == {"error": 1, "warning": 0, "info": 2}
