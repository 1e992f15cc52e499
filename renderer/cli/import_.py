"""``calico-render import``: derive a version directory from upstream Calico manifests."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from renderer import api
from renderer.calico.importer import LAYOUTS, TYPHA, Options
from renderer.cli.app import cli
from renderer.cli.common import note
from renderer.cli.options import TREE_DEFAULT, PathType, tree_root
from renderer.errors import EXIT_CHECK_FAILED, InputError


def _import(
    source: Path, root: Path, options: Options, *, check: bool, force: bool
) -> api.Imported:
    """:func:`renderer.api.import_version`, its errors naming the flags to use."""
    try:
        return api.import_version(source, root=root, options=options, check=check, replace=force)
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
    from renderer.data.bundled import bundled_manifests

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
    default="split",
    show_default=True,
    help="split: 000-crds, 001-typha, 002-calico; single: one calico.yaml.",
)
@click.option(
    "--default-registry",
    metavar="PREFIX",
    help="Image prefix used when repo is empty, e.g. hub.oepkgs.net/openfuyao/.",
)
@click.option("--no-typha", is_flag=True, help="A legacy version from calico.yaml alone.")
@click.option("--check", is_flag=True, help="Compare with the directory on disk; write nothing.")
@click.option("--force", is_flag=True, help="Replace an existing version directory.")
def import_(
    source: Path,
    version: str | None,
    root: Path | None,
    layout: str,
    default_registry: str | None,
    no_typha: bool,
    check: bool,
    force: bool,
) -> None:
    options = Options(
        layout=layout, default_registry=default_registry, typha=not no_typha, version=version
    )
    imported = _import(
        source, _import_root(root, write=not check), options, check=check, force=force
    )
    target = imported.target
    if not check:
        note(f"wrote {target}: {', '.join(imported.files)}")
    elif imported.diff:
        click.echo(imported.diff, nl=False)
        note(f"{target}: differs from what import derives")
        sys.exit(EXIT_CHECK_FAILED)
    else:
        note(f"{target}: as derived")
