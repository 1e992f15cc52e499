"""The versions verb: the versions of a tree and what each can do."""

from __future__ import annotations

from pathlib import Path

from renderer.api.results import VersionEntry, VersionsResult
from renderer.checks.verdict import capability_of
from renderer.engine.render import version_keys
from renderer.errors import CalicoRenderError
from renderer.manifests.tree import list_versions, tree_label


def versions(root: Path | None = None, *, keys: bool = False) -> VersionsResult:
    """The versions under ``root`` with their Typha capability (a version that fails to
    render is listed with its error) and, with ``keys``, the context keys each reads."""
    entries = []
    for v in list_versions(root):
        try:
            cap, error = capability_of(v), None
        except CalicoRenderError as exc:
            cap, error = None, str(exc)
        entries.append(
            VersionEntry(v, cap, error, tuple(sorted(version_keys(v))) if keys else None)
        )
    return VersionsResult(tree_label(root), tuple(entries))
