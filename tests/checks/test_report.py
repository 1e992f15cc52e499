"""The check report model on hand-made reports: verdicts, summaries and JSON data.

Its text and JUnit forms are tested with the other documents in ``tests/output``, on
the reports built here."""

from __future__ import annotations

import pytest

from renderer.calico.scenarios import Scenario, decision_record, route_scenario
from renderer.checks import report
from renderer.checks.exceptions import Applied, RuleException
from renderer.checks.report import FileChange, ObjectChange
from renderer.data import schemas
from renderer.finding import Finding, ObjectRef
from renderer.output.check import check_data


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
        "coverage": "pass",
        "goldens": "missing",
    }
    ok.coverage = {"scenarios": 1, "branches": 2, "covered": 2, "uncovered": 0, "not_analysed": []}
    ok.golden = report.GoldenResult("missing", "g/v1.0.0", command="calico-render check --up")
    ok.findings = [
        Finding(
            "golden-missing",
            "error",
            "no goldens in g/v1.0.0; create them, after review, with: calico-render check --up",
            stage="goldens",
            file="kubernetes/calico/v1.0.0/calico.yaml",
            line=1,
        )
    ]
    ok.scenarios = [
        report.ScenarioResult("nodes-50", 50, "install", dec("nodes-50", 50), golden="missing")
    ]
    bad = report.VersionResult("v2.0.0", ["a.yaml"], "go")
    bad.stages = {
        "templates": "pass",
        "capability": "pass",
        "rules": "fail",
        "schema": "pass",
        "coverage": "pass",
        "goldens": "fail",
    }
    bad.coverage = {"scenarios": 2, "branches": 3, "covered": 2, "uncovered": 1, "not_analysed": []}
    bad.findings = [
        Finding("r1", "error", "broken", stage="rules", object=ObjectRef("Deployment", "d", "ns")),
        Finding(
            "branch-not-rendered",
            "warning",
            "the else body at line 7 is rendered by no scenario",
            stage="coverage",
            file="a.yaml",
            line=7,
        ),
    ]
    where = "kubernetes/calico/v2.0.0/a.yaml"
    change = ObjectChange(
        "ConfigMap ns/c", "data.k", '"a"', '"b"', ("nodes-51",), file=where, line=4
    )
    bad.findings.append(
        Finding(
            "golden-changed",
            "error",
            '"a" → "b"',
            stage="goldens",
            object=ObjectRef("ConfigMap", "c", "ns", "v1"),
            field="data.k",
            file=where,
            line=4,
            scenarios=("nodes-51",),
        )
    )
    bad.golden = report.GoldenResult(
        "fail",
        "g/v2.0.0",
        diff="--- a\n+++ b\n",
        changes=[change],
        files=[FileChange("nodes-51/a.yaml", "modified")],
        command="calico-render check --up",
        file_diffs={"nodes-51/a.yaml": "--- a\n+++ b\n"},
    )
    bad.scenarios = [
        report.ScenarioResult("nodes-50", 50, "install", dec("nodes-50", 50), golden="pass"),
        report.ScenarioResult(
            "nodes-51",
            51,
            "install",
            dec("nodes-51", 51),
            golden="fail",
            changes=[str(bad.findings[-1])],
        ),
    ]
    return report.CheckReport("root", "golden", ["1.30"], [ok, bad])


def test_summary_counts_every_version_and_the_data_meets_its_schema() -> None:
    data = check_data(sample())
    assert data["summary"] == {
        "addons": 1,
        "versions": 2,
        "passed": 0,
        "failed": 2,
        "legacy": 1,
        "stale_goldens": 0,
        "findings": {"error": 3, "warning": 1, "info": 0},  # the coverage warning
    }
    assert (data["passed"], [v["passed"] for v in data["versions"]]) == (False, [False, False])
    schemas.validate_output("check-report.schema.json", data)


def stale() -> report.CheckReport:
    """A passing legacy version with two applied exceptions (one matched nothing) and
    goldens left for a version not in the tree."""
    v = report.VersionResult("v1.0.0", ["calico.yaml"], "go")
    v.stages.update(templates="pass", capability="legacy", rules="legacy", schema="pass")
    v.exceptions = [("r1", None, "known", 2), ("r2", "warning", "accepted", 1)]
    matched = Applied(RuleException("r1", "known"), {"v1.0.0": 2})
    unmatched = Applied(RuleException("r3", "gone", line=7))
    left = report.StaleGolden(
        "v0.9.0", "g/v0.9.0", ["nodes-50/decision.json"], "cmd --up", shown="golden/calico/v0.9.0"
    )
    return report.CheckReport(
        "root",
        "golden",
        ["1.30"],
        [v],
        stale=[left],
        exceptions_file="exceptions.yaml",
        exceptions=[matched, unmatched],
    )


def test_stale_goldens_fail_the_report_until_removed() -> None:
    r = stale()
    assert (r.passed, r.stale_failed, r.versions[0].passed) == (False, ["v0.9.0"], True)
    data = check_data(r)
    assert data["summary"]["stale_goldens"] == 1
    assert [e["rule"] for e in data["exceptions"]["entries"]] == ["r1", "r3"]
    assert len(data["exceptions"]["warnings"]) == 1
    schemas.validate_output("check-report.schema.json", data)
    r.stale[0].status = report.UPDATED
    assert (r.passed, r.stale_failed) == (True, [])


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


def test_capability_failure_is_neither_capable_nor_legacy() -> None:
    r = report.CheckReport("root", "golden", ["1.30"], [incomplete()])
    assert r.versions[0].failed_stages == ["capability"]
    data = check_data(r)
    schemas.validate_output("check-report.schema.json", data)
    v = data["versions"][0]
    assert (v["capable"], v["legacy"], v["passed"], v["stages"]["capability"]) == (
        False,
        False,
        False,
        "fail",
    )
    assert [(f["stage"], f["rule"], f["severity"]) for f in v["findings"]] == [
        ("capability", "typha-replicas", "error")
    ]
    assert data["summary"] == {
        "addons": 1,
        "versions": 1,
        "passed": 0,
        "failed": 1,
        "legacy": 0,
        "stale_goldens": 0,
        "findings": {"error": 1, "warning": 0, "info": 0},
    }


@pytest.mark.parametrize(
    ("statuses", "failed"),
    [
        ({}, []),
        ({"capability": "legacy", "rules": "legacy", "goldens": "updated"}, []),
        ({"rules": "fail", "goldens": "missing"}, ["rules", "goldens"]),
        ({"fidelity": "fail"}, ["fidelity"]),
    ],
)
def test_failed_stages_are_those_not_passing_in_stage_order(
    statuses: dict[str, str], failed: list[str]
) -> None:
    v = report.VersionResult("v0", [], "go")
    v.stages = {**dict.fromkeys(report.STAGES, "pass"), **statuses}
    assert v.failed_stages == failed
    assert v.passed is (not failed)


def test_json_keys_are_snake_case_like_the_capability_report() -> None:
    data = check_data(sample())

    def keys(value: object, under: str = "") -> set[str]:
        if isinstance(value, dict):
            if under in ("decision", "object"):  # the context's and Kubernetes' own names
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
