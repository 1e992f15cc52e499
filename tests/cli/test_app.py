"""The command group: subcommands load on first use, registration stays open."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from renderer.cli import LAZY_COMMANDS, cli
from tests.clihelp import one_error, run

HEAVY = (
    "renderer.checks.runner",
    "renderer.calico.plan",
    "concurrent.futures.process",
    "kubernetes_validate",
    "jsonschema",
)


def _modules_after(*args: str) -> set[str]:
    code = (
        "import json, sys\n"
        "from renderer.cli import main\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


def test_every_listed_command_resolves() -> None:
    ctx = click.Context(cli)
    assert set(LAZY_COMMANDS) <= set(cli.list_commands(ctx))
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in LAZY_COMMANDS:
        assert f"  {name} " in result.output


def test_a_command_registered_the_usual_way_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "commands", dict(cli.commands))

    @cli.command(name="hello-test")
    def hello() -> None:
        click.echo("hello")

    result = CliRunner().invoke(cli, ["hello-test"])
    assert (result.exit_code, result.output) == (0, "hello\n")
    assert "hello-test" in cli.list_commands(click.Context(cli))


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--manifests", "/tmp", "check"], "--manifests"),
        (["--nodes", "601", "typha"], "--nodes"),
        (["--kube-version", "1.25", "validate", "-"], "--kube-version"),
    ],
)
def test_options_before_a_command_are_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    r = run(capsys, *args)
    message = one_error(r)  # a usage error: the option, and where it belongs
    assert named in message and "after its name" in message and r.out == ""


REAL_TREE = Path(__file__).resolve().parents[1] / "fixtures" / "bke-real"


def _render_in_process(cache: Path, args: list[str]) -> tuple[bytes, set[str]]:
    """A whole-process 601-node render: its stdout and its modules."""
    code = (
        "import json, os, sys\n"
        "from renderer.cli import main\n"
        "try:\n"
        f"    main({[*args, '--nodes', '601']!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout.flush()\n"
        "os.write(2, ('\\n' + json.dumps(sorted(sys.modules)) + '\\n').encode())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CALICO_RENDER_")}
    env["CALICO_RENDER_CACHE_DIR"] = str(cache)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, check=True)
    modules = set(json.loads(result.stderr.decode().strip().splitlines()[-1]))
    return result.stdout, modules


@pytest.mark.parametrize(
    ("args", "version"),
    [
        (["--manifests", str(REAL_TREE), "--version", "v3.31.3"], "v3.31.3"),
        (["--version", "v3.28"], "v3.28.2"),
    ],
)
def test_a_render_answered_from_the_cache_prints_what_a_cold_one_printed(
    tmp_path: Path, args: list[str], version: str
) -> None:
    cold, _ = _render_in_process(tmp_path, args)
    warm, _ = _render_in_process(tmp_path, args)
    assert warm == cold and warm.startswith(f"---\n# Source: calico/{version}/".encode())
