"""What commands share: library errors re-worded to name the flags."""

from __future__ import annotations

import pytest

from renderer.cli.common import FLAGS, flag_worded
from renderer.errors import CalicoRenderError, InputError, RefusedError


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (InputError("bad", key="nodes"), "--nodes: bad"),
        (RefusedError("no Typha", key="nodes"), "--nodes: no Typha"),
        (InputError("no dots", key="to_version '../x'"), "--to-version '../x': no dots"),
        (InputError("unknown", file="d", key="version"), "d: --version: unknown"),
        (InputError("bad", key="image_prefix"), "--repo: bad"),
        (InputError("unsafe", file="f", key="ClusterCidr.Ipv6"), "f: ClusterCidr.Ipv6: unsafe"),
        (InputError("x", key="set a"), "--set a: x"),
        (InputError("x", key="--upstream"), "--upstream: x"),
        (InputError("no key"), "no key"),
    ],
)
def test_flag_worded(error: CalicoRenderError, line: str) -> None:
    assert flag_worded(error) == line
    assert error.key is None or error.key.partition(" ")[0] not in FLAGS.values()


def test_flags_are_flags() -> None:
    assert all(flag.startswith("--") and " " not in flag for flag in FLAGS.values())
