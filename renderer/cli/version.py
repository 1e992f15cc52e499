"""``calico-render version``: the tool's version (as ``--tool-version`` prints it), and
the report versions its JSON reports carry (``check``'s, grouped by addon, is its own)."""

from __future__ import annotations

import json

import click

from renderer import __version__
from renderer.cli.app import cli, emit
from renderer.cli.options import format_option
from renderer.output.check import CHECK_REPORT_VERSION
from renderer.output.findings import REPORT_VERSION


@cli.command(help="Print calico-render's version (the same as --tool-version).")
@format_option(["text", "json"])
def version(fmt: str) -> None:
    if fmt == "json":
        data = {
            "tool": "calico-render",
            "tool_version": __version__,
            "report_version": REPORT_VERSION,
            "check_report_version": CHECK_REPORT_VERSION,
        }
        emit(json.dumps(data, indent=2) + "\n")
    else:
        click.echo(f"calico-render {__version__}")
