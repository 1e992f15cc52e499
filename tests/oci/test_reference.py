"""Image references and platforms, read as a kubelet reads them."""

from __future__ import annotations

import pytest

from renderer.errors import InputError
from renderer.oci.reference import (
    Platform,
    Reference,
    parse,
    parse_platforms,
    parse_registry,
    rewrite,
)


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("calico/node:v3.28.2", Reference("docker.io", "calico/node", "v3.28.2")),
        ("busybox", Reference("docker.io", "library/busybox", "latest")),
        ("127.0.0.1:5000/calico/cni:v1", Reference("127.0.0.1:5000", "calico/cni", "v1")),
        ("localhost/x/y", Reference("localhost", "x/y", "latest")),
        ("r.io/a/b:t@sha256:" + "a" * 64, Reference("r.io", "a/b", "t", "sha256:" + "a" * 64)),
        ("r.io/a/b@sha256:" + "b" * 64, Reference("r.io", "a/b", "", "sha256:" + "b" * 64)),
    ],
)
def test_references_name_registry_path_tag_and_digest(image: str, expected: Reference) -> None:
    assert parse(image) == expected


def test_docker_hub_is_asked_at_its_api_host() -> None:
    assert parse("calico/node:v1").api_host == "registry-1.docker.io"
    assert parse("r.io:5000/calico/node:v1").api_host == "r.io:5000"


@pytest.mark.parametrize(
    "image",
    [
        "",
        "Calico/Node:v1",
        "r.io/a b:c",
        "r.io/a:-bad",
        "r.io/a@sha256:abc",
        "x" * 600,
        "r.io/a//b",
    ],
)
def test_what_is_not_a_reference_is_bad_input(image: str) -> None:
    with pytest.raises(InputError) as info:
        parse(image)
    assert info.value.key == "image"


def test_a_registry_override_replaces_the_host_and_may_add_a_namespace() -> None:
    ref = parse("calico/node:v1")
    assert str(rewrite(ref, *parse_registry("m.io:5000"))) == "m.io:5000/calico/node:v1"
    assert (
        str(rewrite(ref, *parse_registry("https://m.io/mirror/"))) == "m.io/mirror/calico/node:v1"
    )


@pytest.mark.parametrize("url", ["http://m.io", "ftp://m.io", "", "m.io/UPPER", "a b"])
def test_a_bad_registry_override_is_bad_input(url: str) -> None:
    with pytest.raises(InputError) as info:
        parse_registry(url)
    assert info.value.key == "registry"


def test_platforms_parse_in_order_without_repeats() -> None:
    assert parse_platforms("linux/amd64, linux/arm64/v8,linux/amd64") == (
        Platform("linux", "amd64"),
        Platform("linux", "arm64", "v8"),
    )


@pytest.mark.parametrize("text", ["linux", "linux/", "linux/amd64/v1/x", "Linux/AMD64", ""])
def test_unknown_platform_syntax_is_bad_input(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_platforms(text)
    assert info.value.key == "platform"


def test_a_platform_without_variant_accepts_any_variant() -> None:
    assert Platform("linux", "arm64").matches("linux", "arm64", "v8")
    assert not Platform("linux", "arm", "v7").matches("linux", "arm", "v6")
    assert not Platform("linux", "amd64").matches("windows", "amd64")
