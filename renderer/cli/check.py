"""``calico-render check``: the pre-merge release gate over every version of a tree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from renderer import api
from renderer import output as formats
from renderer.checks.runner import NothingToUpdate
from renderer.cli import options as opts
from renderer.cli.app import cli
from renderer.cli.common import write_report_document
from renderer.errors import EXIT_CHECK_FAILED, InputError
from renderer.output import check_text
from renderer.output import html as _html  # noqa: F401  (registers --format html)
from renderer.output.check import CheckDocument

if TYPE_CHECKING:
    from renderer.checks.report import VersionResult


def interactive() -> bool:
    """Progress lines only for a person watching a terminal, never in logs or pipes."""
    return sys.stderr.isatty()


def _root(ctx: click.Context, tree: Path | None, root: Path | None) -> Path | None:
    """ROOT given positionally or as ``--manifests`` (both: they must agree)."""
    if tree is None:
        return root
    given = ctx.get_parameter_source("root") is not click.core.ParameterSource.DEFAULT
    if given and root is not None and root.resolve() != tree.resolve():
        raise click.UsageError(f"ROOT {tree} and --manifests {root} name different trees")
    return tree


@cli.command(
    help="The release gate: for every version of every addon under ROOT (kubernetes/"
    "<addon>/<version>/), parse the templates, render the scenarios derived from their "
    "branches (every addon but Calico with the context BKE's controller builds from a "
    "representative BKECluster), name the keys that context lacks, validate the "
    "rendered objects against the Kubernetes schemas, and compare each scenario's render "
    "with its golden; for Calico also check the Typha capability contract and release "
    "rules, and with --upstream compare each version with upstream Calico's manifests "
    "of its tag. ROOT (or --manifests ROOT) defaults to the current directory when it "
    "holds kubernetes/calico/, else the bundled tree. "
    "Exit 0 when all pass, 1 on any failure, 2 on bad input."
)
@click.argument(
    "tree", metavar="[ROOT]", required=False, type=opts.PathType(file_okay=False, path_type=Path)
)
@opts.manifests_option
@opts.render_timeout_option
@click.option(
    "--golden",
    type=opts.PathType(file_okay=False, path_type=Path),
    default=None,
    help="Calico's golden directory, holding <version>/ (default: ROOT/golden/calico; the "
    "bundled tree's own goldens for the bundled tree); every other addon's goldens are "
    "ROOT/golden/<addon>/.",
)
@click.option(
    "--addon",
    "addons",
    multiple=True,
    metavar="NAME",
    help="Check this addon of the tree (kubernetes/NAME/; repeatable; default: every addon).",
)
@opts.config_option(
    "The BKECluster every addon but Calico renders with, as BKE's controller builds its "
    "context (a create request holds its BKENodes too; default: the example create "
    "request the package ships)."
)
@opts.kube_version_option
@opts.no_cache_option
@click.option("--update-golden", is_flag=True, help="Rewrite goldens that differ or are missing.")
@opts.format_option(sorted(formats.names(CheckDocument)))  # check has always listed them sorted
@opts.output_option
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Versions checked in parallel, of every addon (default: the CPU count).",
)
@opts.pipeline_options
@opts.coverage_strict_option
@click.pass_context
def check(
    ctx: click.Context,
    tree: Path | None,
    root: Path | None,
    golden: Path | None,
    addons: tuple[str, ...],
    config: Path | None,
    kube_versions: tuple[str, ...],
    update_golden: bool,
    fmt: str,
    output: Path | None,
    jobs: int | None,
    upstream: Path | None,
    exceptions_file: Path | None,
    strict: bool,
) -> None:
    root = _root(ctx, tree, root)
    options = api.check_options(
        root=root,
        golden=golden,
        kube_versions=kube_versions,
        update=update_golden,
        jobs=jobs,
        upstream=upstream,
        exceptions_file=exceptions_file,
        strict=strict,
        addons=addons,
        config=config,
    )
    show_progress = fmt == "text" and interactive()

    def progress(result: VersionResult) -> None:
        click.echo(check_text.progress_line(result), err=True)

    try:
        result = api.check(options, progress if show_progress else None)
    except InputError as exc:
        if not refused_update(exc):
            raise
        raise InputError(exc.message, file=exc.file, key="--update-golden") from None
    # JSON is checked against its schema; library wording becomes the CLI's
    write_report_document(fmt, CheckDocument(result), output, options)
    if not result.passed:
        sys.exit(EXIT_CHECK_FAILED)


def refused_update(error: InputError) -> bool:
    """Whether ``error`` is :func:`check` refusing to update the goldens of a tree
    without versions (which would remove them all)."""
    return isinstance(error, NothingToUpdate)
