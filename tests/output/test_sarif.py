"""The SARIF format: every document with findings, whole, valid against the OASIS SARIF
2.1.0 schema (tests/fixtures/sarif), rules described in ``tool.driver.rules``."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer import output
from renderer.output.findings import finding_dict
from renderer.output.sarif import addon_of, artifact_location
from tests.output.cases import DOCUMENTS

SARIF_SCHEMA = Path(__file__).parents[1] / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
WITH_FINDINGS = [n for n, case in DOCUMENTS.items() if "sarif" in output.names(case.kind)]


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def valid_sarif(text: str) -> dict[str, Any]:
    """``text`` as SARIF, after checking it against the OASIS schema."""
    data: dict[str, Any] = json.loads(text)
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]]
    return data


def test_the_commands_ci_annotates_have_sarif() -> None:
    assert {"validate", "check", "capability", "input-error"} <= set(WITH_FINDINGS)
    assert "plan" not in WITH_FINDINGS


@pytest.mark.parametrize("name", WITH_FINDINGS)
def test_sarif(name: str, data_regression: DataRegressionFixture) -> None:
    document = DOCUMENTS[name]()
    assert isinstance(document, output.Findings)
    data = valid_sarif(output.render("sarif", document))
    (run,) = data["runs"]
    found = document.annotations()
    assert len(run["results"]) == len(found)
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert sorted(rules) == sorted({f.rule for f in found})
    for result, f in zip(run["results"], found, strict=True):
        assert rules[result["ruleIndex"]] == result["ruleId"] == f.rule
        assert (
            result["level"] == {"error": "error", "warning": "warning", "info": "note"}[f.severity]
        )
        loc = finding_dict(f)["location"]
        physical = result["locations"][0]["physicalLocation"] if loc else None
        if physical is not None:
            assert physical["artifactLocation"]["uri"].endswith(loc["path"].lstrip("/"))
            assert physical.get("region", {}).get("startLine") == loc["line"]
    data_regression.check(data, basename=f"sarif-{name}")


def test_paths_are_uris_relative_to_the_checkout() -> None:
    assert artifact_location("kubernetes/calico/v 1/a.yaml") == {
        "uri": "kubernetes/calico/v%201/a.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    assert artifact_location("/tmp/x.yaml") == {"uri": "file:///tmp/x.yaml"}


def test_a_result_in_the_tree_names_its_addon() -> None:
    assert addon_of("kubernetes/coredns/v1.8.0/coredns.yaml") == "coredns"
    assert addon_of("golden/calico/v3.31.3/nodes-50/decision.json") == "calico"
    assert addon_of("golden/v3.31.3/nodes-50/decision.json") == ""  # the bundled goldens
    assert addon_of("values.yaml") == ""
    data = json.loads(output.render("sarif", DOCUMENTS["check-addons"]()))
    found = {r["properties"].get("addon") for r in data["runs"][0]["results"]}
    assert found == {"calico", "cluster-api", "coredns", "kubeproxy", "nodelocaldns", "widgets"}
