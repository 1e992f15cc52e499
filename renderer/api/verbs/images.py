"""The images verbs: what each node pre-pulls, and every rendered image resolved
against its registry (the OCI client is loaded only for that)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from renderer.api.request import Request, cluster_args
from renderer.api.verbs.addons import listed_addons, render_addon
from renderer.api.verbs.render import file_contexts
from renderer.bke.roles import images_by_role, shape_role
from renderer.calico import images as images_mod
from renderer.calico import policy
from renderer.calico.scenarios import route_scenario, scenarios_for
from renderer.checks import registry as stage
from renderer.checks.registry import ImageUse, RegistryReport, image_uses, lock_document
from renderer.checks.verdict import typha_capability
from renderer.data import schemas
from renderer.data.schemas import validate_output
from renderer.engine.render import render_version
from renderer.errors import InputError
from renderer.k8s.parse import parse_rendered
from renderer.manifests.tree import ADDON, VersionDir, tree_path
from renderer.oci.client import Client
from renderer.oci.client import Settings as RegistrySettings
from renderer.oci.reference import parse_platforms, parse_registry
from renderer.store.files import write_output
from renderer.store.read import read_text


def prepull_images(request: Request, *, role: str = "worker") -> images_mod.ImageList:
    """What every node of ``role`` pre-pulls for the request's version, read from what it
    renders.

    The version is rendered with Typha off (the images of calico-node do not depend on
    it), with the request's values and image prefix (None: the schema default, empty, so
    the templates pick their own registry); then the calico/cni and calico/node images
    of the calico-node DaemonSet are taken. A render without either is an InputError
    (exit 2) naming the version.
    """
    images_mod.check_role(role)
    if request.repo is not None:
        images_mod.check_repo(request.repo)
    vdir, inputs = request.version, request.inputs
    contexts = file_contexts(vdir, inputs, policy.decide_typha(1))
    files = render_version(vdir, {}, contexts.contexts())
    objects = [o.data for o in parse_rendered(files)]
    try:
        return images_mod.prepull_images(vdir.name, role, str(inputs.repo.value), objects)
    except InputError as exc:
        raise InputError(
            exc.message, file=exc.file or str(vdir.path), key=exc.key, argument=exc.argument
        ) from None


#: The platforms OpenFuyao installs on (x86_64 and aarch64 nodes).
DEFAULT_PLATFORMS = "linux/amd64,linux/arm64"


def version_image_uses(
    request: Request, *, role: str | None = None
) -> tuple[VersionDir, list[ImageUse]]:
    """Every image any scenario of the request's version renders, where it is rendered;
    with a ``role``, only what that role's nodes pre-pull (nothing for a dedicated etcd
    node)."""
    _image_checks(role, request.repo)
    vdir, inputs = request.version, request.inputs
    capable, missing = typha_capability(vdir)
    renders = []
    for scenario in scenarios_for(capable):
        route = route_scenario(scenario, capable, vdir.name, missing)
        contexts = file_contexts(vdir, inputs, route.decision)
        files = render_version(vdir, {}, contexts.contexts())
        renders.append((scenario.name, parse_rendered(files)))
    names = [f.name for f in vdir.files]
    uses = [  # located relative to ROOT, as every finding is
        replace(u, file=tree_path(vdir.name, names, u.file)) for u in image_uses(renders)
    ]
    if role in images_mod.ETCD_ONLY_ROLES:
        return vdir, []
    if role is not None:
        uses = [u for u in uses if images_mod.prepulled_kind(u.image)]
    return vdir, uses


def check_registry(
    version: str | None = None,
    *,
    config: str | Path | None = None,
    root: Path | None = None,
    repo: str | None = None,
    role: str | None = None,
    platforms: str = DEFAULT_PLATFORMS,
    registry: str | None = None,
    settings: RegistrySettings | None = None,
    jobs: int = 4,
    verify_lock: str | Path | None = None,
    addons: Sequence[str] | None = None,
) -> RegistryReport:
    """Resolve every image ``version`` (or ``config``'s calico addon) renders against its
    registry (``registry``, ``host[:port][/namespace]``, serving them instead) for each
    of ``platforms`` (comma-separated ``os/arch[/variant]``); with ``verify_lock``, the
    digests are compared with that lock file too. With ``config`` and ``addons`` (a
    sequence: the listed addons named, every one when empty), every image those addons
    render (:func:`listed_image_uses`).

    Missing repositories, tags and platforms (and changed digests) are error findings;
    a bad platform, an unreachable registry or a malformed answer is an InputError.
    """
    chosen = parse_platforms(platforms)
    if registry is not None:
        parse_registry(registry)
    lock = read_lock(verify_lock) if verify_lock is not None else None
    client = Client(settings)
    if (version is None) == (config is None):
        raise InputError(
            "give exactly one of a version or a config", key="version", argument="version"
        )
    labels: list[str] = []
    uses: list[ImageUse] = []
    name: str | None = None
    if config is not None and addons is not None:
        _image_checks(role, repo)
        labels, uses = listed_image_uses(config, addons, root=root, repo=repo, role=role)
    elif config is not None:
        args = cluster_args(config, root=root, repo=repo)
        if not args.skip and args.version is not None:
            _image_checks(role, repo)
            request = Request.of(args.version, root=root, repo=repo, cluster=args)
            vdir, uses = version_image_uses(request, role=role)
            name = vdir.name
    else:
        assert version is not None
        _image_checks(role, repo)
        vdir, uses = version_image_uses(Request.of(version, root=root, repo=repo), role=role)
        name = vdir.name
    report = stage.check_registry(
        uses, chosen, client, registry=registry, version=name, addons=labels, jobs=jobs
    )
    if lock is not None:
        found = stage.verify_lock(report, lock, str(verify_lock))
        report = replace(report, findings=(*report.findings, *found), lock=str(verify_lock))
    return report


def _image_checks(role: str | None, repo: str | None) -> None:
    """A node role and an image prefix as the images verbs take them."""
    if role is not None:
        images_mod.check_role(role)
    if repo is not None:
        images_mod.check_repo(repo)


def read_lock(path: str | Path) -> dict[str, Any]:
    """A lock file written by ``images --lock``, checked against its schema."""
    text = read_text(Path(path))
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}", file=str(path)) from None
    schemas.check(schemas.IMAGE_LOCK, data, file=str(path))
    return dict(data)


def lock_text(report: RegistryReport) -> str:
    """The lock file of ``report`` (``image-lock.schema.json``), as written."""
    data = lock_document(report)
    validate_output(schemas.IMAGE_LOCK, data)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def write_lock(path: str | Path, report: RegistryReport) -> None:
    """Write ``report``'s lock atomically (a device or FIFO is written through)."""
    write_output(path, lock_text(report))


def listed_image_uses(
    config: str | Path | None,
    addons: Sequence[str] = (),
    *,
    root: Path | None = None,
    repo: str | None = None,
    role: str | None = None,
) -> tuple[list[str], list[ImageUse]]:
    """(``<addon>/<version>`` of each addon rendered, every image they render with
    where): Calico's every scenario's (:func:`renderer.api.verbs.images.version_image_uses`),
    any other addon's as the controller renders it for ``config``; with a ``role``,
    only the images a node of that role pulls."""
    chosen = listed_addons(config, root=root, repo=repo, addons=addons, bad_input="raise")
    labels: list[str] = []
    uses: list[ImageUse] = []
    for entry in chosen:
        request = entry.request
        if request is None:
            continue
        vdir = request.version
        labels.append(f"{entry.name}/{vdir.name}")
        if vdir.addon == ADDON:
            uses += version_image_uses(request, role=role)[1]
            continue
        objects = render_addon(request).objects
        names = [f.name for f in vdir.files]
        found = [
            replace(u, file=tree_path(vdir.name, names, u.file, vdir.addon))
            for u in image_uses([("", objects)])
        ]
        if role is not None:
            pulled = set(images_by_role(objects)[0].get(shape_role(role), ()))
            found = [u for u in found if u.image in pulled]
        uses += found
    return labels, uses
