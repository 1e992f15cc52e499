"""The check report's document (output/check.py): its JUnit cases, by structure (the
whole forms are regressions in test_text, test_json and test_junit)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from renderer import output
from renderer.checks import report
from renderer.checks.report import FileChange, ObjectChange
from renderer.finding import Finding, ObjectRef
from renderer.output.check import CheckDocument
from tests.checks.test_report import dec, incomplete, sample

MISSING = "no goldens in g/v1.0.0; create them, after review, with: calico-render check --up"


def cases(r: report.CheckReport) -> dict[str, ET.Element]:
    root = ET.fromstring(output.render("junit", CheckDocument(r)))
    return {c.get("name", ""): c for c in root.iter("testcase")}


def test_junit_a_case_per_version_scenario_and_rule_error() -> None:
    found = cases(sample())
    assert [(n, c.find("failure") is not None) for n, c in found.items()] == [
        ("v1.0.0", True),
        ("v1.0.0 nodes-50", True),
        (f"v1.0.0 golden golden-missing {MISSING}", True),
        ("v2.0.0", True),
        ("v2.0.0 nodes-50", False),
        ("v2.0.0 nodes-51", True),
        ("v2.0.0 rule r1 Deployment ns/d", True),
        ("v2.0.0 golden golden-changed ConfigMap ns/c data.k", True),
    ]
    failures = {n: c.find("failure") for n, c in found.items()}
    messages = {n: f.get("message") for n, f in failures.items() if f is not None}
    assert messages == {
        "v1.0.0": "failed stages: goldens",
        "v1.0.0 nodes-50": "golden missing",
        "v2.0.0": "failed stages: rules, goldens",
        "v2.0.0 nodes-51": "golden fail",
        "v2.0.0 rule r1 Deployment ns/d": "broken",
        f"v1.0.0 golden golden-missing {MISSING}": MISSING,
        "v2.0.0 golden golden-changed ConfigMap ns/c data.k": '"a" → "b"',
    }
    # the command creating missing goldens is in the failing scenario's body
    assert (found["v1.0.0 nodes-50"].findtext("failure") or "").endswith("calico-render check --up")


def test_junit_capability_failure_names_the_stage() -> None:
    found = cases(report.CheckReport("root", "golden", ["1.30"], [incomplete()]))
    failure = found["v3.0.0"].find("failure")
    assert failure is not None and failure.get("message") == "failed stages: capability"
    assert (failure.text or "").splitlines()[0] == "stage capability: fail"


def test_junit_scenario_failures_carry_their_changes_and_diffs_located() -> None:
    v = report.VersionResult("v4.0.0", ["a.yaml"], "go")
    v.stages.update(templates="pass", capability="pass", rules="pass", schema="pass")
    v.stages["goldens"] = "fail"
    paths = ["nodes-50/a.yaml", "nodes-51/a.yaml", "nodes-601/a.yaml", "nodes-601/decision.json"]
    where = "kubernetes/calico/v4.0.0/a.yaml"
    change = Finding(
        "golden-changed",
        "error",
        '"1" → "2"',
        stage="goldens",
        object=ObjectRef("ConfigMap", "c", "ns"),
        field="data.k",
        file=where,
        line=9,
        scenarios=("nodes-51", "nodes-601"),
    )
    v.findings = [change]
    v.golden = report.GoldenResult(
        "fail",
        "g/v4.0.0",
        files=[FileChange(p, "modified") for p in paths],
        changes=[ObjectChange("ConfigMap ns/c", "data.k", '"1"', '"2"', change.scenarios)],
        file_diffs={p: f"--- a/g/v4.0.0/{p}\n+++ b/g/v4.0.0/{p}\n" for p in paths},
    )
    v.scenarios = [
        report.ScenarioResult(n, nodes, "install", dec(n, nodes), golden=golden)
        for n, nodes, golden in (
            ("nodes-50", 50, "pass"),
            ("nodes-51", 51, "fail"),
            ("nodes-601", 601, "fail"),
        )
    ]
    v.scenarios[1].changes = v.scenarios[2].changes = [str(change)]
    found = cases(report.CheckReport("r", "g", ["1.30"], [v]))
    texts = {name: c.findtext("failure") or "" for name, c in found.items()}

    def shown(name: str) -> list[str]:
        return [p for p in paths if f"--- a/g/v4.0.0/{p}\n" in texts[name] + "\n"]

    assert shown("v4.0.0 nodes-51") == ["nodes-51/a.yaml"]
    assert shown("v4.0.0 nodes-601") == ["nodes-601/a.yaml", "nodes-601/decision.json"]
    assert texts["v4.0.0 nodes-601"].splitlines()[0] == str(change)
    assert found["v4.0.0 nodes-50"].find("failure") is None
    assert (found["v4.0.0 nodes-51"].get("file"), found["v4.0.0 nodes-51"].get("line")) == (
        where,
        "9",
    )
    golden = found["v4.0.0 golden golden-changed ConfigMap ns/c data.k"]
    assert (golden.get("file"), golden.get("line")) == (where, "9")
