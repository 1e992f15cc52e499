"""``calico-render versions``: each version with its Typha capability."""

from __future__ import annotations

import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer.output.documents import VERSIONS
from tests.cli.jsondoc import json_doc
from tests.clihelp import run


def test_versions_json(
    capsys: pytest.CaptureFixture[str], data_regression: DataRegressionFixture
) -> None:
    code, data = json_doc(capsys, VERSIONS, "versions", "--keys")
    assert code == 0 and data["manifests"] == "bundled tree"
    by = {v["version"]: v for v in data["versions"]}
    assert by["v3.27.3"]["typha"] == "not capable" and by["v3.27.3"]["legacy"] is True
    assert by["v3.28.2"]["typha"] == "capable" and by["v3.28.2"]["verdict"] is None
    data_regression.check(data)


def test_versions_text_has_a_row_per_json_entry(capsys: pytest.CaptureFixture[str]) -> None:
    """The text table and the JSON document list the same versions, dialects and verdicts;
    a legacy version is not warned about."""
    _, data = json_doc(capsys, VERSIONS, "versions")
    r = run(capsys, "versions")
    assert r.code == 0 and r.err == ""
    assert r.out.splitlines()[0] == "calico-render versions: bundled tree"
    rows = [line.split(None, 3) for line in r.out.splitlines()[2:]]
    typha = {v["version"]: v["typha"] for v in data["versions"]}
    assert [row[0] for row in rows] == list(typha)
    assert {row[0]: row[2] for row in rows if row[2] != "not"} == {
        k: v for k, v in typha.items() if v != "not capable"
    }
