"""``calico-render images``: the Calico images each node pre-pulls, and with
``--check-registry`` whether the registry serves every image a version renders."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from renderer import api
from renderer.calico import images as images_mod
from renderer.calico.images import ROLES, check_repo, no_calico
from renderer.cli.app import cli
from renderer.cli.common import config_keys, given_params, note, warn, write_document
from renderer.cli.options import (
    config_option,
    format_option,
    manifests_option,
    no_cache_option,
    render_timeout_option,
    strict_option,
)
from renderer.errors import EXIT_CHECK_FAILED, InputError
from renderer.oci.client import Settings
from renderer.output import names as format_names
from renderer.output.documents import ImagesDocument
from renderer.output.images import RegistryDocument
from renderer.output.listed import AddonImagesDocument

#: The flags that only mean something with --check-registry.
REGISTRY_FLAGS = (
    ("registry", "--registry"),
    ("platforms", "--platform"),
    ("ca_file", "--ca-file"),
    ("insecure", "--insecure-registry"),
    ("timeout", "--timeout"),
    ("retries", "--retries"),
    ("jobs", "--jobs"),
    ("lock", "--lock"),
    ("verify_lock", "--verify-lock"),
)


@cli.command(
    help="List the Calico images each node pre-pulls before the addon is created: the "
    "calico/cni and calico/node images of the calico-node DaemonSet as the version renders "
    "(so the templates' own default registry applies when no prefix is set), the same for "
    "master and worker nodes. Exit 2 if the render has neither image.\n\n"
    "With --check-registry, every image any scenario of the version renders (Typha, "
    "kube-controllers and the rest; --role: that role's pre-pull list) is resolved against "
    "its registry through the OCI Distribution API, for each --platform: a missing "
    "repository, tag or platform is an error naming the template line that renders the "
    "image (exit 1); a registry that cannot be asked or answers malformed is exit 2. "
    "Credentials come from REGISTRY_AUTH_FILE, then DOCKER_CONFIG/config.json or "
    "~/.docker/config.json (inline auths only), and are never printed.\n\n"
    "Example: calico-render images --version v3.28 --check-registry --registry "
    "release.example.com/openfuyao --lock calico-v3.28.lock.json"
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
    "--addon",
    "addons",
    multiple=True,
    metavar="NAME|all",
    help="With --config: the images each node role pulls for this listed addon "
    "(repeatable; 'all': every addon the config lists), in the controller's order; with "
    "--check-registry, every image they render.",
)
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default=None,
    help="Node role (or a BKENode role; default worker): every role with a kubelet "
    "pre-pulls the same images; a dedicated etcd node (etcd, etcd-event, etcd-pod) may run "
    "none and pulls none. With --check-registry: check only that role's pre-pull list "
    "(default: every image the version renders).",
)
@click.option("--repo", metavar="PREFIX", help="Image prefix (default: the config's imageRepo).")
@manifests_option
@render_timeout_option
@no_cache_option
@strict_option
@click.option(
    "--check-registry",
    is_flag=True,
    help="Resolve every image against its registry (OCI Distribution API) for each platform.",
)
@click.option(
    "--registry",
    metavar="URL",
    help="Check a mirror: host[:port][/namespace] serves every image instead of its own "
    "registry (https:// may lead; plain HTTP needs --insecure-registry).",
)
@click.option(
    "--platform",
    "platforms",
    metavar="LIST",
    default=None,
    help="Comma-separated os/arch[/variant] every image must serve "
    "[default: linux/amd64,linux/arm64].",
)
@click.option(
    "--ca-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="PEM CA bundle TLS certificates are verified against (default: the system's).",
)
@click.option(
    "--insecure-registry",
    "insecure",
    metavar="HOST",
    multiple=True,
    help="host[:port] spoken to in plain HTTP (repeatable); every other registry is TLS.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True, max=600),
    default=None,
    help="Seconds one try of a registry request may take, from connecting to the last "
    "byte of the answer [default: 10].",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0, max=10),
    default=None,
    help="Tries after the first on 429/5xx answers, lost connections and timeouts, with a "
    "doubling backoff [default: 3].",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1, max=32),
    default=None,
    help="Images resolved at once [default: 4].",
)
@click.option(
    "--lock",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the resolved digests (image, platform -> digest) to FILE as JSON "
    "(schemas/image-lock.schema.json), also when something is missing.",
)
@click.option(
    "--verify-lock",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Fail when the registry now serves other digests than the lock FILE records.",
)
@format_option(
    [
        n
        for n in format_names()
        if n in format_names(ImagesDocument) + format_names(RegistryDocument)
    ]
)
def images(
    version: str | None,
    config: str | None,
    addons: tuple[str, ...],
    role: str | None,
    repo: str | None,
    root: Path | None,
    strict: bool,
    check_registry: bool,
    fmt: str,
    **registry: object,
) -> None:
    if (version is None) == (config is None):
        raise InputError("give exactly one of --version or --config", key="--version")
    if addons and config is None:
        raise InputError("needs --config (the addons a BKECluster lists)", key="--addon")
    named = None if not addons else tuple(a for a in addons if a != "all")
    if check_registry:
        _check_registry(version, config, named, role, repo, root, fmt, registry)
        return
    given = [flag for name, flag in REGISTRY_FLAGS if registry[name] not in (None, ())]
    if given:
        raise InputError("needs --check-registry", key=given[0])
    if fmt not in format_names(ImagesDocument):
        raise InputError(f"{fmt} is a report format: it needs --check-registry", key="--format")
    if config is not None and named is not None:
        config_keys(strict, config)
        if role is not None:
            raise InputError(
                "chooses Calico's pre-pull list; --addon lists every role's", key="--role"
            )
        found_images = api.listed_images(config, addons=named, root=root, repo=repo)
        write_document(fmt, AddonImagesDocument(config, found_images))
        return
    role = role or "worker"
    if config is not None:
        config_keys(strict, config)
        args = api.cluster_args(config, root=root, repo=repo)
        if args.skip or args.version is None:
            result, found = no_calico(role, args.repo or ""), []
        else:
            request = api.Request.of(args.version, root=root, repo=repo, cluster=args)
            result = api.prepull_images(request, role=role)
            found = api.param_warnings(request)
    else:
        assert version is not None
        if repo is not None:
            check_repo(repo)  # before the version, as the user reads the flags
        request = api.Request.of(version, root=root, repo=repo)
        result, found = api.prepull_images(request, role=role), []
        if result.version != version:
            note(f"--version {version} resolved to {result.version} (newest patch)")
    warnings = tuple(image_warnings(result))
    doc = ImagesDocument(result, warnings)
    given_params(found, strict)
    for message in warnings:
        warn(message)
    if fmt == "text" and result.note:
        note(result.note)
    write_document(fmt, doc)


def _check_registry(
    version: str | None,
    config: str | None,
    addons: tuple[str, ...] | None,
    role: str | None,
    repo: str | None,
    root: Path | None,
    fmt: str,
    flags: dict[str, object],
) -> None:
    defaults = Settings()
    timeout = flags["timeout"]
    retries = flags["retries"]
    ca_file = flags["ca_file"]
    settings = Settings(
        ca_file=str(ca_file) if ca_file is not None else None,
        insecure=frozenset(str(h) for h in flags["insecure"]),  # type: ignore[attr-defined]
        timeout=float(timeout) if isinstance(timeout, float) else defaults.timeout,
        retries=retries if isinstance(retries, int) else defaults.retries,
    )
    jobs = flags["jobs"]
    lock, verify = flags["lock"], flags["verify_lock"]
    platforms = flags["platforms"]
    report = api.check_registry(
        version,
        config=config,
        root=root,
        repo=repo,
        role=role,
        platforms=str(platforms) if platforms is not None else api.DEFAULT_PLATFORMS,
        registry=str(flags["registry"]) if flags["registry"] is not None else None,
        settings=settings,
        jobs=jobs if isinstance(jobs, int) else 4,
        verify_lock=verify if isinstance(verify, Path) else None,
        addons=addons,
    )
    if version is not None and report.version not in (None, version):
        note(f"--version {version} resolved to {report.version} (newest patch)")
    if isinstance(lock, Path):
        try:
            api.write_lock(lock, report)
        except InputError as exc:
            raise InputError(exc.message, file=exc.file, key="--lock") from None
    write_document(fmt, RegistryDocument(report))
    if not report.ok:
        sys.exit(EXIT_CHECK_FAILED)


def image_warnings(result: images_mod.ImageList) -> list[str]:
    """Images whose tag is not the version's (a node would pull one, the DaemonSet ask
    for another)."""
    if result.version is None:
        return []
    return images_mod.tag_mismatches(result.version, result.images)
