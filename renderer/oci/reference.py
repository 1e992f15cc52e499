"""Image references and platforms, parsed the way container runtimes read them.

A reference is ``[registry/]path[:tag][@digest]``. Its first component is a registry
only when it looks like a host (has a ``.`` or a ``:``, or is ``localhost``); otherwise
the image is on Docker Hub (``docker.io``) and a single-component path is in
``library/``, which is what a kubelet pulls for ``calico/node:v3.28.2``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from renderer.errors import InputError, remedy

DOCKER_HUB = "docker.io"
#: Where Docker Hub's Distribution API answers (``docker.io`` is only its name).
DOCKER_HUB_API = "registry-1.docker.io"

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_PATH = re.compile(rf"^{_COMPONENT}(?:/{_COMPONENT})*$")
_HOST = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
    r"|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$"
)
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")
DIGEST = re.compile(r"^sha256:[a-f0-9]{64}$|^sha512:[a-f0-9]{128}$")
_PLATFORM_PART = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
#: The longest reference accepted (Distribution's own bound on a name is 255).
MAX_REFERENCE = 512


@dataclass(frozen=True, order=True)
class Reference:
    """A parsed image reference; ``tag`` is ``latest`` when neither tag nor digest is given."""

    registry: str
    path: str
    tag: str = ""
    digest: str = ""

    @property
    def name(self) -> str:
        """``registry/path`` (what the registry serves the repository as)."""
        return f"{self.registry}/{self.path}"

    @property
    def reference(self) -> str:
        """What is asked of ``/v2/<path>/manifests/<reference>``: the digest when pinned."""
        return self.digest or self.tag

    def __str__(self) -> str:
        tag = f":{self.tag}" if self.tag else ""
        digest = f"@{self.digest}" if self.digest else ""
        return f"{self.name}{tag}{digest}"

    @property
    def api_host(self) -> str:
        """The host:port the Distribution API is reached at."""
        return DOCKER_HUB_API if self.registry == DOCKER_HUB else self.registry


def _looks_like_host(component: str) -> bool:
    return "." in component or ":" in component or component == "localhost"


def parse(image: str) -> Reference:
    """``image`` as a :class:`Reference`; an InputError (key ``image``) says what is wrong."""
    if not image or len(image) > MAX_REFERENCE or any(c.isspace() for c in image):
        raise InputError(f"{image!r} is not an image reference", key="image")
    rest, _, digest = image.partition("@")
    if digest and not DIGEST.match(digest):
        raise InputError(f"{image!r}: {digest!r} is not a sha256 or sha512 digest", key="image")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    tag = ""
    if colon > slash:
        rest, tag = rest[:colon], rest[colon + 1 :]
        if not _TAG.match(tag):
            raise InputError(f"{image!r}: {tag!r} is not a tag", key="image")
    first, sep, remainder = rest.partition("/")
    if sep and _looks_like_host(first):
        registry, path = first, remainder
        if not _HOST.match(registry):
            raise InputError(f"{image!r}: {registry!r} is not a registry host", key="image")
    else:
        registry, path = DOCKER_HUB, rest
    if registry == DOCKER_HUB and "/" not in path:
        path = f"library/{path}"
    if not _PATH.match(path):
        raise InputError(f"{image!r}: {path!r} is not a repository path", key="image")
    if not tag and not digest:
        tag = "latest"
    return Reference(registry, path, tag, digest)


def parse_registry(url: str) -> tuple[str, str]:
    """``--registry``'s ``[https://]host[:port][/namespace]`` as (host, namespace)."""
    rest = url.strip()
    scheme, sep, after = rest.partition("://")
    if sep:
        if scheme != "https":
            hint = remedy("plain HTTP is allowed per host with {}", "insecure")
            raise InputError(
                f"{url!r}: only https:// may be given; {hint}",
                key="registry",
                argument="registry",
                value=url,
                hint=hint,
            )
        rest = after
    host, _, namespace = rest.rstrip("/").partition("/")
    if not host or not _HOST.match(host) or (namespace and not _PATH.match(namespace)):
        raise InputError(
            f"{url!r} is not a registry (host[:port][/namespace])",
            key="registry",
            argument="registry",
        )
    return host, namespace


def rewrite(ref: Reference, host: str, namespace: str = "") -> Reference:
    """``ref`` served by ``host`` instead of its own registry, under ``namespace`` when
    given: ``docker.io/calico/node:v1`` -> ``mirror:5000/calico/node:v1``. Docker Hub's
    implicit ``library/`` is kept, as a mirror of Docker Hub keeps it."""
    path = f"{namespace}/{ref.path}" if namespace else ref.path
    return replace(ref, registry=host, path=path)


@dataclass(frozen=True, order=True)
class Platform:
    """``os/architecture[/variant]`` as OCI indexes name platforms."""

    os: str
    architecture: str
    variant: str = ""

    def __str__(self) -> str:
        return "/".join(p for p in (self.os, self.architecture, self.variant) if p)

    def matches(self, os: str, architecture: str, variant: str = "") -> bool:
        """Whether an index entry (or image config) of ``os/architecture/variant`` runs
        on this platform: a variant asked for must be the entry's; none asked takes any
        (``linux/arm64`` accepts ``linux/arm64/v8``)."""
        if (os, architecture) != (self.os, self.architecture):
            return False
        return not self.variant or variant == self.variant


def parse_platform(text: str) -> Platform:
    """``linux/amd64`` or ``linux/arm/v7``; an InputError (key ``platform``) otherwise."""
    parts = text.strip().split("/")
    if len(parts) not in (2, 3) or not all(_PLATFORM_PART.match(p) for p in parts):
        raise InputError(
            f"{text!r} is not a platform: use os/architecture[/variant], e.g. linux/arm64",
            key="platform",
            argument="platform",
        )
    return Platform(*parts)


def parse_platforms(text: str) -> tuple[Platform, ...]:
    """A comma-separated list of platforms, in order, without repeats."""
    out: list[Platform] = []
    for part in text.split(","):
        platform = parse_platform(part)
        if platform not in out:
            out.append(platform)
    return tuple(out)
