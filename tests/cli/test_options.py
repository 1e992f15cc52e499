"""Options several commands share: empty paths refused, formats offered per document,
the render timeout set before the command runs."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from renderer import output
from renderer.cli import cli
from renderer.cli.options import Decorator, PathType, format_option, render_timeout_option
from renderer.engine import limits
from renderer.output.documents import TyphaDocument
from tests.clihelp import run
from tests.gatehelp import bke_tree


@pytest.mark.parametrize("value", ["", b""])
def test_an_empty_path_is_refused(value: str | bytes) -> None:
    with pytest.raises(click.BadParameter):
        PathType(dir_okay=False, allow_dash=True).convert(value, None, None)


def test_dash_and_real_paths_pass(tmp_path: Path) -> None:
    assert PathType(dir_okay=False, allow_dash=True).convert("-", None, None) == "-"
    converted = PathType(file_okay=False, path_type=Path).convert(str(tmp_path), None, None)
    assert converted == tmp_path


def _echo_format(option: Decorator) -> click.Command:
    @click.command()
    @option
    def show(fmt: str) -> None:
        click.echo(fmt)

    return show


def test_format_offers_what_the_document_supports_text_by_default() -> None:
    command = _echo_format(format_option(TyphaDocument))
    assert CliRunner().invoke(command, []).output == "text\n"
    assert CliRunner().invoke(command, ["--format", "json"]).output == "json\n"
    for name in output.names(TyphaDocument):
        assert CliRunner().invoke(command, ["--format", name]).output == f"{name}\n"
    assert CliRunner().invoke(command, ["--format", "xml"]).exit_code == 2


def test_explicit_format_choices_limit_the_flag() -> None:
    command = _echo_format(format_option(["text"]))
    assert CliRunner().invoke(command, ["--format", "json"]).exit_code == 2


def test_render_timeout_is_set_before_the_command_and_must_be_positive() -> None:
    @click.command()
    @render_timeout_option
    def show() -> None:
        click.echo(limits.render_timeout())

    try:
        assert CliRunner().invoke(show, ["--render-timeout", "2.5"]).output == "2.5\n"
        assert CliRunner().invoke(show, ["--render-timeout", "0"]).exit_code == 2
    finally:
        limits.set_render_timeout(limits.DEFAULT_RENDER_TIMEOUT)


@pytest.mark.parametrize(
    "command",
    [
        ["versions", "--format", "json"],
        ["capability", "--version", "v3.28", "--format", "json"],
        ["check", "--format", "json", "--jobs", "1"],
    ],
)
def test_the_tree_in_the_current_directory_is_the_one_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """``cd bke-manifests && calico-render check`` checks that tree, not the bundled one;
    elsewhere the bundled tree is checked, and every header says which."""
    bke_tree(tmp_path / "bke")
    monkeypatch.chdir(tmp_path / "bke")
    data = json.loads(CliRunner().invoke(cli, command).stdout)
    assert data["manifests"] == "."
    if command[0] == "versions":
        assert [v["version"] for v in data["versions"]] == ["v3.28.2"]
    if command[0] == "check":  # the tree's own goldens: none yet
        assert data["golden"] == "golden/calico"
        assert [v["golden"]["status"] for v in data["versions"]] == ["missing"]
    monkeypatch.chdir(tmp_path)
    assert json.loads(CliRunner().invoke(cli, command).stdout)["manifests"] == "bundled tree"


def test_the_render_names_the_tree_it_rendered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bke_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = run(capsys, "--version", "v3.28", "--nodes", "5", "--no-validate")
    assert r.code == 0 and "calico-render: Calico v3.28.2 (.): allowTypha=false" in r.err
    monkeypatch.chdir(tmp_path / "kubernetes")
    r = run(capsys, "--version", "v3.28", "--nodes", "5", "--no-validate")
    assert "calico-render: Calico v3.28.2 (bundled tree): allowTypha=false" in r.err
