"""renders: a version's renders as the gate's stages share them."""

from __future__ import annotations

import pytest

from renderer.calico.capability import assess_capability
from renderer.checks import renders, verdict
from renderer.manifests.tree import resolve_version
from tests.gatehelp import TREE

OFF = {"allowTypha": "false", "typhaReplicas": "0"}
ON3 = {"allowTypha": "true", "typhaReplicas": "3"}
ON4 = {"allowTypha": "true", "typhaReplicas": "4"}


def test_the_shared_renders_give_the_contracts_verdict_and_the_scenarios_reuse_them() -> None:
    version = resolve_version("v9.4.0", TREE)
    report = assess_capability(version, render=verdict.render_objects)
    shared = renders.Renders(version)
    cap = renders.assess(shared)
    assert (cap.items, cap.typha) == (report.items, report.typha)
    scenarios = renders.render_scenarios(shared, cap)
    assert [
        (
            s.scenario.name,
            s.decision["nodes"],
            s.decision["allowTypha"],
            s.decision["typhaReplicas"],
        )
        for s in scenarios
    ] == [
        ("nodes-50", 50, "false", "0"),
        ("nodes-51", 51, "true", "3"),
        ("nodes-601", 601, "true", "4"),
    ]
    # Each scenario is the contract's render of its context, not a render of its own.
    for s, typha in zip(scenarios, (OFF, ON3, ON4), strict=True):
        assert s.objects is shared.get(typha)[2]
        assert s.context is shared.get(typha)[0]
    with pytest.raises(ValueError, match=r"renders of v9\.4\.0 asked for v9\.1\.0"):
        shared.render(resolve_version("v9.1.0", TREE), {})


def test_a_context_renders_once_and_a_file_rendered_alike_parses_once() -> None:
    shared = renders.Renders(resolve_version("v9.4.0", TREE))
    on3 = shared.get(ON3)
    assert shared.get(dict(reversed(ON3.items()))) is on3  # the order of keys is no matter
    on4 = shared.get(ON4)
    ctx, files, objects = on3
    assert (ctx["allowTypha"], ctx["typhaReplicas"]) == ("true", "3")
    assert [name for name, _ in files] == ["001-typha.yaml", "002-calico.yaml"]
    calico3 = [o for o in objects if o.file == "002-calico.yaml"]
    calico4 = [o for o in on4[2] if o.file == "002-calico.yaml"]
    assert calico3 and all(a is b for a, b in zip(calico3, calico4, strict=True))
    typha3 = [o for o in objects if o.file == "001-typha.yaml"]
    typha4 = [o for o in on4[2] if o.file == "001-typha.yaml"]
    assert typha3[0] is not typha4[0]  # the replicas differ
    assert sorted(name for name, _ in shared.parsed) == [
        "001-typha.yaml",
        "001-typha.yaml",
        "002-calico.yaml",
    ]


def test_objects_name_their_file_relative_to_the_version_or_with_it_when_qualified() -> None:
    version = resolve_version("v9.4.0", TREE)
    relative = {o.file for o in renders.Renders(version).get(ON3)[2]}
    qualified = {o.file for o in renders.Renders(version, qualified=True).get(ON3)[2]}
    assert relative == {"001-typha.yaml", "002-calico.yaml"}
    assert qualified == {"v9.4.0/001-typha.yaml", "v9.4.0/002-calico.yaml"}


def test_fidelity_renders_split_typha_keys_from_the_other_values_with_an_empty_repo() -> None:
    shared = renders.Renders(resolve_version("v9.4.0", TREE))
    render = renders.fidelity_render(shared)
    objects = render({**ON3, "someKey": "x"})
    assert objects is shared.get(ON3, {"someKey": "x"}, repo="")[2]
    assert objects is not shared.get(ON3)[2]
