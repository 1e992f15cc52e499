"""Immutable records that behave as frozen dataclasses without being made by one.

Defining a frozen dataclass costs some 3.7 million instructions at import (it writes
and compiles its methods), and every render defines the records below at start-up.
A subclass names its fields in ``__match_args__`` and sets them in ``__init__`` with
``object.__setattr__``; this base gives it what ``@dataclass(frozen=True)`` would:
``repr``, equality and hash by fields (``_compared``, when only some count), and
:class:`dataclasses.FrozenInstanceError` on assignment.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any, ClassVar


class Frozen:
    """The base of a hand-written frozen record (see the module doc)."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    #: The fields ``repr``, equality and hash use (None: all of ``__match_args__``),
    #: as ``field(repr=False, compare=False)`` leaves the others out.
    _compared: ClassVar[tuple[str, ...] | None] = None

    def _fields(self) -> tuple[str, ...]:
        return self.__match_args__ if self._compared is None else self._compared

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            assert isinstance(other, Frozen)
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
