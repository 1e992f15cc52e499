"""``calico-render validate``: strict schema validation of rendered manifest files."""

from __future__ import annotations

import click

from renderer import api
from renderer.cli.app import cli
from renderer.cli.common import write_document
from renderer.cli.options import PathType, format_option, kube_version_option, no_cache_option
from renderer.output.documents import ValidateDocument


@cli.command(
    help="Schema-check rendered manifest FILEs (or - for stdin) in strict mode. "
    "Exit 1 on findings, 2 on unreadable or invalid YAML."
)
@click.argument("files", nargs=-1, required=True, type=PathType(dir_okay=False, allow_dash=True))
@kube_version_option
@no_cache_option
@format_option(ValidateDocument)
@click.pass_context
def validate(
    ctx: click.Context, files: tuple[str, ...], kube_versions: tuple[str, ...], fmt: str
) -> None:
    result = api.validate(files, kube_versions)
    doc = ValidateDocument(files, result.kube_versions, result.objects, result.findings)
    write_document(fmt, doc)
    if fmt == "text":
        click.echo(doc.summary(), err=True)
    ctx.exit(1 if doc.errors else 0)
