"""The Calico release rules as a package: what importing it registers, and the design's
promise that every rule, release or scale, is tested in the test module mirroring the
module defining it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from renderer.calico.rules import ERROR, REGISTRY, WARNING
from renderer.calico.scale import REGISTRY as SCALE_REGISTRY

HERE = Path(__file__).parent


def test_registered_rule_ids() -> None:
    assert sorted(REGISTRY) == [
        "calico-image-tag",
        "calico-one-registry",
        "calico-one-version",
        "duplicate-object",
        "duplicate-object-metadata",
        "typha-anti-affinity",
        "typha-graceful-shutdown",
        "typha-pdb-allows-drain",
        "typha-pdb-max-one-down",
        "typha-probes",
        "typha-replicas-below-nodes",
        "typha-rolling-update",
    ]
    assert {r.severity for r in REGISTRY.values()} == {ERROR, WARNING}


@pytest.mark.parametrize(
    ("registry", "package"),
    [(REGISTRY, "renderer.calico.rules."), (SCALE_REGISTRY, "renderer.calico.scale.")],
    ids=["release", "scale"],
)
def test_every_rule_is_tested_beside_its_module(registry: Mapping[str, Any], package: str) -> None:
    here = HERE / package.split(".")[-2]
    ours = {i: r for i, r in registry.items() if r.func.__module__.startswith(package)}
    assert ours
    for rule_id, rule in ours.items():
        module = rule.func.__module__.removeprefix(package)
        tests = (here / f"test_{module}.py").read_text(encoding="utf-8")
        assert f'"{rule_id}"' in tests, f"{rule_id} has no test in test_{module}.py"
