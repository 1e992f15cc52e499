"""docs/architecture.md lists the layers the import-linter contract enforces, in its order.

The contract in pyproject.toml is what `lint-imports` checks; the document is what a
reader trusts. A layer added, dropped or moved in one and not the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]


def _contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    return [
        " | ".join(part.strip().removeprefix("renderer.") for part in layer.split("|"))
        for layer in layers
    ]


def _documented_layers() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None, "docs/architecture.md: no layer list under '## Layers'"
    names = []
    for line in block.group(1).splitlines():
        if line and not line[0].isspace():
            names.append(re.split(r"\s{2,}", line.strip())[0])
    return names


def test_the_documented_layer_order_is_the_enforced_one() -> None:
    assert _documented_layers() == _contract_layers()


def test_the_domain_packages_are_independent_as_documented() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    independent = [sorted(c["modules"]) for c in contracts if c["type"] == "independence"]
    assert ["renderer.bke", "renderer.calico"] in independent
    assert "calico | bke" in _documented_layers()
