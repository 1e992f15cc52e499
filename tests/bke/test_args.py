"""args: what a render is asked for from flags and files."""

from __future__ import annotations

import dataclasses

import pytest

from renderer.api.request import cluster_args
from renderer.bke.args import RenderArgs


def test_flags_alone_build_the_args_as_given_with_nothing_from_a_config() -> None:
    args = cluster_args(None, version="v9.1.0", nodes=5, repo="reg.example.com/x/")
    assert args == RenderArgs("v9.1.0", 5, "reg.example.com/x/", {})
    assert (args.notes, args.skip, args.cluster, args.inventory) == ((), False, None, None)


def test_no_flags_leave_version_nodes_and_repo_unset() -> None:
    args = cluster_args(None)
    assert (args.version, args.nodes, args.repo, args.user) == (None, None, None, {})


def test_args_are_frozen() -> None:
    args = RenderArgs("v9.1.0", 3, None, {}, notes=("a note",), skip=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.nodes = 4  # type: ignore[misc]
    assert (args.nodes, args.notes, args.skip) == (3, ("a note",), True)
