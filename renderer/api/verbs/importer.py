"""The import verb: a version directory derived from upstream Calico's release manifests."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from pathlib import Path

from renderer.api.results import Imported
from renderer.calico import importer, importsource
from renderer.calico import importer as importer_mod
from renderer.errors import InputError
from renderer.manifests.tree import COMPONENT
from renderer.store import contain
from renderer.store.files import replace_dir


def import_version(
    source: Path,
    *,
    root: Path = Path("."),
    options: importer.Options | None = None,
    check: bool = False,
    replace: bool = False,
    given: Collection[str] | None = None,
) -> Imported:
    """Derive ``root``/kubernetes/calico/<version>/ from upstream Calico's manifests in
    ``source``; write it (``replace``: over an existing one) or, with ``check``, only
    compare it with what is on disk. With ``given`` (the names of the ``options`` fields
    the caller chose), a check takes every other choice (layout, Typha, default
    registry) from the directory's generated header, so it needs no flags."""
    options = options or importer_mod.Options()
    if options.default_registry is not None:
        importsource.check_default_registry(options.default_registry)
    recorded = importer_mod.Recorded(None, {})
    if check and given is not None:
        recorded = importsource.recorded(source, root, options)
        if recorded.options is not None:
            chosen = {k: getattr(options, k) for k in given}
            options = dataclasses.replace(recorded.options, version=options.version, **chosen)
    texts = importsource.read_upstream(source, options.typha)
    try:
        derived = importer_mod.derive(texts, options)
    except InputError as exc:  # name the file as the user can find it
        file = str(source / exc.file) if exc.file in importsource.UPSTREAM_FILES else exc.file
        raise InputError(
            exc.message, file=file, line=exc.line, key=exc.key, argument=exc.argument
        ) from None
    target = root / COMPONENT / derived.version
    for directory in (root / COMPONENT.parent, root / COMPONENT, target):
        contain.directory(directory, root, "the manifest tree", missing_ok=True)
    files = dict(derived.files)
    if check:
        on_disk = importsource.read_version_dir(target, root)
        differences = importsource.differences(recorded, options, texts, source, target)
        diff = importer_mod.compare(files, on_disk, str(target))
        return Imported(target, files, diff, differences)
    contain.not_a_link(target)
    replace_dir(target, files, replace=replace)
    return Imported(target, files)
