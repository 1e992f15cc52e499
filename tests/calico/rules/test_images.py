"""Which image references the Calico image rules consider Calico's."""

from __future__ import annotations

import pytest

from renderer.calico.rules.images import CALICO_IMAGE


@pytest.mark.parametrize(
    ("image", "prefix", "name", "tag"),
    [
        ("calico/node:v3.28.2", "", "node", "v3.28.2"),
        (
            "registry.example.com/openfuyao/calico/cni:v3.28.2",
            "registry.example.com/openfuyao/",
            "cni",
            "v3.28.2",
        ),
        ("host:5000/calico/typha:v3.31.3@sha256:ab", "host:5000/", "typha", "v3.31.3"),
        ("docker.io/calico/kube-controllers", "docker.io/", "kube-controllers", None),
    ],
)
def test_calico_images_are_recognised(image: str, prefix: str, name: str, tag: str | None) -> None:
    m = CALICO_IMAGE.match(image)
    assert m is not None
    assert (m.group("prefix"), m.group("name"), m.group("tag")) == (prefix, name, tag)


@pytest.mark.parametrize(
    "image", ["quay.io/notcalico/foo:1.0", "mycalico/node:v1", "registry/tigera/operator:v1.34"]
)
def test_other_images_are_not_calico(image: str) -> None:
    assert CALICO_IMAGE.match(image) is None
