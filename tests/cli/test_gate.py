"""Routing through the API and the CLI, and the versions command."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.calico.capability import CHECK_REPO
from renderer.engine import render as render_mod
from renderer.errors import RefusedError
from renderer.k8s.parse import parse_stream
from renderer.manifests.tree import resolve_version
from tests.clihelp import one_error, run
from tests.gatehelp import TREE

ROOT = str(TREE)


def _typha_deployment(stream: str) -> dict | None:  # type: ignore[type-arg]
    for o in parse_stream(stream, "out"):
        if o.kind == "Deployment" and o.name == "calico-typha":
            return o.data
    return None


@pytest.mark.parametrize(("nodes", "replicas"), [(50, None), (51, 3), (601, 4)])
def test_api_route_capable(nodes: int, replicas: int | None) -> None:
    result = api.render(api.Request.of("v9.1.0", nodes, root=TREE))
    dep = _typha_deployment(result.stream())
    assert (dep["spec"]["replicas"] if dep else None) == replicas
    assert result.decision.allow_typha is (replicas is not None)
    assert result.warnings == ()


def test_api_install_refused_before_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing of the request is rendered: the only renders are the capability
    contract's (on its check context), whose verdict refuses the install."""
    real = render_mod.render_version
    rendered: list[object] = []

    def spy(version: Any, context: Any, contexts: Any = None) -> Any:
        if contexts is not None or context.get("repo") != CHECK_REPO:
            rendered.append(version.name)
        return real(version, context, contexts)

    monkeypatch.setattr(render_mod, "render_version", spy)
    with pytest.raises(RefusedError) as exc:
        api.render(api.Request.of("v9.0.0", 51, root=TREE))
    assert rendered == []
    msg = exc.value.message
    assert "v9.0.0" in msg and "51 nodes" in msg and "Deployment calico-typha" in msg


@pytest.mark.parametrize("operation", ["upgrade", "rollback"])
def test_api_compatibility_path(operation: str) -> None:
    result = api.render(api.Request.of("v9.0.0", 120, root=TREE, operation=operation))
    assert not result.decision.allow_typha and result.route.compatibility
    assert any("directly on the API server" in w for w in result.warnings)
    assert _typha_deployment(result.stream()) is None


def test_api_small_cluster_on_legacy_needs_no_capability() -> None:
    result = api.render(api.Request.of("v9.0.0", 50, root=TREE))
    assert not result.decision.allow_typha and not result.route.compatibility


def test_cli_render_on_and_off(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "v9.1.0", "--nodes", "601", "--manifests", ROOT)
    assert r.code == 0 and _typha_deployment(r.out)["spec"]["replicas"] == 4  # type: ignore[index]
    r = run(capsys, "--version", "v9.1.0", "--nodes", "50", "--manifests", ROOT)
    assert r.code == 0 and _typha_deployment(r.out) is None


def test_cli_refusal_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "v9.0.0", "--nodes", "51", "--manifests", ROOT)
    message = one_error(r, code=3, key="--nodes")
    assert r.out == "" and "v9.0.0" in message and "51" in message
    assert "Service calico-typha" in message  # names what the version lacks


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


#: A schema finding on stderr: file:line: severity: Kubernetes version: object field: ...
SCHEMA_LINE = re.compile(
    r"calico-render: (\S+):(\d+): (error|warning): \[schema-invalid\] (\w+ \S+) (\S+): "
    r".* \(kube ([^)]+)\)$"
)


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
    found = [m.groups() for m in map(SCHEMA_LINE.match, r.err.splitlines()) if m]
    assert found == [
        (
            "kubernetes/calico/v9.1.0/002-calico.yaml",
            "68",
            "error",
            "DaemonSet kube-system/calico-node",
            "spec.template.spec.hostNetwrok",
            "1.30",
        )
    ]
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
    assert "1.25" in one_error(r, key="--kube-version") and r.out == ""  # what is shipped


def test_cli_versions_capability_column(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "versions", "--manifests", ROOT)
    rows = {line.split()[0]: line for line in r.out.splitlines()[2:]}
    assert r.code == 0 and r.out.splitlines()[0] == f"calico-render versions: {ROOT}"
    assert r.out.split()[3:7] == ["version", "dialect", "typha", "files"]
    assert " capable " in rows["v9.1.0"] and " capable " in rows["v9.4.0"]
    for legacy in ("v9.0.0", "v9.2.0", "v9.3.0"):
        assert "not capable" in rows[legacy]


def test_every_command_sees_the_controllers_file_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Typha file in a subdirectory and a broken ``.yml`` beside it: render, versions
    --keys, capability, images and check all take the subdirectory file and never the
    ``.yml`` (which the controller never renders)."""
    bundled = resolve_version("v3.31.3").path
    version = tmp_path / "kubernetes" / "calico" / "v3.31.3"
    (version / "typha").mkdir(parents=True)
    (version / "node").mkdir()
    shutil.copy(bundled / "000-crds.yaml", version / "000-crds.yaml")
    shutil.copy(bundled / "001-typha.yaml", version / "typha" / "001-typha.yaml")
    shutil.copy(bundled / "002-calico.yaml", version / "node" / "002-calico.yaml")
    (version / "003-broken.yml").write_text("broken: {{ .x\n")
    root = str(tmp_path)

    r = run(capsys, "--manifests", root, "--version", "v3.31.3", "--nodes", "601", "--no-validate")
    assert r.code == 0, r.err
    assert "# Source: calico/v3.31.3/typha/001-typha.yaml" in r.out
    assert _typha_deployment(r.out) is not None

    r = run(capsys, "versions", "--manifests", root, "--keys", "--format", "json")
    assert r.code == 0, r.err
    (entry,) = json.loads(r.out)["versions"]
    assert entry["files"] == ["000-crds.yaml", "node/002-calico.yaml", "typha/001-typha.yaml"]
    assert "typhaReplicas" in entry["keys"]

    r = run(capsys, "capability", "--manifests", root, "--version", "v3.31.3", "--format", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["capable"] is True

    r = run(capsys, "images", "--manifests", root, "--version", "v3.31.3")
    assert r.code == 0, r.err
    assert "calico/cni:v3.31.3" in r.out and "calico/node:v3.31.3" in r.out

    r = run(capsys, "check", "--manifests", root, "--format", "json")
    assert "003-broken" not in r.out and "typha/001-typha.yaml" in r.out
