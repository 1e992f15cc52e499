"""``calico-render version``: the tool's version, as ``--tool-version`` prints it, and in
JSON the report version the tool's JSON reports carry."""

from __future__ import annotations

import json

import pytest

from renderer import __version__
from renderer.output.check import CHECK_REPORT_VERSION
from renderer.output.findings import REPORT_VERSION
from tests.clihelp import one_error, run


def test_version_command_is_the_tool_version(capsys: pytest.CaptureFixture[str]) -> None:
    flag = run(capsys, "--tool-version")
    command = run(capsys, "version")
    assert flag.code == command.code == 0
    assert flag.out == command.out == f"calico-render {__version__}\n"
    data = json.loads(run(capsys, "version", "--format", "json").out)
    assert (data["tool_version"], data["report_version"]) == (__version__, 2)
    assert data["check_report_version"] == 3


def test_the_json_names_the_tool_and_nothing_else(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "version", "--format", "json")
    assert (r.code, r.err) == (0, "")
    assert json.loads(r.out) == {
        "tool": "calico-render",
        "tool_version": __version__,
        "report_version": REPORT_VERSION,
        "check_report_version": CHECK_REPORT_VERSION,
    }


@pytest.mark.parametrize("fmt", ["junit", "sarif", "yaml"])
def test_formats_other_than_text_and_json_are_usage_errors(
    capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    r = run(capsys, "version", "--format", fmt)
    one_error(r)
    assert r.out == ""
