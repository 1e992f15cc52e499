"""A hand-written frozen record behaves as ``@dataclass(frozen=True)`` would."""

from __future__ import annotations

import dataclasses

import pytest

from renderer.frozen import Frozen


class Point(Frozen):
    __match_args__ = ("x", "y", "note")
    _compared = ("x", "y")

    def __init__(self, x: int, y: int, note: str = "") -> None:
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "note", note)


@dataclasses.dataclass(frozen=True)
class Made:
    x: int
    y: int
    note: str = dataclasses.field(default="", compare=False, repr=False)


def test_repr_equality_and_hash_follow_the_compared_fields_as_a_dataclass_does() -> None:
    a, b = Point(1, 2, "a"), Point(1, 2, "b")
    assert repr(a) == repr(Made(1, 2, "a")).replace("Made", "Point") == "Point(x=1, y=2)"
    assert a == b and hash(a) == hash(b) and a != Point(1, 3)
    assert (Made(1, 2, "a") == Made(1, 2, "b")) is (a == b)


def test_another_type_with_the_same_fields_is_not_equal() -> None:
    class Other(Point):
        pass

    assert Point(1, 2) != Other(1, 2)
    assert Point(1, 2).__eq__((1, 2)) is NotImplemented


def test_fields_cannot_be_assigned_or_deleted() -> None:
    p = Point(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.y
    assert (p.x, p.y) == (1, 2)


class Pair(Frozen):
    __match_args__ = ("a", "b")

    def __init__(self, a: int, b: int) -> None:
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)


def test_without_compared_fields_every_field_counts() -> None:
    assert repr(Pair(1, 2)) == "Pair(a=1, b=2)" and Pair(1, 2) != Pair(1, 3)
