"""The Calico release rules as a package: what importing it registers, and the design's
promise that every rule is tested in the test module mirroring the module defining it."""

from __future__ import annotations

from pathlib import Path

from renderer.calico.rules import ERROR, REGISTRY, WARNING

PACKAGE = "renderer.calico.rules."


def test_registered_rule_ids() -> None:
    assert sorted(REGISTRY) == [
        "calico-image-tag",
        "calico-one-version",
        "duplicate-object",
        "typha-anti-affinity",
        "typha-graceful-shutdown",
        "typha-pdb-allows-drain",
        "typha-pdb-max-one-down",
        "typha-probes",
        "typha-replicas-below-nodes",
        "typha-rolling-update",
    ]
    assert {r.severity for r in REGISTRY.values()} == {ERROR, WARNING}


def test_every_rule_is_tested_beside_its_module() -> None:
    here = Path(__file__).parent / "rules"
    ours = {i: r for i, r in REGISTRY.items() if r.func.__module__.startswith(PACKAGE)}
    assert ours
    for rule_id, rule in ours.items():
        module = rule.func.__module__.removeprefix(PACKAGE)
        tests = (here / f"test_{module}.py").read_text(encoding="utf-8")
        assert f'"{rule_id}"' in tests, f"{rule_id} has no test in test_{module}.py"
