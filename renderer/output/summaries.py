"""The JSON documents of ``validate`` (and, by their old names, ``versions`` and
``typha``): kept for callers of this module; the documents live in
:mod:`renderer.output.documents`, the JSON spelling in :mod:`renderer.output.json`."""

from __future__ import annotations

from typing import Any

from renderer.output.documents import (
    TYPHA,
    VALIDATE,
    VERSIONS,
    typha_doc,
    validate_doc,
    version_entry,
    versions_doc,
)
from renderer.output.json import dumps as _dumps


def dumps(name: str, data: dict[str, Any]) -> str:
    """``data`` as JSON, after checking it against schema ``name`` (as the documents of
    ``versions`` and ``typha`` are spelled: sorted keys, UTF-8 kept)."""
    return _dumps(name, data, sort_keys=True, ensure_ascii=False)


__all__ = [
    "TYPHA",
    "VALIDATE",
    "VERSIONS",
    "dumps",
    "typha_doc",
    "validate_doc",
    "version_entry",
    "versions_doc",
]
