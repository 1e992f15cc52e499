"""Command-line interface: a thin layer over :mod:`renderer.api`.

Every command shares the exit codes of :mod:`renderer.errors` and prints bad input as
one line on stderr; ``--debug`` shows the traceback. An unexpected exception is still
reported as one line (exit 2), so no input can produce a traceback by default.
"""

from __future__ import annotations

import sys
import traceback

import click

from ..errors import EXIT_BAD_INPUT, CalicoRenderError
from . import (  # noqa: F401  (registers the subcommands)
    advise,
    checkcmd,
    cluster,
    commands,
    explain,
    gate,
    importcmd,
)
from .app import cli


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    if debug:  # accepted anywhere on the line, not only before the command
        args = ["--debug", *(a for a in args if a != "--debug")]
    try:
        code = cli.main(args=args, prog_name="calico-render", standalone_mode=False)
    except CalicoRenderError as exc:
        if debug:
            traceback.print_exc()
        click.echo(f"calico-render: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("calico-render: aborted", err=True)
        sys.exit(130)
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx is not None else "calico-render"
        message = exc.format_message()
        if "'--version' requires an argument" in message:
            message += " (the tool's own version is --tool-version)"
        click.echo(f"calico-render: error: {message} (see '{command} --help')", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except click.ClickException as exc:
        click.echo(f"calico-render: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code if exc.exit_code else EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(0)
    except KeyboardInterrupt:
        click.echo("calico-render: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # last resort: one line, never a traceback unless --debug
        if debug:
            traceback.print_exc()
        detail = str(exc).splitlines()[0] if str(exc) else ""
        click.echo(
            f"calico-render: internal error: {type(exc).__name__}"
            + (f": {detail}" if detail else "")
            + ("" if debug else " (run with --debug for the traceback)"),
            err=True,
        )
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(code if isinstance(code, int) else 0)


__all__ = ["cli", "main"]
