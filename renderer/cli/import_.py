"""``calico-render import``: derive a version directory from upstream Calico manifests."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from renderer import api
from renderer.calico.importer import LAYOUTS, TYPHA, Options
from renderer.cli.app import cli
from renderer.cli.common import TREE_DEFAULT, note, tree_root
from renderer.cli.options import PathType
from renderer.data.bundled import bundled_manifests
from renderer.errors import EXIT_CHECK_FAILED, InputError


def _import(
    source: Path, root: Path, options: Options, *, check: bool, force: bool, given: set[str]
) -> api.Imported:
    """:func:`renderer.api.import_version`, its errors naming the flags to use."""
    try:
        return api.import_version(
            source, root=root, options=options, check=check, replace=force, given=given
        )
    except InputError as exc:
        if exc.key == "default registry":
            raise InputError(exc.message, key="--default-registry") from None
        if exc.key == "version":  # the expected tag disagrees with the images'
            raise InputError(f"--version {exc.message}", file=exc.file, key="--version") from None
        if exc.message == "missing" and exc.file and Path(exc.file).name == TYPHA:
            raise InputError("missing (or import with --no-typha)", file=exc.file) from None
        if exc.message == "already exists":
            raise InputError("already exists (use --force to replace it)", file=exc.file) from None
        raise


def _import_root(root: Path | None, *, write: bool) -> Path:
    """ROOT as given; else the current directory when it holds a tree; else the bundled
    tree (in a checkout: an installed package's data is never written)."""
    chosen = tree_root(root)
    if chosen is not None:
        return chosen
    bundled = bundled_manifests()
    if write and bundled.parent.name == "_data":
        raise InputError(
            "the current directory holds no kubernetes/calico/ and the bundled tree is "
            "part of the installed package; name the tree",
            key="--manifests",
        )
    return bundled


@cli.command(
    "import",
    help="Derive kubernetes/calico/<version>/ under ROOT from upstream Calico: SOURCE holds "
    "calico.yaml and calico-typha.yaml of one release (calico-vxlan.yaml optional). "
    "Exit 0 on success, 1 when --check finds a difference, 2 on bad input.",
)
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--version", "version", metavar="vX.Y.Z", help="Expected tag of the images.")
@click.option(
    "--manifests",
    "root",
    type=PathType(file_okay=False, path_type=Path),
    default=None,
    help=f"ROOT to write kubernetes/calico/<version>/ under (default: {TREE_DEFAULT}).",
)
@click.option(
    "--layout",
    type=click.Choice(LAYOUTS),
    default=None,
    help="split (default): 000-crds, 001-typha, 002-calico; single: one calico.yaml.",
)
@click.option(
    "--default-registry",
    metavar="PREFIX",
    help="Image prefix used when repo is empty, e.g. hub.oepkgs.net/openfuyao/.",
)
@click.option(
    "--typha/--no-typha",
    default=None,
    help="--no-typha: a legacy version from calico.yaml alone (default: Typha templated).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Compare with the directory on disk; write nothing. Choices not given are the "
    "ones the directory's generated header records.",
)
@click.option("--force", is_flag=True, help="Replace an existing version directory.")
def import_(
    source: Path,
    version: str | None,
    root: Path | None,
    layout: str | None,
    default_registry: str | None,
    typha: bool | None,
    check: bool,
    force: bool,
) -> None:
    chosen = {"layout": layout, "default_registry": default_registry, "typha": typha}
    given = {name for name, value in chosen.items() if value is not None}
    options = Options(
        layout=layout or "split",
        default_registry=default_registry,
        typha=typha is not False,
        version=version,
    )
    root = _import_root(root, write=not check)
    imported = _import(source, root, options, check=check, force=force, given=given)
    target = imported.target
    for line in imported.differences:  # what differs, before any diff
        note(line)
    if not check:
        note(f"wrote {target}: {', '.join(imported.files)}")
    elif imported.diff:
        click.echo(imported.diff, nl=False)
        note(f"{target}: differs from what import derives")
        sys.exit(EXIT_CHECK_FAILED)
    else:
        note(f"{target}: as derived")
