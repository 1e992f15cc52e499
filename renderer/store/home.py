"""Where the result cache lives and whether it is on: read by the cache itself and by
the run memo (:mod:`renderer.store.invocation`) before anything else is imported, so
this module imports nothing but :mod:`os`."""

from __future__ import annotations

import os

ENV_DIR = "CALICO_RENDER_CACHE_DIR"
ENV_OFF = "CALICO_RENDER_NO_CACHE"


def enabled() -> bool:
    """False when ``CALICO_RENDER_NO_CACHE`` is set to anything but empty or 0."""
    return os.environ.get(ENV_OFF, "") in ("", "0")


def cache_directory() -> str | None:
    """``$CALICO_RENDER_CACHE_DIR``, else ``$XDG_CACHE_HOME/calico-render`` (an absolute
    XDG_CACHE_HOME only, as the XDG spec says), else ``~/.cache/calico-render``; None
    when the cache is off or no home directory can be found."""
    if not enabled():
        return None
    explicit = os.environ.get(ENV_DIR)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return os.path.join(base, "calico-render")
    home = os.path.expanduser("~")
    if home == "~":
        return None
    return os.path.join(home, ".cache", "calico-render")


#: The file that records when the cache directory's size was last checked.
PRUNE_MARKER = ".last-prune"
_HEX = frozenset("0123456789abcdef")
_KIND_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def _hex(text: str, length: int) -> bool:
    return len(text) == length and set(text) <= _HEX


def _entry_name(name: str) -> bool:
    """A file name the cache writes: ``<sha256>.json`` and its temporary
    ``.<sha256>.json.<12 hex>.tmp``, a run memo entry ``<16 hex>`` and its temporary
    ``<16 hex>.<pid>.<8 hex>.tmp``."""
    if name.endswith(".json"):
        return _hex(name[:-5], 64)
    if name.startswith(".") and name.endswith(".tmp"):
        head, _, tail = name[1:-4].rpartition(".")
        return head.endswith(".json") and _hex(head[:-5], 64) and _hex(tail, 12)
    if name.endswith(".tmp"):
        parts = name[:-4].split(".")
        return len(parts) == 3 and _hex(parts[0], 16) and parts[1].isdigit() and _hex(parts[2], 8)
    return _hex(name, 16)


def owned(base: str, path: str) -> bool:
    """Whether ``path`` is the cache directory ``base``, one of its kinds' directories, or
    a file the cache writes there: anything else under ``base`` (a tree kept in the
    same directory) is not the cache's to read as its own, prune or skip."""
    prefix = os.path.join(base, "")
    if path.rstrip("/") == base.rstrip("/"):
        return True
    if not path.startswith(prefix):
        return False
    rel = path[len(prefix) :].rstrip("/")
    if rel == PRUNE_MARKER:
        return True
    kind, _, name = rel.partition("/")
    if not kind or not set(kind) <= _KIND_CHARS:
        return False
    return not name or ("/" not in name and _entry_name(name))
