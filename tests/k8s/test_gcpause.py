"""The collector paused while many acyclic objects are built (k8s.gcpause)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from renderer.k8s import yamlio
from renderer.k8s.gcpause import gc_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_inside_and_back_on_after() -> None:
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_pauses_restore_once_at_the_end() -> None:
    gc.enable()
    first, second = gc_paused(), gc_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()  # the other builder still runs
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_an_error_inside_still_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_pauses_in_threads_share_one_count() -> None:
    gc.enable()
    inside = threading.Barrier(3)
    leave = threading.Event()

    def builder() -> None:
        with gc_paused():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=builder) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    leave.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_the_yaml_reader_still_names_it() -> None:
    assert yamlio.gc_paused is gc_paused
