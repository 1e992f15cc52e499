"""``calico-render validate``: strict schema validation of manifest files, as kubeconform
does it (files, directories and stdin; kinds skipped or rejected; a summary)."""

from __future__ import annotations

from pathlib import Path

import click

from renderer import api
from renderer.cli import options as opts
from renderer.cli.app import cli
from renderer.cli.common import write_report_document
from renderer.output.documents import ValidateDocument


@cli.command(
    help="Schema-check manifest FILEs, directories (recursively: *.yaml, *.yml, *.json; "
    "hidden files skipped) or - (stdin) against the Kubernetes schemas in strict mode, "
    "and custom resources against the CustomResourceDefinitions they hold (and --crds). "
    "Exit 1 on findings of severity error, 2 on unreadable or invalid YAML.",
)
@click.argument(
    "paths", nargs=-1, required=True, type=opts.PathType(allow_dash=True), metavar="PATH..."
)
@opts.kube_version_option
@click.option(
    "--skip",
    "skip",
    multiple=True,
    metavar="KIND[,KIND]",
    help="Count objects of these kinds but do not check them (repeatable).",
)
@click.option(
    "--reject",
    "reject",
    multiple=True,
    metavar="KIND[,KIND]",
    help="Report every object of these kinds as an error (repeatable).",
)
@click.option(
    "--crds",
    "crds",
    multiple=True,
    type=opts.PathType(),
    metavar="DIR|FILE",
    help="More CustomResourceDefinitions to check custom resources against (repeatable; "
    "directories walked as PATHs are), after those of the files checked.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="A custom resource of a kind no CustomResourceDefinition defines is an error "
    "(default: counted as not checked).",
)
@click.option(
    "--summary",
    is_flag=True,
    help="Print the summary line (resources valid, invalid, skipped; findings) to stderr "
    "in every format; text always prints it.",
)
@opts.no_cache_option
@opts.format_option(ValidateDocument)
@opts.output_option
@click.pass_context
def validate(
    ctx: click.Context,
    paths: tuple[str, ...],
    kube_versions: tuple[str, ...],
    skip: tuple[str, ...],
    reject: tuple[str, ...],
    crds: tuple[str, ...],
    strict: bool,
    summary: bool,
    fmt: str,
    output: Path | None,
) -> None:
    result = api.validate(paths, kube_versions, skip=skip, reject=reject, crds=crds, strict=strict)
    doc = ValidateDocument(result)
    write_report_document(fmt, doc, output)
    if fmt == "text" or summary:
        click.echo(doc.summary(), err=True)
    ctx.exit(1 if doc.errors else 0)
