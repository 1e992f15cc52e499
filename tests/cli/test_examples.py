"""Help that teaches: every command's --help ends with real examples (each parses with
the CLI), every command and option has help text, short flags as Helm has them."""

from __future__ import annotations

import shlex

import click
import pytest

from renderer.cli import LAZY_COMMANDS, cli
from renderer.cli.examples import EXAMPLES, command_lines
from tests.clihelp import run

COMMANDS = ["", *sorted(LAZY_COMMANDS)]


def _command(name: str) -> click.Command:
    if not name:
        return cli
    ctx = click.Context(cli)
    command = cli.get_command(ctx, name)
    assert command is not None
    return command


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_and_option_has_help_text(name: str) -> None:
    command = _command(name)
    assert (command.help or "").strip(), f"{name or 'calico-render'} has no help"
    missing = [
        p.opts[0]
        for p in command.params
        if isinstance(p, click.Option) and not (p.help or "").strip()
    ]
    assert not missing, f"{name or 'calico-render'}: options without help: {missing}"


@pytest.mark.parametrize("name", COMMANDS)
def test_help_ends_with_two_or_three_examples(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = command_lines(name)
    assert 2 <= len(lines) <= 3
    r = run(capsys, *([name] if name else []), "--help")
    assert r.code == 0
    tail = r.out[r.out.rindex("Examples:") :]
    assert [
        line.strip() for line in tail.splitlines() if line.strip().startswith("calico-")
    ] == lines


@pytest.mark.parametrize(
    "line", [line for name in EXAMPLES for line in command_lines(name)], ids=lambda s: s[:60]
)
def test_every_example_parses_with_the_cli(line: str) -> None:
    """Each command of an example (a pipe's too) names a command and options that exist,
    with values they accept: parsed by click, not run."""
    for part in line.split("|"):
        argv = shlex.split(part)[1:]
        if argv and argv[0] in LAZY_COMMANDS:  # a command: parsed strictly, not run
            _command(argv[0]).make_context(argv[0], argv[1:], parent=click.Context(cli))
        else:  # the render, the default command
            cli.make_context("calico-render", argv)


def test_short_flags_as_helm_has_them(capsys: pytest.CaptureFixture[str]) -> None:
    for name, flag in (("check", "--output"), ("validate", "--output"), ("capability", "--output")):
        opts = {o for p in _command(name).params for o in getattr(p, "opts", [])}
        assert {"-o", flag} <= opts, name
    for name in ("", "advise", "plan", "template", "explain-context"):
        opts = {o for p in _command(name).params for o in getattr(p, "opts", [])}
        assert {"-f", "--values"} <= opts, name
