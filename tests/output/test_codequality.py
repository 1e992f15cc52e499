"""The GitLab Code Quality format: every document with findings, whole; the keys GitLab
reads, fingerprints unique."""

from __future__ import annotations

import json

import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer import output
from tests.output.cases import DOCUMENTS

WITH_FINDINGS = [n for n, case in DOCUMENTS.items() if "codequality" in output.names(case.kind)]
SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


@pytest.mark.parametrize("name", WITH_FINDINGS)
def test_codequality(name: str, data_regression: DataRegressionFixture) -> None:
    document = DOCUMENTS[name]()
    assert isinstance(document, output.Findings)
    issues = json.loads(output.render("codequality", document))
    found = document.annotations()
    assert len(issues) == len(found)
    for issue, f in zip(issues, found, strict=True):
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(issue)
        assert issue["check_name"] == f.rule and issue["severity"] in SEVERITIES
        assert issue["location"]["path"] and issue["location"]["lines"]["begin"] >= 1
        if f.file:
            assert (issue["location"]["path"], issue["location"]["lines"]["begin"]) == (
                f.file,
                f.line or 1,
            )
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    data_regression.check(issues, basename=f"codequality-{name}")
