"""Records behave as the dataclasses they stand for: hand-written ones (:class:`Frozen`)
and those :func:`renderer.frozen.record` builds."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from functools import cached_property
from typing import Any, ClassVar

import pytest

from renderer.frozen import Frozen, field, fields, is_record, record, replace


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


# --- records: @record stands for @dataclass -------------------------------------------


@record(frozen=True, order=True)
class Rec:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list, compare=False)
    note: str = field(default="", compare=False, repr=False)
    LIMIT: ClassVar[int] = 3


@dataclasses.dataclass(frozen=True, order=True)
class Dat:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list, compare=False)
    note: str = dataclasses.field(default="", compare=False, repr=False)
    LIMIT: ClassVar[int] = 3


def _same(make: Any) -> tuple[Any, ...]:
    """What a user of the class sees, for a record and a dataclass alike."""
    a, b = make(1, 2, ["t"], "a"), make(1, 2, ["t"], "b")
    return (
        repr(a).split("(", 1)[1],
        a == b,
        hash(make(1)) == hash(make(1, 0)),
        make(1) < make(1, 1) < make(2),
        sorted([make(2), make(1, 5), make(1)]) == [make(1), make(1, 5), make(2)],
        make(1).tags is not make(1).tags,  # a fresh default per instance
        make(x=1, note="n").note,
        make.__match_args__,
        make.LIMIT,
        [f.name for f in fields(make)],
        [f.name for f in fields(a)],
        replace(a, y=7) == make(1, 7, ["t"]),
        replace(a, y=7).note,
        pickle.loads(pickle.dumps(a)) == a,
        copy.deepcopy(a) == a,
        is_record(a),
        is_record(make),
    )


def test_a_record_behaves_as_the_dataclass_it_stands_for() -> None:
    assert _same(Rec) == _same(Dat)
    assert Rec(1, 2) != Dat(1, 2) and Rec(1).__eq__(Dat(1)) is NotImplemented


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((), {}),  # missing x
        ((1, 2, [], "", 5), {}),  # too many
        ((1,), {"x": 1}),  # x twice
        ((1,), {"z": 1}),  # no such field
    ],
)
def test_a_bad_call_is_a_type_error_both_ways(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    for make in (Rec, Dat):
        with pytest.raises(TypeError):
            make(*args, **kwargs)


def test_a_frozen_record_refuses_assignment_as_a_dataclass_does() -> None:
    r = Rec(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del r.y  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.other = 1  # type: ignore[attr-defined]


@record
class Mutable:
    items: list[int]
    count: int = 0

    @cached_property
    def total(self) -> int:
        return sum(self.items) + self.count


@record(frozen=True)
class Cached:
    items: tuple[int, ...]

    @cached_property
    def total(self) -> int:
        return sum(self.items)


def test_a_mutable_record_can_be_assigned_and_is_unhashable() -> None:
    m = Mutable([1, 2])
    m.count = 3
    assert m.total == 6 and m == Mutable([1, 2], 3)
    with pytest.raises(TypeError):
        hash(m)


def test_a_frozen_record_keeps_a_cached_property() -> None:
    c = Cached((1, 2))
    assert c.total == 3 and c == Cached((1, 2)) and hash(c) == hash(Cached((1, 2)))


@record(frozen=True)
class Base:
    a: int


@record(frozen=True)
class Child(Base):
    b: str = ""


@record(frozen=True)
class Plain:
    """A base without fields (as :class:`renderer.finding.Details`)."""


@dataclasses.dataclass(frozen=True)
class DataChild(Plain):
    b: str = ""


def test_a_record_subclass_adds_its_fields_after_its_base() -> None:
    assert [f.name for f in fields(Child)] == ["a", "b"]
    assert Child(1, "x") == Child(a=1, b="x") and Child(1) != Base(1)
    assert replace(Child(1), b="y") == Child(1, "y")
    match Child(1, "z"):
        case Child(a, b):
            assert (a, b) == (1, "z")


def test_a_dataclass_on_a_record_base_without_fields_is_a_dataclass() -> None:
    d = DataChild(b="x")
    assert [f.name for f in fields(d)] == ["b"] and replace(d, b="y") == DataChild("y")
    assert is_record(d) and d == DataChild("x") and hash(d) == hash(DataChild("x"))


def test_a_field_without_a_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError):

        @record
        class Bad:
            a: int = 0
            b: int
