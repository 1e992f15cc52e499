"""``calico-render capability``: the release check of one version."""

from __future__ import annotations

from pathlib import Path

import click

from renderer import api
from renderer.cli import options as opts
from renderer.cli.app import cli
from renderer.cli.common import write_report_document
from renderer.output import html as _html  # noqa: F401  (registers --format html)
from renderer.output.capability import CapabilityDocument


@cli.command(
    help="Check a version for release: Typha capability contract, release rules and strict "
    "schema validation (and, with --upstream, fidelity to upstream Calico's manifests). "
    "Exit 0 when release-ready, 1 when not, 2 on bad input.",
)
@click.option("--version", "version", required=True, metavar="V", help="Calico version.")
@opts.manifests_option
@opts.render_timeout_option
@opts.kube_version_option
@opts.no_cache_option
@opts.format_option(CapabilityDocument)
@opts.output_option
@opts.pipeline_options
@opts.coverage_strict_option
@click.pass_context
def capability(
    ctx: click.Context,
    version: str,
    root: Path | None,
    kube_versions: tuple[str, ...],
    fmt: str,
    output: Path | None,
    upstream: Path | None,
    exceptions_file: Path | None,
    strict: bool,
) -> None:
    report = api.capability(
        version,
        root=root,
        kube_versions=kube_versions,
        exceptions_file=exceptions_file,
        upstream=upstream,
        strict=strict,
    )
    write_report_document(fmt, CapabilityDocument(report), output)
    ctx.exit(0 if report.release_ready else 1)
