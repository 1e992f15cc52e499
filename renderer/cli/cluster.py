"""Subcommands for BKE clusters: images (what nodes pre-pull) and plan (phased changes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from renderer import api
from renderer.bke import context as bke_context
from renderer.bke.cluster import RenderArgs, resolve_inputs
from renderer.bke.unread import ParamWarning
from renderer.calico.images import IMAGES_SCHEMA, ROLES, no_calico, tag_mismatches
from renderer.cli.app import cli, context_inputs, given_params, note, warn
from renderer.cli.options import (
    PathType,
    config_option,
    format_option,
    manifests_option,
    no_cache_option,
    render_timeout_option,
    repo_option,
    set_option,
    strict_option,
    values_option,
)
from renderer.data.schemas import validate_output
from renderer.errors import InputError
from renderer.store.files import write_owned_tree


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))


@cli.command(
    help="List the Calico images each node pre-pulls before the addon is created: the "
    "calico/cni and calico/node images of the calico-node DaemonSet as the version renders "
    "(so the templates' own default registry applies when no prefix is set), the same for "
    "master and worker nodes. Exit 2 if the render has neither image."
)
@click.option(
    "--version",
    "version",
    metavar="V",
    help="Calico version: a directory, or vMAJOR.MINOR for the newest patch.",
)
@config_option(
    "BKECluster/BKEConfig YAML: the calico addon's version (an exact directory, as "
    "the controller uses it) and the image prefix."
)
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default="worker",
    show_default=True,
    help="Node role (or a BKENode role): every role with a kubelet pre-pulls the same "
    "images; a dedicated etcd node (etcd, etcd-event, etcd-pod) may run none and pulls none.",
)
@click.option("--repo", metavar="PREFIX", help="Image prefix (default: the config's imageRepo).")
@manifests_option
@render_timeout_option
@no_cache_option
@strict_option
@format_option()
def images(
    version: str | None,
    config: str | None,
    role: str,
    repo: str | None,
    root: Path | None,
    strict: bool,
    fmt: str,
) -> None:
    found: list[ParamWarning] = []
    if (version is None) == (config is None):
        raise InputError("give exactly one of --version or --config", key="--version")
    if config is not None:
        inputs = resolve_inputs(config, root=root, repo=repo)
        if inputs.version is None:
            result = no_calico(role, inputs.repo)
        else:
            assert inputs.addon is not None
            nodes = inputs.inventory.nodes if inputs.inventory is not None else None
            context = bke_context.for_config(inputs.config, inputs.addon, nodes, repo=repo)
            result = api.prepull_images(
                inputs.version.name, root=root, repo=repo, role=role, inputs=context
            )
            found = api.param_warnings(inputs.version.name, context, root)
    else:
        assert version is not None
        result = api.prepull_images(version, root=root, repo=repo, role=role)
        if result.version != version:
            note(f"--version {version} resolved to {result.version} (newest patch)")
    data = result.to_dict()
    validate_output(IMAGES_SCHEMA, data)
    given_params(found, strict)
    if result.version is not None:
        for message in tag_mismatches(result.version, result.images):
            warn(message)
    if fmt == "json":
        _echo_json(data)
        return
    if result.note:
        note(result.note)
    for image in result.images:
        click.echo(image)


_CHANGE = {"scale": "scale change"}


def _nodes(count: int) -> str:
    return f"{count} node" if count == 1 else f"{count} nodes"


def nothing_to_change(data: dict[str, Any]) -> bool:
    """Same version, node count and Typha on both sides (and no params given to apply):
    the plan would re-apply what runs."""
    return bool(data["change"] == "reconfigure" and data["from"] == data["to"])


def _describe_side(side: dict[str, Any]) -> str:
    typha = f"Typha x{side['typhaReplicas']}" if side["typha"] else "no Typha"
    return f"{side['version']} ({_nodes(side['nodes'])}, {typha})"


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
@format_option()
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
    inputs = context_inputs(RenderArgs(None, None, repo, {}), repo, values_file, sets)
    result = api.plan(
        to_version,
        nodes,
        from_version=from_version,
        from_nodes=from_nodes,
        root=root,
        inputs=inputs,
    )
    given_params(api.param_warnings(to_version, inputs, root), strict)
    data = result.to_dict()
    if fmt != "json" and not sets and values_file is None and nothing_to_change(data):
        for message in data["warnings"]:
            warn(message)
        click.echo(
            f"nothing to change: {_describe_side(data['to'])} is already what runs "
            "(same version, node count and Typha); no phases"
        )
        return
    if output_dir is not None:
        for path in write_owned_tree(output_dir, result.files()):
            note(f"wrote {path}")
    if fmt == "json":
        _echo_json(data)
        return
    for message in data["warnings"]:
        warn(message)
    change = _CHANGE.get(data["change"], data["change"])
    click.echo(
        f"{change} {_describe_side(data['from'])} -> {_describe_side(data['to'])}: {data['shape']}"
    )
    numbers = [number for number, _ in result.plan.numbered()]
    for number, phase in zip(numbers, data["phases"], strict=True):
        click.echo(f"\nphase {number}: {phase['name']}: {phase['description']}")
        for verb in ("apply", "delete"):
            for ref in phase[verb]:
                ns = f"{ref['namespace']}/" if ref["namespace"] else ""
                click.echo(f"  {verb:<6} {ref['kind']} {ns}{ref['name']}")
        click.echo(f"  gate:  {phase['gate']['description']}")
        click.echo(f"         $ {phase['gate']['command']}")
