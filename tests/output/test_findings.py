"""Finding serialisers (output/findings.py): each report keeps its own keys, with null
for what is unset, and the capability rule form is what its schema describes."""

from __future__ import annotations

from renderer.finding import ERROR, Finding
from renderer.output.findings import capability_rule_dict as rule_dict
from renderer.output.findings import check_dict

TYPHA = "Deployment kube-system/calico-typha"


def test_each_report_keeps_its_keys_and_nulls() -> None:
    f = Finding("r", "warning", "m", stage="rules", field="spec.x", rendered_line=4)
    assert list(check_dict(f)) == [
        "stage",
        "rule",
        "severity",
        "message",
        "object",
        "file",
        "line",
        "field",
        "scenarios",
        "kube_versions",
        "exception",
    ]
    assert (check_dict(f)["object"], check_dict(f)["line"], check_dict(f)["field"]) == (
        None,
        None,
        "spec.x",
    )
    assert rule_dict(f) == {
        "rule": "r",
        "severity": "warning",
        "message": "m",
        "object": None,
        "field": "spec.x",
        "file": None,
        "line": None,
        "rendered_line": 4,
    }


def test_rule_dict_is_its_fields_as_the_capability_schema_wants() -> None:
    from renderer.data import schemas

    f = Finding(
        "typha-probes",
        ERROR,
        "m",
        object=TYPHA,
        field="spec.x",
        file="v/001-typha.yaml",
        line=3,
        rendered_line=9,
    )
    assert rule_dict(f) == {
        "rule": "typha-probes",
        "severity": "error",
        "message": "m",
        "object": TYPHA,
        "field": "spec.x",
        "file": "v/001-typha.yaml",
        "line": 3,
        "rendered_line": 9,
    }
    ref = schemas.load_schema(schemas.CAPABILITY_REPORT)["$defs"]["ruleFinding"]
    assert sorted(ref["properties"]) == sorted(rule_dict(f))
    assert set(ref["required"]) == set(rule_dict(f)) - {"rendered_line"}
