"""Adversarial input at the CLI: every case is exit 2 with one line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from .clihelp import run

TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"


def _tree(tmp_path: Path) -> Path:
    version = tmp_path / "root" / "kubernetes" / "calico" / "v3.28.2"
    version.mkdir(parents=True)
    (version / "calico.yaml").write_text(TEMPLATE)
    return tmp_path / "root"


def test_symlinked_version_outside_root_is_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "calico.yaml").write_text("secret: hunter2\n")
    (root / "kubernetes" / "calico" / "v3.99.0").symlink_to(outside)
    r = run(capsys, "--manifests", str(root), "--version", "v3.99.0", "--nodes", "3")
    assert r.code == 2 and r.out == "" and "hunter2" not in r.err
    assert len(r.err.splitlines()) == 1 and "v3.99.0" in r.err and str(outside) in r.err


def test_file_name_with_newline_cannot_add_objects(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    name = "calico.yaml\n---\napiVersion: v1\nkind: Secret\n#.yaml"
    (root / "kubernetes" / "calico" / "v3.28.2" / name).write_text(TEMPLATE)
    r = run(capsys, "--manifests", str(root), "--version", "v3.28.2", "--nodes", "3")
    assert r.code == 2 and r.out == "" and len(r.err.splitlines()) == 1


@pytest.mark.parametrize(
    "value",
    [
        'ipAutoDetectionMethod=x"\n  - name: FELIX_BPFENABLED\n    value: "true',
        "ipAutoDetectionMethod=eth0",
        'podNote=a"b',
        "ClusterCidr.Ipv6=fd00::/56\n---\nkind: Secret",
    ],
)
def test_injecting_set_values_are_exit_2_naming_the_key(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    r = run(capsys, "--version", "v3.31", "--nodes", "3", "--set", value, "--no-validate")
    key = value.split("=", 1)[0]
    assert r.code == 2 and r.out == ""
    assert len(r.err.splitlines()) == 1 and f"{key}:" in r.err
