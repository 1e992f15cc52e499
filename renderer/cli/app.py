"""The ``calico-render`` group: it loads each subcommand's module on first use, and
without a subcommand renders a version (:mod:`renderer.cli.render`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import click

from renderer import __version__
from renderer.cli.common import ReaderGone, emit, note, warn
from renderer.cli.examples import epilog
from renderer.cli.render import render
from renderer.cli.render_flags import RENDER_HELP, render_options

#: Subcommand -> the module of this package that defines it, imported on first use (so a
#: command pays only for its own imports). A module imported here instead, the usual
#: click way, registers its commands as before.
LAZY_COMMANDS = {
    "advise": ".advise",
    "capability": ".capability",
    "check": ".check",
    "explain-context": ".explain_context",
    "images": ".images",
    "import": ".import_",
    "plan": ".plan",
    "rules": ".rules",
    "schema": ".schema",
    "template": ".template",
    "typha": ".typha",
    "validate": ".validate",
    "version": ".version",
    "versions": ".versions",
}

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that command is used.

    ``lazy`` maps a command name to the module (relative to this package) whose
    ``@cli.command`` defines it, so ``calico-render typha`` never imports the gate, the
    process pool or the schema validator. Commands registered by importing their module
    up front (the usual click way) keep working alongside.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}

    def invoke(self, ctx: click.Context) -> Any:
        """A closed pipe is the reader leaving, whichever stream and command: the same
        quiet exit 0 every time (click itself would exit 1)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise ReaderGone from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            importlib.import_module(self.lazy[cmd_name], __package__)
        command = self.commands.get(cmd_name)
        if command is not None and command.epilog is None:
            command.epilog = epilog(cmd_name)
        return command


def _group(**kwargs: Any) -> Callable[[Callable[..., Any]], LazyGroup]:
    return click.group(cls=LazyGroup, **kwargs)


def refuse_options_before(ctx: click.Context) -> None:
    """The render's options given before a subcommand: silently ignoring them could gate
    the wrong tree."""
    given = [
        p.opts[0]
        for p in ctx.command.params
        if p.name not in (None, "debug")
        and ctx.get_parameter_source(p.name) is not click.core.ParameterSource.DEFAULT
    ]
    if given:
        raise click.UsageError(
            f"{', '.join(given)} given before '{ctx.invoked_subcommand}' would be "
            "ignored; put the command's options after its name"
        )


@_group(
    context_settings=CONTEXT_SETTINGS,
    invoke_without_command=True,
    help=RENDER_HELP,
    epilog=epilog(""),
)
@render_options
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option(
    __version__, "--tool-version", prog_name="calico-render", message="%(prog)s %(version)s"
)
@click.pass_context
def cli(ctx: click.Context, /, debug: bool, **params: Any) -> None:
    if ctx.invoked_subcommand is not None:
        refuse_options_before(ctx)
        return
    render(ctx, **params)


@cli.command("render", help=RENDER_HELP)
@render_options
@click.pass_context
def render_command(ctx: click.Context, /, **params: Any) -> None:
    """``calico-render render``: the default command by its name, as ``helm template``."""
    render(ctx, **params)


cli.lazy.update(LAZY_COMMANDS)


__all__ = ["LazyGroup", "cli", "emit", "note", "warn"]
