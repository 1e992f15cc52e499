"""Manifests as a registry serves them, parsed strictly.

Four kinds answer a tag: an OCI image index and a Docker manifest list (one entry per
platform), an OCI image manifest and a Docker image manifest (one platform, named by its
config blob). A registry's answer is untrusted: a body that is not exactly what its media
type promises (duplicate keys, a wrong schemaVersion, a descriptor without a valid digest
or size, a platform that is not strings) is refused with a :class:`BadAnswer`, never
guessed at.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from renderer.errors import InputError
from renderer.oci.reference import DIGEST

OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
INDEXES = (OCI_INDEX, DOCKER_LIST)
IMAGES = (OCI_MANIFEST, DOCKER_MANIFEST)
#: The ``Accept`` header of a manifest request: every kind this module reads.
ACCEPT = ", ".join((*INDEXES, *IMAGES))


class BadAnswer(InputError):
    """A registry answered something that is not what the protocol allows (exit 2)."""


@dataclass(frozen=True)
class Descriptor:
    """A pointer to content: its media type, digest and size, and for an index entry
    its platform (os, architecture, variant)."""

    media_type: str
    digest: str
    size: int
    platform: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class Manifest:
    """A parsed manifest and the digest of its exact bytes."""

    media_type: str
    digest: str
    #: An index's entries (empty for an image manifest).
    entries: tuple[Descriptor, ...] = ()
    #: An image manifest's config blob (None for an index).
    config: Descriptor | None = None

    @property
    def is_index(self) -> bool:
        return self.media_type in INDEXES


def digest_of(body: bytes, algorithm: str = "sha256") -> str:
    """``sha256:<hex>`` of ``body`` (or ``sha512``)."""
    return f"{algorithm}:{hashlib.new(algorithm, body).hexdigest()}"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise BadAnswer(f"duplicate key {key!r}")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise BadAnswer(f"{name} is not JSON")


def load_json(body: bytes, what: str) -> dict[str, Any]:
    """``body`` as a JSON object: UTF-8, no duplicate keys, no NaN or Infinity."""
    try:
        data = json.loads(
            body.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_constant
        )
    except BadAnswer as exc:
        raise BadAnswer(f"malformed {what}: {exc.message}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 JSON"
        raise BadAnswer(f"malformed {what}: {reason}") from None
    if not isinstance(data, dict):
        raise BadAnswer(f"malformed {what}: not a JSON object")
    return data


def _string(data: dict[str, Any], key: str, what: str, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise BadAnswer(f"malformed {what}: {key!r} is not a string")
    return value


def _descriptor(data: Any, what: str, with_platform: bool) -> Descriptor:
    if not isinstance(data, dict):
        raise BadAnswer(f"malformed {what}: a descriptor is not an object")
    media_type = _string(data, "mediaType", what)
    digest = _string(data, "digest", what)
    if not DIGEST.match(digest):
        raise BadAnswer(f"malformed {what}: {digest[:80]!r} is not a digest")
    size = data.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise BadAnswer(f"malformed {what}: the size of {digest} is not a count of bytes")
    platform = None
    if with_platform and "platform" in data:
        p = data["platform"]
        if not isinstance(p, dict):
            raise BadAnswer(f"malformed {what}: the platform of {digest} is not an object")
        platform = (
            _string(p, "os", what),
            _string(p, "architecture", what),
            _string(p, "variant", what, required=False),
        )
    return Descriptor(media_type, digest, size, platform)


def parse_manifest(body: bytes, content_type: str, digest: str) -> Manifest:
    """A manifest of one of the four kinds; ``content_type`` is the response's media
    type and must agree with the body's own ``mediaType`` when it has one."""
    what = "manifest"
    data = load_json(body, what)
    if data.get("schemaVersion") != 2 or isinstance(data.get("schemaVersion"), bool):
        raise BadAnswer(f"malformed {what}: schemaVersion is not 2")
    declared = data.get("mediaType")
    if declared is not None and not isinstance(declared, str):
        raise BadAnswer(f"malformed {what}: 'mediaType' is not a string")
    media_type = declared or content_type
    if declared and content_type and content_type not in (declared, "application/json"):
        raise BadAnswer(f"malformed {what}: served as {content_type} but says {declared}")
    if media_type in INDEXES:
        entries = data.get("manifests")
        if not isinstance(entries, list):
            raise BadAnswer(f"malformed {what}: 'manifests' is not a list")
        return Manifest(
            media_type, digest, tuple(_descriptor(e, what, with_platform=True) for e in entries)
        )
    if media_type in IMAGES:
        layers = data.get("layers")
        if not isinstance(layers, list):
            raise BadAnswer(f"malformed {what}: 'layers' is not a list")
        for layer in layers:
            _descriptor(layer, what, with_platform=False)
        config = _descriptor(data.get("config"), what, with_platform=False)
        return Manifest(media_type, digest, config=config)
    raise BadAnswer(f"unsupported manifest media type {str(media_type)[:80]!r}")


def parse_config(body: bytes) -> tuple[str, str, str]:
    """The (os, architecture, variant) an image config names."""
    what = "image config"
    data = load_json(body, what)
    return (
        _string(data, "os", what),
        _string(data, "architecture", what),
        _string(data, "variant", what, required=False),
    )
