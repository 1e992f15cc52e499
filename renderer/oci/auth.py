"""Registry credentials from the files container tools keep them in.

Looked up the way ``podman`` and ``docker`` look: the containers auth file
(``REGISTRY_AUTH_FILE``) first, then the Docker config (``$DOCKER_CONFIG/config.json``,
else ``~/.docker/config.json``). An entry is keyed by host (``127.0.0.1:5000``), by a
URL of it (``https://host``, ``https://host/v1/``), and for Docker Hub by
``https://index.docker.io/v1/``. Only inline credentials (``auth``, or ``username`` and
``password``) are read: credential helpers are programs, and this tool runs none.

A credential never reaches text: :class:`Credential`'s ``repr`` hides the secret, and
errors name the file and the host, never what the entry holds.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renderer.errors import InputError
from renderer.oci.reference import DOCKER_HUB, DOCKER_HUB_API

#: An auth file larger than this is refused (they hold a few entries).
MAX_AUTH_FILE = 1 << 20


@dataclass(frozen=True)
class Credential:
    """A user name and secret for HTTP basic auth (and token requests), from ``source``."""

    username: str
    password: str = field(repr=False)
    source: str = ""

    def basic(self) -> str:
        """The ``Authorization`` header value."""
        raw = f"{self.username}:{self.password}".encode()
        return "Basic " + base64.b64encode(raw).decode("ascii")


def auth_files(env: Mapping[str, str] | None = None) -> list[Path]:
    """The auth files to read, in the order they are searched."""
    env = os.environ if env is None else env
    out: list[Path] = []
    if env.get("REGISTRY_AUTH_FILE"):
        out.append(Path(env["REGISTRY_AUTH_FILE"]))
    if env.get("DOCKER_CONFIG"):
        out.append(Path(env["DOCKER_CONFIG"]) / "config.json")
    else:
        home = env.get("HOME") or str(Path.home())
        out.append(Path(home) / ".docker" / "config.json")
    return out


def _keys(host: str) -> list[str]:
    keys = [host, f"https://{host}", f"http://{host}", f"https://{host}/v1/", f"https://{host}/v2/"]
    if host in (DOCKER_HUB, DOCKER_HUB_API):  # docker login stores Docker Hub's so
        keys += ["https://index.docker.io/v1/", "index.docker.io", DOCKER_HUB, DOCKER_HUB_API]
    return keys


def _read(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_AUTH_FILE + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot read the auth file: {exc.strerror}", file=str(path)) from None
    if len(raw) > MAX_AUTH_FILE:
        raise InputError(f"larger than {MAX_AUTH_FILE} bytes", file=str(path))
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        # the message of a JSON error may quote the file's text: a secret
        raise InputError("not valid JSON", file=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("not a JSON object", file=str(path))
    return data


def _entry(entry: Any, path: Path, host: str) -> Credential | None:
    where = str(path)
    if not isinstance(entry, dict):
        raise InputError(f"the entry for {host} is not an object", file=where, key="auths")
    if isinstance(entry.get("auth"), str) and entry["auth"]:
        try:
            decoded = base64.b64decode(entry["auth"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise InputError(
                f"the auth of {host} is not base64 of user:password", file=where, key="auths"
            ) from None
        user, sep, password = decoded.partition(":")
        if not sep or not user:
            raise InputError(
                f"the auth of {host} is not base64 of user:password", file=where, key="auths"
            )
        return Credential(user, password, where)
    name, secret = entry.get("username"), entry.get("password")
    if isinstance(name, str) and isinstance(secret, str) and name:
        return Credential(name, secret, where)
    # an empty entry is what docker leaves when a credential helper holds the secret
    return None


def lookup(host: str, env: Mapping[str, str] | None = None) -> Credential | None:
    """The first credential for registry ``host`` in :func:`auth_files`; None when no
    file has one (anonymous access)."""
    for path in auth_files(env):
        data = _read(path)
        auths = data.get("auths") if data else None
        if not isinstance(auths, dict):
            continue
        for key in _keys(host):
            found = _entry(auths[key], path, host) if key in auths else None
            if found is not None:
                return found
    return None
