"""ruamel.yaml as this package reads YAML: the safe loader (C when present) with YAML
1.2 resolution, its last-wins variant for values files, and the event classes the
single-pass readers test for.

Only functions that read YAML import this module: a run whose parses come from the
persistent cache (a warm render) loads no YAML library at all.
"""

from __future__ import annotations

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
    "position_loader",
]
