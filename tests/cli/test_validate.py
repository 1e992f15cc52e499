"""``calico-render validate``: strict schema validation of rendered files."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.output.documents import VALIDATE
from tests.cli.jsondoc import json_doc
from tests.clihelp import one_error, run
from tests.gatehelp import BROKEN, TREE

ROOT = str(TREE)


def test_cli_validate_files_and_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    removed, misspelled = str(BROKEN / "removed-api.yaml"), str(BROKEN / "misspelled.yaml")
    code, data = json_doc(
        capsys, VALIDATE, "validate", removed, misspelled, "--kube-version", "1.25"
    )
    assert code == 1
    found = {
        (f["rule"], f["severity"], f["object"], f["field"], f["file"]) for f in data["findings"]
    }
    typha = "kube-system/calico-typha"
    assert {
        ("schema-invalid", "error", f"PodDisruptionBudget {typha}", "apiVersion", removed),
        ("schema-invalid", "error", f"Deployment {typha}", "spec.replica", misspelled),
    } <= found
    good = run(capsys, "--version", "v9.1.0", "--nodes", "601", "--manifests", ROOT).out
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good.encode())))
    code, data = json_doc(capsys, VALIDATE, "validate", "-")
    assert code == 0 and data["errors"] == 0 and data["objects"] > 0
    assert {f["severity"] for f in data["findings"]} <= {"not-checked"}  # the FelixConfiguration


def test_cli_validate_bad_yaml_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "validate", str(BROKEN / "bad.yaml"))
    one_error(r, file=BROKEN / "bad.yaml", line=5)


def test_schema_messages_spell_values_as_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: true\n")
    r = run(capsys, "validate", str(path))
    assert r.code == 1 and "true is not of type 'string'" in r.err + r.out
    assert "True" not in r.err + r.out
    # yaml_spelling and yaml_repr themselves: tests/data/test_schemas.py


def test_validate_json_names_object_field_and_kube_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: kube-system\n"
        "datta: {}\n",
        encoding="utf-8",
    )
    code, data = json_doc(capsys, VALIDATE, "validate", str(bad), "--kube-version", "1.34")
    assert code == 1 and data["errors"] == 1 and data["objects"] == 1
    (f,) = data["findings"]
    assert (f["rule"], f["kube_versions"], f["severity"], f["object"], f["file"], f["line"]) == (
        "schema-invalid", ["1.34"], "error", "ConfigMap kube-system/x", str(bad), 1,
    )  # fmt: skip
    code, data = json_doc(capsys, VALIDATE, "validate", str(bad))
    (f,) = data["findings"]  # one finding for every Kubernetes version it holds for
    assert f["kube_versions"] == data["kube_versions"] and len(f["kube_versions"]) > 1
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", encoding="utf-8")
    code, data = json_doc(capsys, VALIDATE, "validate", str(good), "--kube-version", "1.34")
    assert code == 0 and data["findings"] == [] and data["errors"] == 0
