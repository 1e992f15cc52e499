"""Locate the bundled data (manifests, schemas, goldens).

An installed wheel carries them under ``renderer/_data``; a checkout (or an editable
install) has them at the repository root. Both must work, so look in that order.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


@cache
def data_dir(name: str) -> Path:
    """Return the directory of bundled data ``name`` ("manifests", "schemas", "golden")."""
    for base in (_PACKAGE_DIR / "_data", _PACKAGE_DIR.parent):
        candidate = base / name
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled data directory {name!r} is missing from the installation")


def bundled_manifests() -> Path:
    return data_dir("manifests")


def bundled_golden() -> Path:
    return data_dir("golden")


#: The representative cluster an addon renders with when a caller gives no config: a
#: create request as installer-service writes it (three BKENodes, then the BKECluster).
EXAMPLE_CLUSTER = "bkecluster-create.yaml"


def bundled_example(name: str = EXAMPLE_CLUSTER) -> Path:
    """An example the package carries (``examples/`` of a checkout)."""
    return data_dir("examples") / name


def schema_path(name: str) -> Path:
    return data_dir("schemas") / name
