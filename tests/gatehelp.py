"""Shared helpers for the capability, rules, schema and routing tests."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from renderer.parse import K8sObject, parse_stream

FIXTURES = Path(__file__).parent / "fixtures"
TREE = FIXTURES / "tree"
BROKEN = FIXTURES / "broken"
REPO = "registry.example.com/openfuyao/"


def _has_engine() -> bool:
    try:
        importlib.import_module("renderer.gotemplate")
    except ImportError:
        return False
    return True


needs_engine = pytest.mark.skipif(not _has_engine(), reason="Go template engine not present")

_TYPHA_BLOCK = re.compile(
    r'\{\{- if eq \.allowTypha "true" \}\}(.*?)(?:\{\{- else \}\}.*?)?\{\{- end \}\}', re.S
)


def typha_on_objects(version: str = "v9.1.0", replicas: int = 3) -> list[K8sObject]:
    """The Typha-on objects of a fixture version, expanded without the template engine.

    Fixtures use only the allowTypha block and plain keys, so rule and schema tests can
    run on exact objects independent of the engine.
    """
    out: list[K8sObject] = []
    for path in sorted((TREE / "kubernetes" / "calico" / version).iterdir()):
        text = _TYPHA_BLOCK.sub(r"\1", path.read_text())
        text = text.replace("{{ .typhaReplicas }}", str(replicas)).replace("{{ .repo }}", REPO)
        out.extend(parse_stream(text, f"{version}/{path.name}"))
    return out
