"""Seed 003's tables: every cluster size has one row of the resource guide."""

from __future__ import annotations

import itertools

import pytest

from renderer.calico.scale.tables import SIZE_ROWS, size_row


@pytest.mark.parametrize(
    ("nodes", "row"),
    [
        (1, "1-50"),
        (50, "1-50"),
        (51, "51-200"),
        (200, "51-200"),
        (201, "201-500"),
        (500, "201-500"),
        (501, "501-1000"),
        (1000, "501-1000"),
        (1001, "1001-2000"),
        (2000, "1001-2000"),
        (2001, "2001+"),
        (10**6, "2001+"),
    ],
)
def test_size_rows(nodes: int, row: str) -> None:
    assert size_row(nodes).label == row


def test_size_rows_cover_every_count_once() -> None:
    for a, b in itertools.pairwise(SIZE_ROWS):
        assert a.last is not None and b.first == a.last + 1
    assert SIZE_ROWS[0].first == 1 and SIZE_ROWS[-1].last is None
