"""``calico-render capability``: the release check of one version."""

from __future__ import annotations

import json

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from renderer.data import schemas
from tests.clihelp import ref, run
from tests.gatehelp import TREE

ROOT = str(TREE)


@pytest.mark.parametrize(
    ("version", "code", "capable", "legacy"),
    [
        ("v9.1.0", 0, True, False),
        ("v9.4.0", 1, True, False),
        ("v9.0.0", 1, False, True),
        ("v9.2.0", 1, False, True),
        ("v9.3.0", 1, False, False),
    ],
)
def test_cli_capability_json(
    capsys: pytest.CaptureFixture[str], version: str, code: int, capable: bool, legacy: bool
) -> None:
    r = run(
        capsys,
        "capability",
        "--version",
        version,
        "--manifests",
        ROOT,
        "--format",
        "json",
        "--kube-version",
        "1.30",
    )
    assert r.code == code
    report = json.loads(r.out)
    schemas.validate_output(schemas.CAPABILITY_REPORT, report)
    assert report["capable"] is capable and report["release_ready"] is (code == 0)
    assert report["legacy"] is legacy
    assert report["kube_versions"] == ["1.30"] and report["version"] == version
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert report["summary"]["error"] == len(errors)
    assert all(f["kube_versions"] == ["1.30"] for f in report["findings"] if f["stage"] == "schema")


def test_cli_capability_html(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("capability", "--version", "v9.4.0", "--manifests", ROOT, "--kube-version", "1.30")
    r = run(capsys, *args, "--format", "html")
    assert r.code == 1 and r.out.startswith("<!DOCTYPE html>")
    assert 'data-rule="typha-anti-affinity"' in r.out and "not release-ready" in r.out


def test_cli_capability_no_anti_affinity_names_rule(
    capsys: pytest.CaptureFixture[str], file_regression: FileRegressionFixture
) -> None:
    r = run(capsys, "capability", "--version", "v9.4.0", "--manifests", ROOT, "--format", "json")
    assert r.code == 1
    report = json.loads(r.out)
    assert (report["capable"], report["release_ready"]) == (True, False)
    found = [
        (f["rule"], ref(f["object"]), f["field"], f["severity"])
        for f in report["findings"]
        if f["stage"] == "rules"
    ]
    assert found == [
        (
            "typha-anti-affinity",
            "Deployment kube-system/calico-typha",
            "spec.template.spec.affinity.podAntiAffinity",
            "error",
        )
    ]
    text = run(
        capsys, "capability", "--version", "v9.4.0", "--manifests", ROOT, "--kube-version", "1.30"
    )
    assert text.code == 1
    header, rest = text.out.split("\n", 1)
    assert header == f"calico-render capability: {ROOT}"  # the tree it checked
    file_regression.check(rest, extension=".txt")


def test_cli_capability_report_regression(
    capsys: pytest.CaptureFixture[str], data_regression: object
) -> None:
    r = run(
        capsys,
        "capability",
        "--version",
        "v9.4.0",
        "--manifests",
        ROOT,
        "--format",
        "json",
        "--kube-version",
        "1.37",
    )
    data = json.loads(r.out)
    assert data.pop("manifests") == ROOT  # the tree it checked
    data_regression.check(data)  # type: ignore[attr-defined]


@pytest.mark.parametrize("version", ["v3.28.2", "v3.29.3", "v3.31.3"])
def test_bundled_typha_versions_release_ready(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    r = run(capsys, "capability", "--version", version, "--format", "json")
    assert r.code == 0, r.out
    report = json.loads(r.out)
    assert (report["capable"], report["legacy"], report["release_ready"]) == (True, False, True)


@pytest.mark.parametrize("version", ["v3.25.0", "v3.27.3"])
def test_bundled_legacy_versions_not_ready(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    r = run(capsys, "capability", "--version", version, "--format", "json")
    report = json.loads(r.out)
    assert r.code == 1 and not report["capable"] and not report["release_ready"]
    assert report["legacy"] is True
