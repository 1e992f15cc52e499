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


def test_a_light_command_imports_nothing_heavy() -> None:
    loaded = _modules_after("typha", "--nodes", "601")
    assert not [m for m in HEAVY if m in loaded]


def test_the_gate_is_imported_by_check_only() -> None:
    assert "renderer.checks.runner" not in _modules_after("validate", "--help")
    assert "renderer.checks.report" in _modules_after("check", "--help")


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


def test_validate_loads_no_template_engine(tmp_path: Path) -> None:
    """Validating rendered files needs YAML and schemas, not the engines or BKE's
    context rules: the library API loads those when a render asks for them."""
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    loaded = _modules_after("validate", str(manifest))
    assert "renderer.api" in loaded and "renderer.k8s.schema" in loaded
    assert not [
        m for m in ("jinja2", "renderer.engine.compile", "renderer.bke.context") if m in loaded
    ]


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
        # the render asked for is one of the capability verdict's: still written on the
        # first run, though the verdict's renders are not
        (["--version", "v3.28"], "v3.28.2"),
    ],
)
def test_a_warm_render_loads_no_schema_library_engine_or_difflib(
    tmp_path: Path, args: list[str], version: str
) -> None:
    """Warm after one run: the second run is served from what the first one wrote. The
    first, cold, run loads only what its templates need."""
    cold, cold_modules = _render_in_process(tmp_path, args)
    assert "decimal" not in cold_modules  # loaded to print a float: these templates print none
    warm, warm_modules = _render_in_process(tmp_path, args)
    assert warm == cold and warm.startswith(f"---\n# Source: calico/{version}/".encode())
    unneeded = ("jsonschema", "referencing", "jinja2", "difflib", "traceback")
    unneeded += ("renderer.engine.gotemplate", "renderer.output")  # kept by content; no finding
    unneeded += ("ruamel.yaml", "renderer.k8s.load")  # parses come back from the cache
    unneeded += ("renderer.k8s.yamlio", "base64")  # locators never asked, nothing split
    unneeded += ("renderer.calico.capability", "renderer.checks.pipeline", "secrets")
    unneeded += ("renderer.bke.cluster", "renderer.bke.crdkeys")  # no --config/--nodes-file
    unneeded += ("renderer.api.verb_results",)  # the other verbs' results
    assert [m for m in unneeded if m in warm_modules] == []
