"""``calico-render versions``: the versions of a tree with their Typha capability."""

from __future__ import annotations

from pathlib import Path

import click

from renderer import api
from renderer.cli.app import cli
from renderer.cli.common import warn, write_document
from renderer.cli.options import (
    format_option,
    manifests_option,
    no_cache_option,
    render_timeout_option,
)
from renderer.output.documents import VersionsDocument


@cli.command(help="List the Calico versions under ROOT with their Typha capability.")
@manifests_option
@render_timeout_option
@no_cache_option
@click.option("--keys", is_flag=True, help="Also list the context keys each version reads.")
@format_option(VersionsDocument)
def versions(root: Path | None, keys: bool, fmt: str) -> None:
    doc = VersionsDocument.of(api.versions(root, keys=keys))
    if fmt == "text":
        for message in doc.warnings:
            warn(message)
    write_document(fmt, doc)
