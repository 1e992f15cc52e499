"""In-process memos: every module-level cache is a named, bounded :class:`Memo`.

One registry lists them all, so a long-lived caller (installer-service validating
release after release) can see what is held and clear it, and no cache grows without
bound: the least recently used entry goes first once ``maxsize`` is reached. Each
operation is atomic, so worker threads may share a memo; an entry may still go between
a ``key in memo`` test and a read of it, so readers use :meth:`Memo.get`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_REGISTRY: dict[str, Memo[object, object]] = {}


class Memo(Generic[K, V]):
    """A bounded mapping with least-recently-used eviction, registered by name."""

    def __init__(self, name: str, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"memo {name!r}: maxsize must be at least 1")
        if name in _REGISTRY:
            raise ValueError(f"memo {name!r} is defined twice")
        self.name = name
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        _REGISTRY[name] = self  # type: ignore[assignment]

    def get(self, key: K) -> V | None:
        with self._lock:
            try:
                value = self._data[key]
            except KeyError:
                return None
            self._data.move_to_end(key)
            return value

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __getitem__(self, key: K) -> V:
        with self._lock:
            value = self._data[key]
            self._data.move_to_end(key)
            return value

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def setdefault(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, computed by ``make`` (outside the lock: it may be slow,
        or use other memos) and kept when absent."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()
        self[key] = value
        return value

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._data))

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


def memos() -> dict[str, Memo[object, object]]:
    """Every memo defined so far, by name."""
    return dict(_REGISTRY)


def clear_all() -> None:
    """Empty every memo (a caller done with one tree, or a test wanting a cold start)."""
    for memo in _REGISTRY.values():
        memo.clear()
