"""``calico-render import``: derive a version directory from upstream Calico manifests."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from renderer.calico import importer
from renderer.cli.app import cli, note
from renderer.errors import EXIT_CHECK_FAILED, InputError
from renderer.k8s.yamlio import read_text
from renderer.manifests.tree import COMPONENT
from renderer.store.files import replace_dir

UPSTREAM_FILES = (importer.BASE, importer.TYPHA, importer.VXLAN)


def read_source(source: Path, typha: bool) -> dict[str, str]:
    """The upstream files of SOURCE: calico.yaml, calico-typha.yaml (unless legacy) and
    calico-vxlan.yaml when present."""
    if not source.is_dir():
        raise InputError("not a directory holding calico.yaml", file=str(source))
    texts: dict[str, str] = {}
    for name in UPSTREAM_FILES:
        path = source / name
        if name == importer.TYPHA and not typha:
            continue
        if name == importer.VXLAN and not path.exists():
            continue
        if not path.is_file():
            hint = " (or import with --no-typha)" if name == importer.TYPHA else ""
            raise InputError(f"missing{hint}", file=str(path))
        texts[name] = read_text(path)
    return texts


def read_version_dir(directory: Path) -> dict[str, str]:
    """Every file of a version directory on disk (the controller renders them all)."""
    if not directory.is_dir():
        return {}
    return {p.name: read_text(p) for p in sorted(directory.iterdir()) if p.is_file()}


def _label(path: Path) -> str:
    return str(path)


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
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    help="ROOT to write kubernetes/calico/<version>/ under (default: the current directory).",
)
@click.option(
    "--layout",
    type=click.Choice(importer.LAYOUTS),
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
    root: Path,
    layout: str,
    default_registry: str | None,
    no_typha: bool,
    check: bool,
    force: bool,
) -> None:
    if default_registry is not None and not default_registry.endswith("/"):
        raise InputError("must end with '/'", key="--default-registry")
    options = importer.Options(
        layout=layout, default_registry=default_registry, typha=not no_typha, version=version
    )
    texts = read_source(source, not no_typha)
    try:
        derived = importer.derive(texts, options)
    except InputError as exc:  # name the file as the user can find it
        file = str(source / exc.file) if exc.file in UPSTREAM_FILES else exc.file
        raise InputError(exc.message, file=file, line=exc.line, key=exc.key) from None
    target = root / COMPONENT / derived.version
    if check:
        diff = importer.compare(derived.files, read_version_dir(target), _label(target))
        if diff:
            click.echo(diff, nl=False)
            note(f"{target}: differs from what import derives")
            sys.exit(EXIT_CHECK_FAILED)
        note(f"{target}: as derived")
        return
    replace_dir(target, dict(derived.files), replace=force)
    note(f"wrote {target}: {', '.join(derived.files)}")
