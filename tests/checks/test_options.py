"""What a check run is asked to do: options that travel to worker processes unchanged."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from renderer.checks.exceptions import ExceptionSet
from renderer.checks.options import TREE_GOLDEN, CheckOptions


def test_defaults_check_everything_once_against_no_upstream_and_no_exceptions() -> None:
    options = CheckOptions(root=None, golden=Path("golden"))
    assert (options.kube_versions, options.jobs, options.update) == ((), 1, False)
    assert options.upstream is None and options.exceptions == ExceptionSet()
    assert options.exceptions.items == ()


def test_options_survive_the_trip_to_a_worker_process(tmp_path: Path) -> None:
    """``--jobs N`` sends the options to other processes: they pickle to an equal value."""
    options = CheckOptions(
        root=tmp_path,
        golden=tmp_path / TREE_GOLDEN,
        kube_versions=("1.30", "1.34"),
        jobs=4,
        upstream=tmp_path / "upstream",
    )
    assert pickle.loads(pickle.dumps(options)) == options


def test_options_are_frozen() -> None:
    options = CheckOptions(root=None, golden=Path("golden"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.jobs = 2  # type: ignore[misc]


def test_a_trees_goldens_live_inside_it() -> None:
    assert not TREE_GOLDEN.is_absolute() and TREE_GOLDEN.parts == ("golden", "calico")
