"""Report renderers on hand-made reports: every format says the same thing, stably."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema

from renderer.calico.scenarios import Scenario, decision_record, route_scenario
from renderer.checks import report
from renderer.checks.finding import Finding
from renderer.checks.golden import FileChange, ObjectChange
from renderer.data import schemas


def dec(name: str, nodes: int) -> dict[str, object]:
    s = Scenario(name, nodes)
    return decision_record(s, route_scenario(s, True))


def sample() -> report.CheckReport:
    ok = report.VersionResult("v1.0.0", ["calico.yaml"], "go", missing=["x"])
    ok.stages = {
        "templates": "pass",
        "capability": "legacy",
        "rules": "legacy",
        "schema": "pass",
        "goldens": "missing",
    }
    ok.golden = report.GoldenResult("missing", "g/v1.0.0", command="calico-render check --up")
    ok.scenarios = [
        report.ScenarioResult("nodes-50", 50, "install", dec("nodes-50", 50), golden="missing")
    ]
    bad = report.VersionResult("v2.0.0", ["a.yaml"], "go")
    bad.stages = {
        "templates": "pass",
        "capability": "pass",
        "rules": "fail",
        "schema": "pass",
        "goldens": "fail",
    }
    bad.findings = [Finding("r1", "error", "broken", stage="rules", object="Deployment ns/d")]
    change = ObjectChange("ConfigMap ns/c", "data.k", '"a"', '"b"', ["nodes-51"])
    bad.golden = report.GoldenResult(
        "fail",
        "g/v2.0.0",
        diff="--- a\n+++ b\n",
        changes=[change],
        files=[FileChange("nodes-51/a.yaml", "modified")],
    )
    bad.scenarios = [
        report.ScenarioResult("nodes-50", 50, "install", dec("nodes-50", 50), golden="pass"),
        report.ScenarioResult(
            "nodes-51",
            51,
            "install",
            dec("nodes-51", 51),
            golden="fail",
            changes=[change.describe()],
        ),
    ]
    return report.CheckReport("root", "golden", ["1.30"], [ok, bad])


def test_text_has_a_row_per_version_and_details() -> None:
    text = report.render_text(sample())
    rows = [line.split() for line in text.splitlines() if line.startswith("v")]
    assert rows[0] == ["v1.0.0", "go", "ok", "legacy", "legacy", "ok", "MISSING", "FAIL"]
    assert rows[1] == ["v2.0.0", "go", "ok", "yes", "FAIL", "ok", "FAIL", "FAIL"]
    assert "calico-render check --up" in text
    assert 'ConfigMap ns/c: data.k "a" -> "b" [nodes-51]' in text
    assert "[error] r1: broken (Deployment ns/d)" in text
    assert text.endswith("FAIL: 2 of 2 versions failed: v1.0.0, v2.0.0\n")


def test_json_is_schema_valid_sorted_and_stable() -> None:
    out = report.render_json(sample())
    assert out == report.render_json(sample())
    data = json.loads(out)
    assert list(data) == sorted(data)
    assert data["summary"] == {
        "versions": 2,
        "passed": 0,
        "failed": 2,
        "legacy": 1,
        "stale_goldens": 0,
    }
    jsonschema.validate(data, schemas.load_schema("check-report.schema.json"))


def test_junit_counts_and_cases() -> None:
    root = ET.fromstring(report.render_junit(sample()))
    cases = [(c.get("name"), c.find("failure") is not None) for c in root.iter("testcase")]
    assert cases == [
        ("v1.0.0", True),
        ("v1.0.0 nodes-50", True),
        ("v2.0.0", True),
        ("v2.0.0 nodes-50", False),
        ("v2.0.0 nodes-51", True),
        ("v2.0.0 rule r1 Deployment ns/d", True),
    ]
    assert (root.get("tests"), root.get("failures"), root.get("time")) == ("6", "5", "0.000")
    missing = next(c for c in root.iter("testcase") if c.get("name") == "v1.0.0 nodes-50")
    assert "calico-render check --up" in (missing.findtext("failure") or "")


def incomplete() -> report.VersionResult:
    """A version whose Typha templates miss a contract item: capability fails."""
    v = report.VersionResult("v3.0.0", ["a.yaml"], "go", missing=["Deployment x replicas"])
    v.stages["templates"] = "pass"
    v.stages["capability"] = "fail"
    v.findings = [
        Finding(
            "typha-replicas",
            "error",
            "Typha templates incomplete: missing Deployment x replicas",
            stage="capability",
        )
    ]
    return v


def test_capable_and_legacy_follow_the_capability_stage() -> None:
    v = report.VersionResult("v0", [], "go")
    assert (v.capable, v.legacy) == (None, False)
    for status, capable, legacy in (("pass", True, False), ("legacy", False, True)):
        v.stages["capability"] = status
        assert (v.capable, v.legacy) == (capable, legacy)
    v = incomplete()
    assert (v.capable, v.legacy, v.passed) == (False, False, False)


def test_capability_failure_in_every_format() -> None:
    r = report.CheckReport("root", "golden", ["1.30"], [incomplete()])
    text = report.render_text(r)
    row = next(line.split() for line in text.splitlines() if line.startswith("v3"))
    assert row == ["v3.0.0", "go", "ok", "FAIL", "-", "-", "-", "FAIL"]
    assert "Typha templates present but incomplete" in text
    assert "passes as legacy" not in text
    assert (
        "capability: [error] typha-replicas: Typha templates incomplete: missing "
        "Deployment x replicas" in text
    )
    data = json.loads(report.render_json(r))
    jsonschema.validate(data, schemas.load_schema("check-report.schema.json"))
    v = data["versions"][0]
    assert (v["capable"], v["legacy"], v["passed"], v["stages"]["capability"]) == (
        False,
        False,
        False,
        "fail",
    )
    assert data["summary"] == {
        "versions": 1,
        "passed": 0,
        "failed": 1,
        "legacy": 0,
        "stale_goldens": 0,
    }
    root = ET.fromstring(report.render_junit(r))
    (case,) = root.iter("testcase")
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "failed stages: capability"
    assert failure.text == (
        "stage capability: fail\n[error] typha-replicas: Typha templates incomplete: "
        "missing Deployment x replicas"
    )


def test_junit_scenario_failures_carry_only_the_diffs_of_files_they_render() -> None:
    v = report.VersionResult("v4.0.0", ["a.yaml"], "go")
    v.stages.update(templates="pass", capability="pass", rules="pass", schema="pass")
    v.stages["goldens"] = "fail"
    paths = [
        "common/crds.yaml",
        "nodes-50/a.yaml",
        "nodes-51+nodes-601/a.yaml",
        "nodes-601/decision.json",
        "nodes-99/a.yaml",
    ]
    v.golden = report.GoldenResult(
        "fail",
        "g/v4.0.0",
        files=[FileChange(p, "modified") for p in paths],
        changes=[ObjectChange("nodes-99/a.yaml", "", "present", None)],
        file_diffs={p: f"--- a/g/v4.0.0/{p}\n+++ b/g/v4.0.0/{p}\n" for p in paths},
    )
    v.scenarios = [
        report.ScenarioResult(n, nodes, "install", dec(n, nodes), golden="fail")
        for n, nodes in (("nodes-50", 50), ("nodes-51", 51), ("nodes-601", 601))
    ]
    root = ET.fromstring(report.render_junit(report.CheckReport("r", "g", ["1.30"], [v])))
    texts = {c.get("name"): c.findtext("failure") or "" for c in root.iter("testcase")}

    def shown(name: str) -> list[str]:
        return [p for p in paths if f"--- a/g/v4.0.0/{p}\n" in texts[name] + "\n"]

    assert shown("v4.0.0 nodes-50") == ["common/crds.yaml", "nodes-50/a.yaml"]
    assert shown("v4.0.0 nodes-51") == ["common/crds.yaml", "nodes-51+nodes-601/a.yaml"]
    assert shown("v4.0.0 nodes-601") == [
        "common/crds.yaml",
        "nodes-51+nodes-601/a.yaml",
        "nodes-601/decision.json",
    ]
    assert shown("v4.0.0") == ["nodes-99/a.yaml"]
    assert "nodes-99/a.yaml: removed" in texts["v4.0.0"]


def test_json_keys_are_snake_case_like_the_capability_report() -> None:
    data = json.loads(report.render_json(sample()))

    def keys(value: object, under: str = "") -> set[str]:
        if isinstance(value, dict):
            if under == "decision":  # the render context's own names, as in decision.json
                return set()
            return set(value).union(*(keys(v, k) for k, v in value.items()))
        if isinstance(value, list):
            return set().union(*(keys(v, under) for v in value))
        return set()

    found = keys(data)
    assert {"report_version", "kube_versions", "update_golden", "object_changes"} <= found
    assert "kube_versions" in data["versions"][1]["findings"][0]
    assert all(k == k.lower() and "-" not in k for k in found), sorted(found)
    capability = schemas.load_schema("capability-report.schema.json")
    assert "kube_versions" in capability["required"]
