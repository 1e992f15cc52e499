"""``calico-render validate``: strict schema validation of rendered files."""

from __future__ import annotations

import io
import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from renderer.output.documents import VALIDATE
from tests.cli.jsondoc import json_doc
from tests.clihelp import one_error, ref, run
from tests.crdhelp import widget, widget_crd
from tests.gatehelp import BROKEN, TREE
from tests.output.test_sarif import valid_sarif

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
        (f["rule"], f["severity"], ref(f["object"]), f["field"], f["location"]["path"])
        for f in data["findings"]
    }
    typha = "kube-system/calico-typha"
    assert {
        ("schema-invalid", "error", f"PodDisruptionBudget {typha}", "apiVersion", removed),
        ("schema-invalid", "error", f"Deployment {typha}", "spec.replica", misspelled),
    } <= found
    good = run(capsys, "--version", "v9.1.0", "--nodes", "601", "--manifests", ROOT).out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good.encode())))
    code, data = json_doc(capsys, VALIDATE, "validate", "-")
    assert code == 0 and data["errors"] == 0 and data["objects"] > 0
    assert {f["rule"] for f in data["findings"]} <= {"schema-not-checked"}  # FelixConfiguration


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
    where = f["location"]
    assert (f["rule"], f["kube_versions"], f["severity"], ref(f["object"])) == (
        "schema-invalid", ["1.34"], "error", "ConfigMap kube-system/x",
    )  # fmt: skip
    assert (where["path"], where["line"]) == (str(bad), 1)
    code, data = json_doc(capsys, VALIDATE, "validate", str(bad))
    (f,) = data["findings"]  # one finding for every Kubernetes version it holds for
    assert f["kube_versions"] == data["kube_versions"] and len(f["kube_versions"]) > 1
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", encoding="utf-8")
    code, data = json_doc(capsys, VALIDATE, "validate", str(good), "--kube-version", "1.34")
    assert code == 0 and data["findings"] == [] and data["errors"] == 0


# --- like kubeconform: directories, kinds, summary, every format alike -------------------

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: ns\n{body}"


def _tree(tmp_path: Path) -> Path:
    """A directory of manifests: two bad ConfigMaps (one nested), a good one, a Secret,
    a JSON file, and files validate must not read (hidden, other suffixes)."""
    top = tmp_path / "manifests"
    (top / "sub" / "deeper").mkdir(parents=True)
    (top / ".hidden").mkdir()
    (top / "a.yaml").write_text(CM.format(name="a", body="datta: {}\n"), encoding="utf-8")
    (top / "sub" / "deeper" / "b.yml").write_text(
        CM.format(name="b", body="data:\n  k: v\n---\n")
        + CM.format(name="c", body="  labelz: {}\n"),
        encoding="utf-8",
    )
    (top / "s.json").write_text(
        '{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ns"}}',
        encoding="utf-8",
    )
    for ignored in (".hidden/x.yaml", ".dot.yaml", "notes.txt"):
        (top / ignored).write_text("not: [valid", encoding="utf-8")
    return top


def test_a_directory_is_walked_recursively_for_manifests_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    top = _tree(tmp_path)
    code, data = json_doc(capsys, VALIDATE, "validate", str(top), "--kube-version", "1.34")
    assert code == 1
    assert data["files"] == [
        str(top / "a.yaml"),
        str(top / "s.json"),
        str(top / "sub" / "deeper" / "b.yml"),
    ]
    assert data["objects"] == 4 and data["errors"] == 2
    assert data["resources"] == {"valid": 2, "invalid": 2, "skipped": 0, "not_checked": 0}
    assert [(ref(f["object"]), f["location"]["line"]) for f in data["findings"]] == [
        ("ConfigMap ns/a", 1),
        ("ConfigMap ns/c", 9),  # the line of the unknown field
    ]


def test_skip_counts_a_kind_and_reject_fails_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    top = _tree(tmp_path)
    kube = ("--kube-version", "1.34")
    code, data = json_doc(capsys, VALIDATE, "validate", str(top), *kube, "--skip", "ConfigMap")
    assert code == 0 and data["findings"] == []
    assert data["resources"] == {"valid": 1, "invalid": 0, "skipped": 3, "not_checked": 0}
    code, data = json_doc(
        capsys,
        VALIDATE,
        "validate",
        str(top),
        *kube,
        "--skip",
        "Foo,ConfigMap",
        "--reject",
        "Secret",
    )
    assert code == 1
    (f,) = data["findings"]
    assert (f["rule"], f["severity"], ref(f["object"])) == ("kind-rejected", "error", "Secret ns/s")
    assert f["location"] == {"path": str(top / "s.json"), "line": 1, "column": None}


def test_summary_in_every_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    top = _tree(tmp_path)
    r = run(capsys, "validate", str(top), "--kube-version", "1.34", "--format", "json", "--summary")
    assert r.err.startswith("Summary: 4 resource(s) found in 3 file(s)")
    assert "Valid: 2, Invalid: 2, Skipped: 0" in r.err
    assert json.loads(r.out)["errors"] == 2
    quiet = run(capsys, "validate", str(top), "--kube-version", "1.34", "--format", "json")
    assert quiet.err == ""


def _formats(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, str]:
    out = {}
    for fmt in ("text", "json", "junit", "sarif", "codequality"):
        r = run(capsys, "validate", *args, "--format", fmt)
        assert r.code == 1, r.err
        out[fmt] = r.out
    return out


def test_counts_are_equal_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two Kubernetes versions, three problems: every format counts three, never six."""
    top = _tree(tmp_path)
    bad = tmp_path / "removed.yaml"
    bad.write_text(
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\n"
        "spec:\n  maxUnavailable: 1\n",
        encoding="utf-8",
    )
    out = _formats(capsys, str(top), str(bad), "--kube-version", "1.30", "--kube-version", "1.34")
    errors = json.loads(out["json"])["errors"]
    assert errors == 3
    assert len([x for x in out["text"].splitlines() if ": error: [" in x]) == errors
    junit = ET.fromstring(out["junit"])
    assert int(junit.get("failures", "0")) == errors
    sarif = valid_sarif(out["sarif"])
    assert sum(1 for r in sarif["runs"][0]["results"] if r["level"] == "error") == errors
    issues = json.loads(out["codequality"])
    assert sum(1 for i in issues if i["severity"] == "major") == errors


def test_a_finding_has_the_same_location_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The file and line a user is sent to are the same in text, JSON, JUnit, SARIF and
    Code Quality (a relative path, as CI checks out)."""
    top = _tree(tmp_path)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        out = _formats(capsys, "manifests/sub", "--kube-version", "1.34")
    finally:
        os.chdir(here)
    path, line = "manifests/sub/deeper/b.yml", 9
    assert top.is_dir()
    (text,) = out["text"].splitlines()
    assert text.startswith(f"{path}:{line}: error: [schema-invalid] ConfigMap ns/c ")
    (f,) = json.loads(out["json"])["findings"]
    assert (f["location"]["path"], f["location"]["line"]) == (path, line)
    (case,) = [
        c for c in ET.fromstring(out["junit"]).iter("testcase") if c.find("failure") is not None
    ]
    assert (case.get("file"), case.get("line")) == (path, str(line))
    failure = case.find("failure")
    assert failure is not None and (failure.text or "").startswith(f"{path}:{line}: error:")
    (result,) = valid_sarif(out["sarif"])["runs"][0]["results"]
    physical = result["locations"][0]["physicalLocation"]
    assert (physical["artifactLocation"]["uri"], physical["region"]["startLine"]) == (path, line)
    (issue,) = json.loads(out["codequality"])
    assert (issue["location"]["path"], issue["location"]["lines"]["begin"]) == (path, line)


def test_custom_resources_are_checked_against_the_crds_of_the_files_and_crds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CRD among the files checked, or named by --crds, checks its kind's resources;
    a kind no CRD defines is counted as not checked, an error with --strict."""
    crd = tmp_path / "crds" / "widget.json"
    crd.parent.mkdir()
    crd.write_text(json.dumps(widget_crd()))
    cr = tmp_path / "cr.yaml"
    cr.write_text(json.dumps(widget({"size": 1, "sise": 2})))
    other = tmp_path / "other.yaml"
    other.write_text(json.dumps({**widget(), "kind": "Gadget"}))
    args = ("validate", str(cr), str(other), "--kube-version", "1.33")
    code, data = json_doc(capsys, VALIDATE, *args)
    assert code == 0 and data["resources"]["not_checked"] == 2
    code, data = json_doc(capsys, VALIDATE, *args, "--crds", str(crd.parent))
    assert code == 1
    assert [(f["rule"], f["severity"], f["field"]) for f in data["findings"]] == [
        ("schema-invalid", "error", "spec.sise"),
        ("schema-not-checked", "info", None),
    ]
    assert data["resources"] == {"valid": 0, "invalid": 1, "skipped": 0, "not_checked": 1}
    code, data = json_doc(capsys, VALIDATE, *args, str(crd), "--strict")
    assert code == 1 and data["resources"]["not_checked"] == 0
    assert {f["rule"]: f["severity"] for f in data["findings"]}["schema-not-checked"] == "error"
    r = run(capsys, "validate", str(cr), "--crds", "-")
    assert r.code == 2 and "--crds" in r.err
