"""``explain-context``: the context each template file receives, and where each value
came from (controller default, BKECluster field, BKENodes, addon param, per-file addon
param, bkeadm default, user ``--set``/``--values``/``--repo``, Typha policy)."""

from __future__ import annotations

from pathlib import Path

import click

from renderer import api
from renderer.api.request import cluster_inputs
from renderer.bke.args import RenderArgs
from renderer.cli import requests
from renderer.cli.app import cli
from renderer.cli.common import (
    config_keys,
    given_params,
    note,
    warn,
    write_document,
)
from renderer.cli.options import (
    config_option,
    format_option,
    manifests_option,
    nodes_file_option,
    repo_option,
    set_option,
    strict_option,
    values_option,
)
from renderer.errors import InputError
from renderer.output.documents import ExplainDocument


@cli.command(
    "explain-context",
    help="Show the context each template file of a version receives, built by BKE's "
    "controller rules, and where each value came from. Nothing is rendered.",
)
@click.option("--version", "version", metavar="V", help="Calico version (default: the config's).")
@config_option("BKECluster/BKEConfig YAML: common parameters, addon params and image prefix.")
@nodes_file_option("BKENode objects: node count and roles (--nodes wins for the count).")
@click.option("--nodes", type=click.IntRange(min=1), metavar="N", help="Node count.")
@manifests_option
@repo_option
@set_option
@values_option
@strict_option
@format_option(ExplainDocument)
def explain_context(
    version: str | None,
    config: str | None,
    nodes_file: str | None,
    nodes: int | None,
    root: Path | None,
    repo: str | None,
    sets: tuple[str, ...],
    values_file: str | None,
    strict: bool,
    fmt: str,
) -> None:
    config_keys(strict, config, nodes_file)
    if config is None:
        if version is None:
            raise InputError("give --version (or --config)", key="--version")
        inventory = requests.node_inventory(nodes_file) if nodes_file else None
        count = nodes if nodes is not None else (inventory.count if inventory else None)
        args = RenderArgs(version, count, repo, {}, inventory=inventory)
    else:
        inputs = cluster_inputs(
            config, nodes_file=nodes_file, nodes=nodes, root=root, check_version=version is None
        )
        for message in inputs.notes:
            note(message)
        if inputs.addon is None:
            return
        chosen = version or (inputs.version.name if inputs.version else inputs.addon.version)
        args = RenderArgs(
            chosen, inputs.nodes, repo, {}, cluster=inputs, inventory=inputs.inventory
        )
    if args.nodes is None:
        raise InputError(
            "give --nodes or --nodes-file: the Typha decision needs a node count", key="--nodes"
        )
    assert args.version is not None
    request = api.Request.of(
        args.version,
        args.nodes,
        root=root,
        values_file=values_file,
        sets=sets,
        repo=repo,
        strict=strict,
        cluster=args,
    )
    result = api.explain_context(request)
    if fmt == "text":
        for message in result.warnings:
            warn(message)
    write_document(fmt, ExplainDocument(result))
    given_params(result.param_warnings, strict, show=False)
