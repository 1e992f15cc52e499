"""The typha verb: one decision, or the boundary table."""

from __future__ import annotations

from renderer import api
from renderer.api.results import TyphaResult


def test_typha_gives_one_decision_or_the_boundary_table() -> None:
    one = api.typha(601)
    assert isinstance(one, TyphaResult)
    assert one.nodes == 601
    assert [(d.nodes, d.allow_typha, d.replicas) for d in one.decisions] == [(601, True, 4)]
    table = api.typha()
    assert table.nodes is None
    assert [(d.nodes, d.allow_typha, d.replicas) for d in table.decisions][:4] == [
        (50, False, 0),
        (51, True, 3),
        (600, True, 3),
        (601, True, 4),
    ]
