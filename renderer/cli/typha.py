"""``calico-render typha``: the Typha decision for a node count, or the boundary table."""

from __future__ import annotations

import click

from renderer import api
from renderer.cli.app import cli
from renderer.cli.common import warn, write_document
from renderer.cli.options import format_option
from renderer.output.documents import TyphaDocument


@cli.command(help="Explain the Typha decision for --nodes, or print the boundary table.")
@click.option(
    "--nodes",
    type=click.IntRange(min=1),
    metavar="N",
    help="Node count to decide for (default: print the table of boundary node counts).",
)
@format_option(TyphaDocument)
def typha(nodes: int | None, fmt: str) -> None:
    doc = TyphaDocument.of(api.typha(nodes))
    if fmt == "text":
        for message in doc.warnings:
            warn(message)
    write_document(fmt, doc)
