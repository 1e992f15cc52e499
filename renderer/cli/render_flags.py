"""The render's options, in the order ``--help`` lists them: declared on the group (it
renders without a subcommand) and on the ``render`` subcommand alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from renderer.calico.policy import OPERATIONS
from renderer.cli.options import (
    Decorator,
    PathType,
    config_option,
    kube_version_option,
    manifests_option,
    no_cache_option,
    nodes_file_option,
    render_timeout_option,
    repo_option,
    set_option,
    values_option,
)

RENDER_HELP = (
    "Render and gate BKE's Calico manifests.\n\n"
    "Without a command, renders --version for --nodes to stdout (or --output-dir), "
    "with the Typha decision on stderr; with --config, every addon the BKECluster "
    "lists, in the controller's order. Rendered objects are schema-checked (strict; "
    "custom resources against the CRDs of the tree) first; invalid output is not "
    "written and exits 1."
)

#: The render's options, in the order ``--help`` lists them.
_OPTIONS: tuple[Decorator, ...] = (
    click.option(
        "--version",
        "version",
        metavar="V",
        help="Calico version: v3.28.2, or v3.28 for the newest patch.",
    ),
    click.option(
        "--nodes", type=click.IntRange(min=1), metavar="N", help="Node count of the cluster."
    ),
    manifests_option,
    render_timeout_option,
    repo_option,
    set_option,
    values_option,
    click.option(
        "--operation",
        type=click.Choice(OPERATIONS),
        default="install",
        show_default=True,
        help="install, or upgrade/rollback of an existing cluster.",
    ),
    click.option(
        "--output-dir",
        type=PathType(file_okay=False, path_type=Path),
        help="Write one file per template into DIR (with --config: DIR/<addon>/<version>/).",
    ),
    click.option(
        "--no-validate",
        is_flag=True,
        help="Skip strict schema validation of the rendered objects.",
    ),
    kube_version_option,
    no_cache_option,
    config_option(
        "BKECluster/BKEConfig YAML: render every addon it lists (in the controller's "
        "order), each with its version, params and the image prefix."
    ),
    click.option(
        "--addon",
        "addons",
        multiple=True,
        metavar="NAME",
        help="With --config: render only this listed addon (repeatable).",
    ),
    nodes_file_option("BKENode objects (multi-document or a List): the node count (--nodes wins)."),
    click.option(
        "--strict",
        is_flag=True,
        help="Exit 2 when a given param is read by no template of the version, or its "
        "value takes none of the branches the templates have; a custom resource of a kind "
        "no CRD of the tree defines is an error (for CI).",
    ),
    click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="text: the manifest on stdout, the decision and findings on stderr; json: "
        "the decision, routing, findings, pre-pulled images and written files as JSON on "
        "stdout (with --config: a section per addon; schema: calico-render schema "
        "render-result), the manifest only in --output-dir.",
    ),
)


def render_options(f: Any) -> Any:
    """Declare the render's options on the group (it renders without a subcommand)."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f
