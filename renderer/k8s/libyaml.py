"""ruamel.yaml as this package reads YAML: the safe loader (C when present) with YAML
1.2 resolution, its last-wins variant for values files, and the event classes the
single-pass readers test for.

Only functions that read YAML import this module: a run whose parses come from the
persistent cache (a warm render) loads no YAML library at all.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    NodeEvent,
)
from ruamel.yaml.resolver import VersionedResolver


class _Yaml12Resolver(VersionedResolver):
    """YAML 1.2 resolution without re-deriving the version for every scalar.

    ruamel looks the document's version up through two failing attribute lookups per
    scalar, a quarter of the load time on large files; ``%YAML`` directives are not
    honoured here (manifests and BKE configs carry none).
    """

    @property
    def processing_version(self) -> tuple[int, int]:
        return (1, 2)


def _loader() -> YAML:
    yaml = YAML(typ="safe", pure=False)
    yaml.Resolver = _Yaml12Resolver
    return yaml


SAFE = _loader()
C_LOADER: bool = getattr(SAFE.Parser, "__name__", "") == "CParser"
#: The class of :data:`SAFE`'s C loader, once one is made (see :func:`safe_loader`).
_SAFE_CLASS: type | None = None


def event_parser(text: str) -> Any:
    """A parser of ``text``'s events alone (``get_event``), for readers that build their
    own values from the events: ruamel's C parser when present (a loader around it
    costs some three times as much to make, and a rendered file is parsed a document at
    a time), else the safe loader's parser."""
    if C_LOADER:
        return SAFE.Parser(text)
    return safe_loader(text)[1]


def safe_loader(text: str) -> tuple[Any, Any]:
    """(constructor, parser) of :data:`SAFE` for ``text``, as
    ``SAFE.get_constructor_parser`` gives them. ruamel defines the C loader's class
    anew for every stream (a class costs some 0.1 ms to make; a render is loaded a
    document at a time); the first one made is kept and instantiated again, which
    is what that call does with its class."""
    global _SAFE_CLASS
    stream = io.StringIO(text)
    if _SAFE_CLASS is not None:
        loader = _SAFE_CLASS(stream)
        return loader, loader
    loader, parser = SAFE.get_constructor_parser(stream)
    if C_LOADER and loader is parser:
        _SAFE_CLASS = type(loader)
    return loader, parser


#: For values files: a key given twice keeps its last value (reported, not refused).
LAST_WINS = _loader()


class _LastWins(LAST_WINS.Constructor):  # type: ignore[misc,name-defined]
    """ruamel keeps the first of equal keys when told to allow them; Go keeps the last."""

    def check_mapping_key(self, *args: Any) -> bool:
        return True


LAST_WINS.Constructor = _LastWins


def position_loader() -> YAML:
    """A round-trip loader: slower than the safe C loader, but it records line numbers."""
    return YAML(typ="rt")


__all__ = [
    "C_LOADER",
    "LAST_WINS",
    "SAFE",
    "CollectionEndEvent",
    "CollectionStartEvent",
    "DocumentStartEvent",
    "MarkedYAMLError",
    "NodeEvent",
    "YAMLError",
    "event_parser",
    "position_loader",
    "safe_loader",
]
