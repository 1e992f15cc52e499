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
