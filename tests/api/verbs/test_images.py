"""The images verbs: what each node role pre-pulls, read from what the version renders."""

from __future__ import annotations

import pytest

from renderer import api
from renderer.errors import InputError


def test_a_worker_pre_pulls_cni_and_node_of_the_version_with_the_prefix() -> None:
    found = api.prepull_images(api.Request.of("v3.28", repo="registry.example.com/of/"))
    assert found.images == (
        "registry.example.com/of/calico/cni:v3.28.2",
        "registry.example.com/of/calico/node:v3.28.2",
    )


def test_a_dedicated_etcd_node_uses_no_calico_image() -> None:
    _, uses = api.version_image_uses(api.Request.of("v3.28"), role="etcd")
    assert uses == []


def test_an_unknown_role_is_bad_input_naming_it() -> None:
    with pytest.raises(InputError) as err:
        api.prepull_images(api.Request.of("v3.28"), role="gardener")
    assert err.value.argument == "role"
