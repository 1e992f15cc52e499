"""Named, bounded memos: eviction order, the registry, and clearing."""

from __future__ import annotations

import importlib
import itertools
import threading
from collections.abc import Callable

import pytest

from renderer.store.memo import Memo, clear_all, memos

_names = (f"test-memo-{i}" for i in itertools.count())


def test_least_recently_used_goes_first() -> None:
    memo: Memo[str, int] = Memo(next(_names), maxsize=2)
    memo["a"] = 1
    memo["b"] = 2
    assert memo["a"] == 1  # a is now the most recent
    memo["c"] = 3
    assert "b" not in memo
    assert list(memo) == ["a", "c"]
    assert len(memo) == 2


def test_setdefault_computes_once() -> None:
    memo: Memo[str, list[int]] = Memo(next(_names), maxsize=4)
    calls: list[int] = []

    def compute(n: int) -> Callable[[], list[int]]:
        def make() -> list[int]:
            calls.append(n)
            return [n]

        return make

    first = memo.setdefault("k", compute(1))
    second = memo.setdefault("k", compute(2))
    assert first is second
    assert calls == [1]
    assert memo.get("missing") is None


def test_registry_names_every_memo_and_clears_them() -> None:
    name = next(_names)
    memo: Memo[str, int] = Memo(name, maxsize=1)
    memo["x"] = 1
    assert memos()[name] is memo
    clear_all()
    assert len(memo) == 0


def test_a_name_is_defined_once_and_a_bound_is_positive() -> None:
    name = next(_names)
    Memo(name, maxsize=1)
    with pytest.raises(ValueError):
        Memo(name, maxsize=1)
    with pytest.raises(ValueError):
        Memo(next(_names), maxsize=0)


def test_shared_by_threads_the_bound_holds() -> None:
    memo: Memo[int, int] = Memo(next(_names), maxsize=8)

    def work(offset: int) -> None:
        for i in range(2000):
            memo[(i + offset) % 50] = i
            memo.get((i + offset + 1) % 50)
            memo.setdefault((i + offset + 2) % 50, lambda: 0)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(memo) == 8


@pytest.mark.parametrize(
    ("module", "names"),
    [
        (
            "renderer.k8s.schema",
            ["k8s.schema.definitions", "k8s.schema.kinds"],
        ),
        ("renderer.k8s.parse", ["k8s.parse.texts"]),
        ("renderer.k8s.locate", ["k8s.locate.positions"]),
        ("renderer.checks.verdict", ["checks.verdicts"]),
        ("renderer.bke.cluster", ["bke.cluster.param_validators"]),
    ],
)
def test_module_caches_are_registered_memos(module: str, names: list[str]) -> None:
    importlib.import_module(module)
    registry = memos()
    for name in names:
        assert name in registry
        assert 1 <= registry[name].maxsize <= 100_000
