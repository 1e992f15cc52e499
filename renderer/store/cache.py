"""The result cache: answers of pure functions, kept between runs and checked on every read.

A value is stored under a key that is a digest of everything that decides it: the
caller's own inputs (template bytes, a context, a rendered text, an object and the
bytes of the schemas it is checked against) together with :func:`tool_digest`, the
tool's version and the bytes of its code and data, and the versions of the libraries
that decide a result. Change any of them and the key moves; a stale entry is never
read, only pruned in time.

An entry is one file, ``<kind>/<key>.json``: a first line holding the key and the
SHA-256 of the value's bytes, then the value as JSON. A reader takes the entry only
when the key it holds is the key asked for and the value's bytes hash to the
checksum; anything else (a truncated, flipped or foreign file) is a miss and the value
is computed again. Entries are written to a temporary file and renamed, so concurrent
runs see a whole entry or none.

The cache is read and written only in a directory owned by the current user that
neither group nor others may write (created so when missing); otherwise the run goes
uncached and :func:`problem` says why, once. Entry files are opened without
following symbolic links and without blocking, and read only when they are regular
files of the user's within a size bound, so a FIFO, a device or a link placed in the
cache is a miss, never a hang or a read elsewhere.

Where it lives: ``$CALICO_RENDER_CACHE_DIR``, else ``$XDG_CACHE_HOME/calico-render``,
else ``~/.cache/calico-render``. ``CALICO_RENDER_NO_CACHE=1`` (``--no-cache``) turns it
off; deleting the directory clears it.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from renderer import __version__
from renderer.data import bundled

ENV_DIR = "CALICO_RENDER_CACHE_DIR"
ENV_OFF = "CALICO_RENDER_NO_CACHE"

#: Size bound of the whole cache directory; the oldest entries go first beyond it.
MAX_BYTES = 256 * 1024 * 1024
#: The largest entry read back; a larger file is a miss.
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: Seconds between two size checks of the cache directory.
PRUNE_EVERY = 600
#: What pruning keeps, so a full cache is not pruned again on the next write.
_PRUNE_TO = 0.8
PRUNE_MARKER = ".last-prune"
#: Libraries whose versions decide a cached result (parsing, schemas, validation): the
#: module to find and the project name of its distribution.
_LIBRARIES = (
    ("ruamel.yaml", "ruamel.yaml"),
    ("_ruamel_yaml", "ruamel.yaml.clib"),
    ("jsonschema", "jsonschema"),
    ("referencing", "referencing"),
    ("kubernetes_validate", "kubernetes-validate"),
    ("jinja2", "jinja2"),
)
_DIST_INFO = re.compile(r"^(.+)-([^-]+)\.dist-info$")
#: The layout of entries; a new one moves every key.
_FORMAT = "2"
_KINDS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")

_lock = threading.Lock()
#: Why each cache directory this process looked at is not used (None: it is).
_problems: dict[str, str | None] = {}
#: Directories whose size this process has looked at (at most once each).
_pruned: set[str] = set()


def enabled() -> bool:
    """False when ``CALICO_RENDER_NO_CACHE`` is set to anything but empty or 0."""
    return os.environ.get(ENV_OFF, "") in ("", "0")


def disable() -> None:
    """Turn the cache off for this process and the worker processes it starts."""
    os.environ[ENV_OFF] = "1"


def location() -> str | None:
    """Where the cache lives (see the module); None when it is off or no home is known."""
    if not enabled():
        return None
    explicit = os.environ.get(ENV_DIR)
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return os.path.join(base, "calico-render")
    home = os.path.expanduser("~")
    if home == "~":
        return None
    return os.path.join(home, ".cache", "calico-render")


def directory() -> Path | None:
    """The cache directory when it may be used (see :func:`problem`), else None."""
    base = _usable()
    return None if base is None else Path(base)


def problem() -> str | None:
    """Why this process found the cache directory unusable when it last looked, or
    None (usable, off, or not looked at). The command line prints it once, as a note."""
    base = location()
    if base is None:
        return None
    with _lock:
        return _problems.get(base)


def _usable() -> str | None:
    """The cache directory, created private when missing, when it is private now
    (checked on every use: a long-lived caller sees a change)."""
    base = location()
    if base is None:
        return None
    if not os.path.lexists(base):
        with contextlib.suppress(OSError):
            os.makedirs(base, mode=0o700, exist_ok=True)
    why = _private(base)
    with _lock:  # a directory that cannot be made is no cache, not a problem to report
        _problems[base] = why if os.path.lexists(base) else None
    return base if why is None else None


def _private(path: str) -> str | None:
    """None when ``path`` is a real directory of the current user that group and others
    cannot write; else why it is not used."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cache directory {path} cannot be used ({exc.strerror}); running uncached"
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return f"cache directory {path} is not a directory; running uncached"
    if st.st_uid != os.geteuid():
        return f"cache directory {path} belongs to another user; running uncached"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"cache directory {path} is writable by others; running uncached"
    return None


@cache  # no arguments: one value per process
def tool_digest() -> str:
    """What, besides a key's own inputs, decides every cached result: this format, the
    tool's version, the bytes of its code and of its data schemas, the Python version
    and the versions of the libraries that parse and validate."""
    h = hashlib.sha256()
    for part in (_FORMAT, __version__, sys.version):
        _update(h, part.encode())
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in _sources(package, ""):
        _update(h, name.encode())
        with open(os.path.join(package, name), "rb") as fh:
            _update(h, fh.read())
    with contextlib.suppress(FileNotFoundError):
        schemas = bundled.data_dir("schemas")
        for path in sorted(schemas.glob("*.json")):
            _update(h, path.name.encode())
            _update(h, path.read_bytes())
    for module, project in _LIBRARIES:
        _update(h, f"{project} {_installed_version(module, project)}".encode())
    return h.hexdigest()


def _sources(root: str, prefix: str) -> list[str]:
    """The ``.py`` files below ``root`` (paths relative to it, ``/``-separated), by
    name, not into ``__pycache__``, the bundled data (``_data``, digested apart) nor
    through a link to a directory."""
    found: list[str] = []
    with os.scandir(os.path.join(root, prefix) if prefix else root) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in ("__pycache__", "_data"):
                    found += _sources(root, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".py"):
                found.append(prefix + entry.name)
    return found


def _installed_version(module: str, project: str) -> str:
    """The version of ``project`` from the ``.dist-info`` directory beside ``module``:
    what :mod:`importlib.metadata` reads, without importing it (and the email package)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return "absent"
    origin = Path(spec.origin)
    depth = module.count(".") + (origin.name == "__init__.py")
    where = origin.parents[depth]
    wanted = re.sub(r"[-_.]+", "_", project).lower()
    try:
        names = os.listdir(where)
    except OSError:
        return "unknown"
    for name in sorted(names):
        m = _DIST_INFO.match(name)
        if m and re.sub(r"[-_.]+", "_", m.group(1)).lower() == wanted:
            return m.group(2)
    return "unknown"


def key(*parts: str | bytes) -> str:
    """The key of a value decided by ``parts`` (and by :func:`tool_digest`): a digest of
    the parts, each length-prefixed so that parts cannot run together."""
    h = hashlib.sha256()
    _update(h, tool_digest().encode())
    for part in parts:
        _update(h, part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _update(h: Any, data: bytes) -> None:
    h.update(b"%d:" % len(data))
    h.update(data)


def _entry(base: str, kind: str, entry_key: str) -> str:
    if not kind or not set(kind) <= _KINDS:
        raise ValueError(f"not a cache kind: {kind!r}")
    return os.path.join(base, kind, f"{entry_key}.json")


def get(kind: str, entry_key: str, valid: Callable[[Any], bool] = lambda _: True) -> Any | None:
    """The value stored under ``entry_key``, or None: the cache is off, the entry is
    missing, damaged, not the user's regular file, stored under another key, or its
    value fails ``valid`` (a shape check the caller relies on)."""
    base = _usable()
    if base is None:
        return None
    path = _entry(base, kind, entry_key)
    if not _kind_readable(os.path.dirname(path)):
        return None
    data = _read(path)
    if data is None:
        return None
    head, newline, body = data.partition(b"\n")
    try:
        header = json.loads(head)
        if not newline or header != {"key": entry_key, "sha256": _sha(body)}:
            return None
        value = json.loads(body)
        return value if valid(value) else None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None


def _kind_readable(folder: str) -> bool:
    """Whether a kind's directory exists and is private (a link, or one others may
    write, is never read)."""
    return os.path.lexists(folder) and _private(folder) is None


def _read(path: str) -> bytes | None:
    """The bytes of ``path`` when it is the user's regular file within the size bound,
    opened without following a link and without waiting on a FIFO; else None."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return None
        if st.st_size > MAX_ENTRY_BYTES:
            return None
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > MAX_ENTRY_BYTES:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def put(kind: str, entry_key: str, value: Any) -> None:
    """Store ``value`` (JSON data) under ``entry_key``; any failure leaves the cache as
    it was (the value is simply computed again next time)."""
    base = _usable()
    if base is None:
        return
    try:
        body = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(
            "utf-8", "surrogatepass"
        )
    except (TypeError, ValueError, UnicodeEncodeError):
        return
    header = json.dumps({"key": entry_key, "sha256": _sha(body)}).encode()
    _write(base, _entry(base, kind, entry_key), header + b"\n" + body)


def _write(base: str, path: str, data: bytes) -> None:
    """Write one entry to a temporary file in its kind's directory and rename it."""
    folder = os.path.dirname(path)
    if not _kind_directory(folder):
        return
    tmp = os.path.join(folder, f".{os.urandom(8).hex()}.tmp")
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    if base not in _pruned:
        _pruned.add(base)
        _maybe_prune(base)


def _kind_directory(folder: str) -> bool:
    """Whether ``folder`` (a kind's directory) is, or is made, a private directory of ours."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    return _private(folder) is None


def _maybe_prune(base: str) -> None:
    """Prune when the last size check is older than :data:`PRUNE_EVERY` seconds, so a
    large cache is not walked by every run that writes to it."""
    marker = os.path.join(base, PRUNE_MARKER)
    try:
        if time.time() - os.lstat(marker).st_mtime < PRUNE_EVERY:
            return
    except OSError:
        pass
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.utime(fd)
        os.close(fd)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            return
    prune(Path(base))


def prune(base: Path, limit: int = MAX_BYTES) -> int:
    """Remove the oldest entries until the directory holds at most ``limit`` bytes and
    return how many went. Only the cache's own files are looked at: ``<kind>/<hex>.json``
    and their temporary files; anything else kept in the same directory is left alone."""
    entries: list[tuple[int, int, str]] = []
    total = 0
    try:
        kinds = [e for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return 0
    for kind in kinds:
        if not set(kind.name) <= _KINDS:
            continue
        with contextlib.suppress(OSError), os.scandir(kind.path) as found:
            for entry in found:
                if not _own_file(entry.name) or not entry.is_file(follow_symlinks=False):
                    continue
                st = entry.stat(follow_symlinks=False)
                total += st.st_size
                entries.append((st.st_mtime_ns, st.st_size, entry.path))
    removed = 0
    if total <= limit:
        return 0
    for _, size, path in sorted(entries):
        if total <= limit * _PRUNE_TO:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _own_file(name: str) -> bool:
    """``<64 hex>.json`` or ``.<16 hex>.tmp``: the names this module writes."""
    if name.endswith(".json"):
        stem = name[:-5]
        return len(stem) == 64 and all(c in "0123456789abcdef" for c in stem)
    if name.startswith(".") and name.endswith(".tmp"):
        stem = name[1:-4]
        return len(stem) == 16 and all(c in "0123456789abcdef" for c in stem)
    return False


__all__ = [
    "ENV_DIR",
    "ENV_OFF",
    "directory",
    "disable",
    "enabled",
    "get",
    "key",
    "location",
    "problem",
    "prune",
    "put",
    "tool_digest",
]
