"""``calico-render validate``: strict schema validation of rendered files."""

from __future__ import annotations

import pytest

from tests.clihelp import run
from tests.gatehelp import BROKEN, TREE

ROOT = str(TREE)


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
