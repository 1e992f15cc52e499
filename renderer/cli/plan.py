"""``calico-render plan``: an upgrade, rollback or scale change as gated phases."""

from __future__ import annotations

from pathlib import Path

import click

from renderer import api
from renderer.cli import requests
from renderer.cli.app import cli
from renderer.cli.common import given_params, note, warn, write_document
from renderer.cli.options import (
    PathType,
    format_option,
    manifests_option,
    no_cache_option,
    render_timeout_option,
    repo_option,
    set_option,
    strict_option,
    values_option,
)
from renderer.output.documents import PlanDocument, nothing_to_change


@cli.command(help="Plan an upgrade, rollback or scale change as gated phases.")
@manifests_option
@render_timeout_option
@no_cache_option
@click.option("--to-version", required=True, metavar="B", help="Target Calico version.")
@click.option("--from-version", metavar="A", help="Running Calico version (default: B).")
@click.option(
    "--nodes", required=True, type=click.IntRange(min=1), metavar="N", help="Target node count."
)
@click.option(
    "--from-nodes",
    type=click.IntRange(min=1),
    metavar="M",
    help="Current node count (default: N).",
)
@repo_option
@values_option
@set_option
@click.option(
    "--output-dir",
    type=PathType(file_okay=False, path_type=Path),
    help="Write one manifest per phase (and delete lists), named in order, plus plan.json.",
)
@strict_option
@format_option(PlanDocument)
def plan(
    root: Path | None,
    to_version: str,
    from_version: str | None,
    nodes: int,
    from_nodes: int | None,
    repo: str | None,
    values_file: str | None,
    sets: tuple[str, ...],
    output_dir: Path | None,
    strict: bool,
    fmt: str,
) -> None:
    request = requests.named(
        "to_version",
        api.Request.of,
        to_version,
        nodes,
        root=root,
        values_file=values_file,
        sets=sets,
        repo=repo,
        strict=strict,
    )
    result = api.plan(request, from_version=from_version, from_nodes=from_nodes)
    given_params(api.param_warnings(request), strict)
    data = PlanDocument(result).data()
    # given params are applied even when nothing else changes
    unchanged = not sets and values_file is None and nothing_to_change(data)
    if fmt == "text" and unchanged:
        for finding in data["findings"]:
            warn(finding["message"])
        write_document(fmt, PlanDocument(result, unchanged=True))
        return
    if output_dir is not None:
        for path in requests.write_files(output_dir, result.files(data)):
            note(f"wrote {path}")
    if fmt == "text":
        for finding in data["findings"]:
            warn(finding["message"])
    write_document(fmt, PlanDocument(result))
