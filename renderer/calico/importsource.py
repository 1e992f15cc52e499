"""What ``import`` reads and compares besides the derivation: upstream's release
files, a version directory on disk, the default registry it is given, and what the
directory's header records of its import."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from renderer.calico import importer as importer_mod
from renderer.calico.images import check_repo
from renderer.errors import InputError
from renderer.manifests.tree import COMPONENT
from renderer.store import contain
from renderer.store.read import read_text

#: What an image reference's registry and path may hold (the distribution grammar).
REGISTRY_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*(?:/[A-Za-z0-9._-]+)*/$")


def check_default_registry(prefix: str) -> None:
    """The default registry goes into every image line of the templates: it is a
    registry prefix (as the image prefix argument is) and must end with ``/``."""
    if not prefix.endswith("/"):
        raise InputError("must end with '/'", key="default registry")
    try:
        check_repo(prefix)
    except InputError as exc:
        raise InputError(exc.message, key="default registry") from None
    if not REGISTRY_PREFIX.match(prefix):  # a quote or control character is no registry
        raise InputError(
            f"{prefix!r} is not a registry prefix (host[:port]/path/ of letters, digits, "
            "'.', '_', '-')",
            key="default registry",
        )


UPSTREAM_FILES = ("calico.yaml", "calico-typha.yaml", "calico-vxlan.yaml")


def recorded(source: Path, root: Path, options: importer_mod.Options) -> importer_mod.Recorded:
    """What the version directory ``source`` derives to records of its import (nothing
    when the tag cannot be read: the derivation then says why)."""

    base = read_upstream(source, typha=False)[UPSTREAM_FILES[0]]
    try:
        version = importer_mod.tag(base, options.version)
    except InputError:
        return importer_mod.Recorded(None, {})
    target = root / COMPONENT / version
    for directory in (root / COMPONENT.parent, root / COMPONENT, target):
        contain.directory(directory, root, "the manifest tree", missing_ok=True)
    return importer_mod.recorded(read_version_dir(target, root))


def differences(
    record: importer_mod.Recorded,
    options: importer_mod.Options,
    texts: Mapping[str, str],
    source: Path,
    target: Path,
) -> tuple[str, ...]:
    """One line per choice that differs from the recorded one, one per upstream file
    whose checksum differs."""

    out = []
    if record.options is not None:
        changed = importer_mod.choice_differences(options, record.options)
        if changed:
            out.append(f"{target}: imported with other choices: {'; '.join(changed)}")
    for name, sha in sorted(record.sources.items()):
        now = importer_mod.Source(name, texts[name]).sha256 if name in texts else None
        if now is None:
            out.append(f"{source / name}: recorded at import (sha256 {sha[:12]}), not read now")
        elif now != sha:
            out.append(
                f"{source / name}: sha256 {now[:12]} differs from {sha[:12]} recorded at import"
            )
    return tuple(out)


def read_upstream(source: Path, typha: bool) -> dict[str, str]:
    """The upstream files of ``source``: calico.yaml, calico-typha.yaml (unless
    ``typha`` is False) and calico-vxlan.yaml when present."""
    if contain.kind(source) != contain.DIRECTORY:
        raise InputError("not a directory holding calico.yaml", file=str(source))
    _, typha_file, vxlan = UPSTREAM_FILES
    texts: dict[str, str] = {}
    for name in UPSTREAM_FILES:
        path = source / name
        found = contain.entry(path, source, "the upstream directory")
        if (name == typha_file and not typha) or (name == vxlan and found is None):
            continue
        if found is None:
            raise InputError("missing", file=str(path))
        contain.regular_file(path, source, "the upstream directory")
        texts[name] = read_text(path)
    return texts


def read_version_dir(directory: Path, root: Path) -> dict[str, str]:
    """Every file of a version directory on disk (the controller renders them all);
    each must stay inside ``root`` and be a regular file or a directory (skipped)."""
    if contain.kind(directory) is None:
        return {}
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        raise InputError(
            f"cannot read directory: {exc.strerror or exc}", file=str(directory)
        ) from None
    found = {p: contain.entry(p, root, "the manifest tree") for p in entries}
    return {p.name: read_text(p) for p, kind in found.items() if kind == contain.FILE}
