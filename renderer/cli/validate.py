"""``calico-render validate``: strict schema validation of rendered manifest files."""

from __future__ import annotations

import click

from renderer import api
from renderer.cli.app import cli
from renderer.cli.options import PathType, format_option, kube_version_option, no_cache_option
from renderer.k8s.schema import finding_text


@cli.command(
    help="Schema-check rendered manifest FILEs (or - for stdin) in strict mode. "
    "Exit 1 on findings, 2 on unreadable or invalid YAML."
)
@click.argument("files", nargs=-1, required=True, type=PathType(dir_okay=False, allow_dash=True))
@kube_version_option
@no_cache_option
@format_option()
@click.pass_context
def validate(
    ctx: click.Context, files: tuple[str, ...], kube_versions: tuple[str, ...], fmt: str
) -> None:
    result = api.validate(files, kube_versions)
    kube = result.kube_versions
    if fmt == "json":
        from renderer.output import summaries

        doc = summaries.validate_doc(files, kube, result.objects, result.findings)
        click.echo(summaries.dumps(summaries.VALIDATE, doc))
        ctx.exit(1 if doc["errors"] else 0)
    for f in result.findings:
        click.echo(finding_text(f))
    bad = result.errors
    click.echo(
        f"{result.objects} object(s) in {len(files)} file(s) on Kubernetes {', '.join(kube)}: "
        f"{len(bad)} error(s)",
        err=True,
    )
    ctx.exit(1 if bad else 0)
