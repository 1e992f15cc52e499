"""Command-line interface: a thin layer over :mod:`renderer.api`.

Every command shares the exit codes of :mod:`renderer.errors` and prints bad input as
one line on stderr; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import sys
import traceback

import click

from ..errors import EXIT_BAD_INPUT, CalicoRenderError
from . import checkcmd, cluster, commands, gate  # noqa: F401  (registers the subcommands)
from .app import cli


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
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
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code if exc.exit_code else EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)


__all__ = ["cli", "main"]
