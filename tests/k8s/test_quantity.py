"""Kubernetes resource quantities as exact numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from renderer.k8s.quantity import quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("250m", Fraction(1, 4)),
        ("1", Fraction(1)),
        ("0.5", Fraction(1, 2)),
        ("1e3", Fraction(1000)),
        ("128Mi", Fraction(128 * 2**20)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("1G", Fraction(10**9)),
        (2, Fraction(2)),
        ("abc", None),
        ("1Qi", None),
        ("", None),
        (None, None),
    ],
)
def test_quantity(text: object, value: Fraction | None) -> None:
    assert quantity(text) == value
