"""``calico-render images``: the Calico images each node pre-pulls."""

from __future__ import annotations

from pathlib import Path

import click

from renderer import api
from renderer.calico.images import ROLES
from renderer.cli.app import cli
from renderer.cli.common import given_params, note, warn, write_document
from renderer.cli.options import (
    config_option,
    format_option,
    manifests_option,
    no_cache_option,
    render_timeout_option,
    strict_option,
)
from renderer.errors import InputError
from renderer.output.documents import ImagesDocument


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
@format_option(ImagesDocument)
def images(
    version: str | None,
    config: str | None,
    role: str,
    repo: str | None,
    root: Path | None,
    strict: bool,
    fmt: str,
) -> None:
    if (version is None) == (config is None):
        raise InputError("give exactly one of --version or --config", key="--version")
    if config is not None:
        result, found = api.config_images(config, root=root, repo=repo, role=role)
    else:
        assert version is not None
        result, found = api.prepull_images(version, root=root, repo=repo, role=role), []
        if result.version != version:
            note(f"--version {version} resolved to {result.version} (newest patch)")
    warnings = tuple(api.image_warnings(result))
    doc = ImagesDocument(result, warnings)
    given_params(found, strict)
    for message in warnings:
        warn(message)
    if fmt == "text" and result.note:
        note(result.note)
    write_document(fmt, doc)
