"""``versions``, ``typha`` and ``validate`` with ``--format json``: each document meets
its published schema (checked here independently of the run-time check)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer.data.bundled import schema_path
from renderer.output import summaries
from tests.clihelp import run


def _doc(capsys: pytest.CaptureFixture[str], schema: str, *args: str) -> tuple[int, Any]:
    r = run(capsys, *args, "--format", "json")
    data = json.loads(r.out)
    published = json.loads(Path(schema_path(schema)).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(published).validate(data)
    return r.code, data


def test_typha_json(
    capsys: pytest.CaptureFixture[str], data_regression: DataRegressionFixture
) -> None:
    code, table = _doc(capsys, summaries.TYPHA, "typha")
    assert code == 0 and table["decision"] is None
    code, one = _doc(capsys, summaries.TYPHA, "typha", "--nodes", "5000")
    d = one["decision"]
    assert (d["allowTypha"], d["typhaReplicas"], d["capped"], one["table"]) == (
        "true",
        "20",
        True,
        None,
    )
    data_regression.check({"table": table, "nodes_5000": one})


def test_versions_json(
    capsys: pytest.CaptureFixture[str], data_regression: DataRegressionFixture
) -> None:
    code, data = _doc(capsys, summaries.VERSIONS, "versions", "--keys")
    assert code == 0 and data["manifests"] is None
    by = {v["version"]: v for v in data["versions"]}
    assert by["v3.27.3"]["typha"] == "not capable" and by["v3.27.3"]["legacy"] is True
    assert by["v3.28.2"]["typha"] == "capable" and by["v3.28.2"]["verdict"] is None
    data_regression.check(data)


def test_validate_json_names_object_field_and_kube_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: kube-system\n"
        "datta: {}\n",
        encoding="utf-8",
    )
    code, data = _doc(capsys, summaries.VALIDATE, "validate", str(bad), "--kube-version", "1.34")
    assert code == 1 and data["errors"] == 1 and data["objects"] == 1
    (f,) = data["findings"]
    assert (f["rule"], f["kube_versions"], f["severity"], f["object"], f["file"], f["line"]) == (
        "schema-invalid", ["1.34"], "error", "ConfigMap kube-system/x", str(bad), 1,
    )  # fmt: skip
    code, data = _doc(capsys, summaries.VALIDATE, "validate", str(bad))
    (f,) = data["findings"]  # one finding for every Kubernetes version it holds for
    assert f["kube_versions"] == data["kube_versions"] and len(f["kube_versions"]) > 1
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", encoding="utf-8")
    code, data = _doc(capsys, summaries.VALIDATE, "validate", str(good), "--kube-version", "1.34")
    assert code == 0 and data["findings"] == [] and data["errors"] == 0
