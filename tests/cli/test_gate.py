"""Routing through the API and the CLI, and the capability, validate and versions commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from renderer import api
from renderer.data import schemas
from renderer.errors import RefusedError
from renderer.k8s.parse import parse_stream
from tests.clihelp import run
from tests.gatehelp import BROKEN, TREE

ROOT = str(TREE)


def _typha_deployment(stream: str) -> dict | None:  # type: ignore[type-arg]
    for o in parse_stream(stream, "out"):
        if o.kind == "Deployment" and o.name == "calico-typha":
            return o.data
    return None


@pytest.mark.parametrize(("nodes", "replicas"), [(50, None), (51, 3), (601, 4)])
def test_api_route_capable(nodes: int, replicas: int | None) -> None:
    result = api.render("v9.1.0", nodes, root=TREE)
    dep = _typha_deployment(result.stream())
    assert (dep["spec"]["replicas"] if dep else None) == replicas
    assert result.decision.allow_typha is (replicas is not None)
    assert result.warnings == []


def test_api_install_refused_before_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[object] = []
    monkeypatch.setattr(api, "render_version", lambda *a: rendered.append(a) or [])
    with pytest.raises(RefusedError) as exc:
        api.render("v9.0.0", 51, root=TREE)
    assert rendered == []
    msg = exc.value.message
    assert "v9.0.0" in msg and "51 nodes" in msg and "Deployment calico-typha" in msg


@pytest.mark.parametrize("operation", ["upgrade", "rollback"])
def test_api_compatibility_path(operation: str) -> None:
    result = api.render("v9.0.0", 120, root=TREE, operation=operation)
    assert not result.decision.allow_typha and result.route.compatibility
    assert any("directly on the API server" in w for w in result.warnings)
    assert _typha_deployment(result.stream()) is None


def test_api_small_cluster_on_legacy_needs_no_capability() -> None:
    result = api.render("v9.0.0", 50, root=TREE)
    assert not result.decision.allow_typha and not result.route.compatibility


def test_cli_render_on_and_off(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "v9.1.0", "--nodes", "601", "--manifests", ROOT)
    assert r.code == 0 and _typha_deployment(r.out)["spec"]["replicas"] == 4  # type: ignore[index]
    r = run(capsys, "--version", "v9.1.0", "--nodes", "50", "--manifests", ROOT)
    assert r.code == 0 and _typha_deployment(r.out) is None


def test_cli_refusal_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "v9.0.0", "--nodes", "51", "--manifests", ROOT)
    assert r.code == 3 and r.out == ""
    assert "v9.0.0" in r.err and "51 nodes" in r.err and "Service calico-typha" in r.err


@pytest.mark.parametrize("operation", ["upgrade", "rollback"])
def test_cli_compatibility_warns(capsys: pytest.CaptureFixture[str], operation: str) -> None:
    r = run(
        capsys,
        "--version",
        "v9.0.0",
        "--nodes",
        "51",
        "--manifests",
        ROOT,
        "--operation",
        operation,
    )
    assert r.code == 0 and "kind: DaemonSet" in r.out
    assert "warning:" in r.err and "directly on the API server" in r.err


def _broken_tree(tmp_path: Path) -> Path:
    dst = tmp_path / "kubernetes" / "calico" / "v9.1.0"
    shutil.copytree(TREE / "kubernetes" / "calico" / "v9.1.0", dst)
    path = dst / "002-calico.yaml"
    path.write_text(
        path.read_text()
        .replace("  revisionHistoryLimit", "  revisionHistoryLimt")
        .replace(
            "      hostNetwork: true\n      serviceAccountName: calico-node\n      initContainers:",
            "      hostNetwrok: true\n      initContainers:",
        )
    )
    return tmp_path


def test_cli_render_invalid_is_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = str(_broken_tree(tmp_path))
    r = run(
        capsys,
        "--version",
        "v9.1.0",
        "--nodes",
        "10",
        "--manifests",
        root,
        "--kube-version",
        "1.30",
    )
    assert r.code == 1 and r.out == ""
    assert "DaemonSet kube-system/calico-node spec.template.spec.hostNetwrok" in r.err
    r = run(capsys, "--version", "v9.1.0", "--nodes", "10", "--manifests", root, "--no-validate")
    assert r.code == 0 and "hostNetwrok" in r.out


def test_cli_render_unknown_kube_version(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(
        capsys,
        "--version",
        "v9.1.0",
        "--nodes",
        "10",
        "--manifests",
        ROOT,
        "--kube-version",
        "1.12",
    )
    assert r.code == 2 and "1.25" in r.err and r.out == ""


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
    assert list(report["schema"]) == ["1.30"] and report["version"] == version


def test_cli_capability_no_anti_affinity_names_rule(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "capability", "--version", "v9.4.0", "--manifests", ROOT)
    assert r.code == 1
    assert "[typha-anti-affinity] Deployment kube-system/calico-typha" in r.out
    assert "Typha-capable: yes" in r.out and "Release-ready: no" in r.out


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
    data_regression.check(json.loads(r.out))  # type: ignore[attr-defined]


@pytest.mark.parametrize("version", ["v3.28.2", "v3.29.3", "v3.31.3"])
def test_bundled_typha_versions_release_ready(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    r = run(capsys, "capability", "--version", version)
    assert r.code == 0, r.out
    assert "Release-ready: yes" in r.out


@pytest.mark.parametrize("version", ["v3.25.0", "v3.27.3"])
def test_bundled_legacy_versions_not_ready(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    r = run(capsys, "capability", "--version", version, "--format", "json")
    report = json.loads(r.out)
    assert r.code == 1 and not report["capable"] and not report["release_ready"]
    assert report["legacy"] is True


def test_cli_versions_capability_column(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "versions", "--manifests", ROOT)
    rows = {line.split()[0]: line for line in r.out.splitlines()[1:]}
    assert r.code == 0 and r.out.split()[:4] == ["version", "dialect", "typha", "files"]
    assert " capable " in rows["v9.1.0"] and " capable " in rows["v9.4.0"]
    for legacy in ("v9.0.0", "v9.2.0", "v9.3.0"):
        assert "not capable" in rows[legacy]


def test_cli_validate_files_and_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    r = run(
        capsys,
        "validate",
        str(BROKEN / "removed-api.yaml"),
        str(BROKEN / "misspelled.yaml"),
        "--kube-version",
        "1.25",
    )
    assert r.code == 1
    assert "PodDisruptionBudget kube-system/calico-typha apiVersion" in r.out
    assert "Deployment kube-system/calico-typha spec.replica:" in r.out
    good = run(capsys, "--version", "v9.1.0", "--nodes", "601", "--manifests", ROOT).out
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good.encode())))
    r = run(capsys, "validate", "-")
    assert r.code == 0 and "0 error(s)" in r.err


def test_cli_validate_bad_yaml_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "validate", str(BROKEN / "bad.yaml"))
    assert r.code == 2 and "bad.yaml:5" in r.err and "Traceback" not in r.err


def test_schema_messages_spell_values_as_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from renderer.data.schemas import yaml_repr, yaml_spelling

    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: true\n")
    r = run(capsys, "validate", str(path))
    assert r.code == 1 and "true is not of type 'string'" in r.err + r.out
    assert "True" not in r.err + r.out
    assert yaml_spelling("None is not 'None'") == "null is not 'None'"
    assert (yaml_repr(None), yaml_repr(False), yaml_repr("x")) == ("null", "false", "'x'")


def test_validate_json_names_object_field_and_kube_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from renderer.output.documents import VALIDATE
    from tests.cli.jsondoc import json_doc

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
