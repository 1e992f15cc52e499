"""Manifests parsed strictly: what the media type promises, or a BadAnswer."""

from __future__ import annotations

import json

import pytest

from renderer.oci.manifest import (
    DOCKER_LIST,
    OCI_INDEX,
    OCI_MANIFEST,
    BadAnswer,
    parse_config,
    parse_manifest,
)

D = "sha256:" + "a" * 64


def _index(**entry: object) -> bytes:
    base = {"mediaType": OCI_MANIFEST, "digest": D, "size": 10}
    return json.dumps(
        {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [{**base, **entry}]}
    ).encode()


def test_an_index_lists_its_platforms() -> None:
    m = parse_manifest(
        _index(platform={"os": "linux", "architecture": "arm64", "variant": "v8"}), OCI_INDEX, D
    )
    assert m.is_index and m.entries[0].platform == ("linux", "arm64", "v8")


def test_the_media_type_may_come_from_the_answer_alone() -> None:
    body = json.dumps({"schemaVersion": 2, "manifests": []}).encode()
    assert parse_manifest(body, DOCKER_LIST, D).is_index


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'{"schemaVersion": 2, "schemaVersion": 2}', "duplicate key"),
        (b"[1]", "not a JSON object"),
        (b'{"schemaVersion": NaN}', "NaN is not JSON"),
        (b"\xff", "not UTF-8 JSON"),
        (b'{"schemaVersion": 1}', "schemaVersion is not 2"),
        (b'{"schemaVersion": true}', "schemaVersion is not 2"),
        (_index(size=-1), "not a count of bytes"),
        (_index(size=True), "not a count of bytes"),
        (_index(digest="sha256:xyz"), "is not a digest"),
        (_index(platform={"os": "linux", "architecture": 1}), "'architecture'"),
        (_index(platform="linux/amd64"), "not an object"),
        (json.dumps({"schemaVersion": 2, "mediaType": "text/plain"}).encode(), "served as"),
    ],
)
def test_a_malformed_manifest_is_refused(body: bytes, problem: str) -> None:
    with pytest.raises(BadAnswer, match=problem):
        parse_manifest(body, OCI_INDEX, D)


def test_a_body_that_contradicts_its_content_type_is_refused() -> None:
    with pytest.raises(BadAnswer, match="served as"):
        parse_manifest(_index(), OCI_MANIFEST, D)


def test_an_unknown_media_type_is_refused() -> None:
    with pytest.raises(BadAnswer, match="unsupported manifest media type"):
        parse_manifest(b'{"schemaVersion": 2}', "text/plain", D)


def test_a_config_names_its_platform() -> None:
    assert parse_config(b'{"os": "linux", "architecture": "amd64"}') == ("linux", "amd64", "")
