"""``renderer.cli.main``: exit codes and one-line errors, whatever the command."""

from __future__ import annotations

import pytest

from renderer import __version__
from renderer.calico import policy
from tests.clihelp import one_error, run


def test_tool_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--tool-version")
    assert r.code == 0 and r.out.strip() == f"calico-render {__version__}"


def test_unexpected_exception_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(nodes: int) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(policy, "decide_typha", boom)
    r = run(capsys, "typha", "--nodes", "5")
    assert r.code == 2
    assert r.err.strip() == (
        "calico-render: internal error: KeyError: 'surprise' (run with --debug for the traceback)"
    )
    r = run(capsys, "typha", "--nodes", "5", "--debug")
    assert "Traceback" in r.err


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["typha", "--nodes", "0"], ["check", "--format", "xml"], ["--version", "v3.28"]):
        one_error(run(capsys, *args))


def test_version_without_a_value_hints_at_tool_version(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version")
    assert "--tool-version" in one_error(r)  # a usage error that names the other flag
