"""A persistent cache of pure results: schema verdicts, capability verdicts, parses,
renders (per template and context), injection answers, render contexts that passed.

Each entry is the result of a pure function of its key, so a hit can only save time,
never change a verdict. A key is a content digest of the inputs together with a
fingerprint of everything else that decides the result: the tool's version and code,
the Python version and the versions and files of kubernetes-validate (its schemas),
jsonschema, referencing and ruamel.yaml. Installing another version of any of them
moves every key, so stale entries are never read (and are evicted in time).

Entries live in ``$CALICO_RENDER_CACHE_DIR`` or ``$XDG_CACHE_HOME/calico-render``
(``~/.cache/calico-render``), one JSON file each, written to a temporary file and
renamed, so concurrent runs see a whole entry or none. Each entry repeats its full key
and a reader checks it and the value's shape: a corrupt, truncated or foreign file is a
miss, never an error. The directory is bounded (:data:`MAX_BYTES`; oldest entries go
first). ``CALICO_RENDER_NO_CACHE=1`` or ``--no-cache`` turns it off; deleting the
directory clears it.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from renderer import __version__
from renderer.data import bundled as resources
from renderer.store import home
from renderer.store.home import ENV_DIR as ENV_DIR  # where tests and callers look for it
from renderer.store.home import ENV_OFF
from renderer.store.memo import Memo

#: Size bound of the whole cache directory; the oldest entries are removed beyond it.
MAX_BYTES = 256 * 1024 * 1024
#: Seconds between two size checks of the cache directory.
PRUNE_EVERY = 600
_MARKER = home.PRUNE_MARKER
#: What pruning keeps, so a full cache is not pruned again on the next write.
_PRUNE_TO = 0.8
#: Packages whose code decides a cached result; their installed files are fingerprinted.
_PACKAGES = ("kubernetes_validate", "jsonschema", "referencing", "ruamel.yaml", "_ruamel_yaml")
_FORMAT = 1

#: Directories whose size this process has checked (at most one check per process).
_PRUNED: Memo[str, bool] = Memo("store.cache.pruned", 64)


#: Inside :func:`reading_only`: entries are read, none written (this thread or task).
_READING_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "calico_render_cache_reading_only", default=False
)


@contextlib.contextmanager
def reading_only() -> Iterator[None]:
    """Read entries, write none, for work whose result is kept by other means: the
    three renders of a capability verdict are kept as the verdict, so a render on a cold
    cache does not also write a file per render and parse that only the verdict used."""
    token = _READING_ONLY.set(True)
    try:
        yield
    finally:
        _READING_ONLY.reset(token)


class Held:
    """Entries put inside :func:`holding`, not yet in the directory: work done ahead of
    knowing whether it is wanted (a render while its capability verdict is judged aside)
    writes what the same work done in turn would have written, and nothing else.

    :meth:`write` stores them, :meth:`drop` forgets them; until then :func:`get` reads
    them back, as it would read them written.
    """

    def __init__(self) -> None:
        #: Full key -> (kind, the entry's JSON), in the order they were put.
        self._entries: dict[str, tuple[str, str]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def _store(self, full: str, kind: str, data: str) -> None:
        base = home.cache_directory()
        if base is not None:
            _store(base, kind, full, data)

    def write(self) -> None:
        """Store every held entry, as :func:`put` would have."""
        entries, self._entries = self._entries, {}
        for full, (kind, data) in entries.items():
            self._store(full, kind, data)
        _drop(self)

    def drop(self) -> None:
        """Forget every held entry: the work they came from was not wanted."""
        self._entries = {}
        _drop(self)


#: Holds whose entries :func:`get` reads (see :class:`Held`).
_HOLDS: list[Held] = []
#: Inside :func:`holding`: where this thread's or task's puts go.
_HOLDING: contextvars.ContextVar[Held | None] = contextvars.ContextVar(
    "calico_render_cache_holding", default=None
)


def _drop(held: Held) -> None:
    with contextlib.suppress(ValueError):
        _HOLDS.remove(held)


@contextlib.contextmanager
def holding(held: Held) -> Iterator[Held]:
    """Hold the entries put here (this thread or task) in ``held`` instead of writing
    them; ``held`` decides later (:meth:`Held.write`, :meth:`Held.drop`)."""
    if held not in _HOLDS:
        _HOLDS.append(held)
    token = _HOLDING.set(held)
    try:
        yield held
    finally:
        _HOLDING.reset(token)


def writing() -> bool:
    """Whether :func:`put` writes here (not inside :func:`reading_only`)."""
    return not _READING_ONLY.get()


def disable() -> None:
    """Turn the cache off for this process and the worker processes it starts."""
    os.environ[ENV_OFF] = "1"


def enabled() -> bool:
    return home.enabled()


def directory() -> Path | None:
    """The cache directory, or None when the cache is off or no home can be found
    (:func:`renderer.store.home.cache_directory`)."""
    found = home.cache_directory()
    return None if found is None else Path(found)


#: The files whose size and modification time :func:`fingerprint` read.
_FINGERPRINTED: list[str] = []


def fingerprinted_files() -> tuple[str, ...]:
    """The files :func:`fingerprint` depends on: a memo of a whole run
    (:mod:`renderer.store.invocation`) checks them, since results it served from this
    cache were keyed by them."""
    fingerprint()
    return tuple(_FINGERPRINTED)


def _stat_files(
    root: str, recursive: bool, suffixes: tuple[str, ...] = (".py", ".so")
) -> list[str]:
    """``path:size:mtime`` of each file under ``root`` whose name ends with ``suffixes``
    (its path relative to ``root``), and below it when ``recursive`` (not into
    ``__pycache__``, ``_data`` or a linked directory), in the order ``os.walk`` gives
    them: a directory's files by name, then each subdirectory by name. One
    ``os.scandir`` per directory names the paths (every run of the tool walks its own
    package: ``os.walk`` and ``os.path.relpath`` cost more than the stats)."""
    out: list[str] = []
    todo = [(root, "")]
    while todo:
        where, prefix = todo.pop()
        try:
            with os.scandir(where) as found:
                entries = sorted(found, key=_entry_name)
        except OSError:
            continue
        below: list[tuple[str, str]] = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if recursive and name not in ("__pycache__", "_data") and not entry.is_symlink():
                    below.append((entry.path, f"{prefix}{name}{os.sep}"))
            elif name.endswith(suffixes):
                path = entry.path
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                _FINGERPRINTED.append(path)
                out.append(f"{prefix}{name}:{st.st_size}:{st.st_mtime_ns}")
        todo.extend(reversed(below))
    return out


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


@cache  # no arguments: one value per process
def fingerprint() -> str:
    """What, besides a key's own inputs, decides every cached result (see module doc)."""
    parts = [f"format {_FORMAT}", f"calico-render {__version__}", f"python {sys.version}"]
    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package
    parts += _stat_files(own, recursive=True)
    try:  # the render context's schema supplies defaults every render sees
        parts += _stat_files(str(resources.data_dir("schemas")), False, (".json",))
    except FileNotFoundError:
        parts.append("schemas: absent")
    for name in _PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            parts.append(f"{name}: absent")
            continue
        locations = list(spec.submodule_search_locations or [])
        if locations:
            parts.append(f"{name}: {locations[0]}")
            parts += _stat_files(locations[0], recursive=False)
        elif spec.origin:
            st = os.stat(spec.origin)
            _FINGERPRINTED.append(spec.origin)
            parts.append(f"{name}: {spec.origin}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


#: A first part at least this long is remembered by :func:`digest` (see :data:`_LAST`).
_LONG = 1 << 14
#: The last long first part :func:`digest` took and the hash after it: a rendered text
#: is digested for its injection answer, then for its parse, and is encoded and hashed
#: once. A ``str`` never changes, so the same object is the same text.
_LAST: tuple[str, Any] | None = None


def digest(*parts: str) -> str:
    """A content digest of text parts (length-prefixed, so parts cannot run together)."""
    global _LAST
    rest: tuple[str, ...] = parts
    last = _LAST
    if parts and last is not None and last[0] is parts[0]:
        h = last[1].copy()
        rest = parts[1:]
    else:
        h = hashlib.sha256()
        if parts and len(parts[0]) >= _LONG:
            _update(h, parts[0])
            _LAST = (parts[0], h.copy())
            rest = parts[1:]
    for part in rest:
        _update(h, part)
    found: str = h.hexdigest()
    return found


def _update(h: Any, part: str) -> None:
    data = part.encode("utf-8", "surrogatepass")
    h.update(b"%d:" % len(data))
    h.update(data)


def _entry_path(base: str, kind: str, full_key: str) -> str:
    """One flat directory per kind: a new shard directory per entry would cost more
    than the entry (entries number in the thousands, not millions). A string, not a
    :class:`~pathlib.Path`: entries are looked up by the hundred in a run."""
    name = hashlib.sha256(full_key.encode("utf-8")).hexdigest()
    return os.path.join(base, kind, f"{name}.json")


def _full_key(kind: str, key: str) -> str:
    return f"{kind}\n{fingerprint()}\n{key}"


def get(kind: str, key: str, valid: Callable[[Any], bool]) -> Any | None:
    """The value stored for ``key``, or None on a miss.

    A file that is unreadable, not JSON, stored under another key or whose value fails
    ``valid`` is a miss: the cache is never trusted over recomputing.
    """
    base = home.cache_directory()
    if base is None:
        return None
    return _get(base, kind, _full_key(kind, key), valid, True)


def get_encoded(kind: str, key: str) -> str | None:
    """The value stored for ``key`` as the JSON text :func:`put_encoded` took, or None:
    a miss, or an entry not laid out as :func:`put_encoded` writes it. The text is as
    untrusted as the entry: the caller decodes and checks it (a caller that keeps what
    an encoding is, the parse, reads each object's JSON from it)."""
    base = home.cache_directory()
    if base is None:
        return None
    full = _full_key(kind, key)
    held = _held(full)
    try:
        if held is not None:
            data = held[1]
        else:
            with open(_entry_path(base, kind, full), "rb") as fh:
                data = fh.read().decode("utf-8")
    except (OSError, ValueError):
        return None
    head = '{"key":' + json.dumps(full) + ',"value":'
    if not (data.startswith(head) and data.endswith("}")):
        return None
    return data[len(head) : -1]


def _held(full: str) -> tuple[str, str] | None:
    """The held entry (kind, JSON) with full key ``full`` (:class:`Held`), or None."""
    return next((found for h in _HOLDS if (found := h._entries.get(full)) is not None), None)


def may_hold(kind: str) -> bool:
    """Whether an entry of ``kind`` could be read here at all: one is held
    (:class:`Held`), or the kind's directory exists. False lets a caller skip what only
    a lookup needs (a digest of its key) on a cold cache."""
    base = home.cache_directory()
    if base is None:
        return False
    held = any(k == kind for h in _HOLDS for k, _ in h._entries.values())
    return held or os.path.isdir(os.path.join(base, kind))


def get_many(kind: str, keys: Sequence[str], valid: Callable[[Any], bool]) -> list[Any | None]:
    """:func:`get` of each of ``keys``, in order. When the kind's directory does not
    exist (a cold cache), every key not held (:class:`Held`) is a miss on one look at
    the directory, instead of one failed open per key; a directory another process
    creates meanwhile is looked into on the next call."""
    base = home.cache_directory()
    if base is None:
        return [None] * len(keys)
    fulls = [_full_key(kind, key) for key in keys]
    stored = os.path.isdir(os.path.join(base, kind))
    return [_get(base, kind, full, valid, stored) for full in fulls]


def _get(base: str, kind: str, full: str, valid: Callable[[Any], bool], stored: bool) -> Any:
    """The value of the entry with full key ``full``, held or (``stored``) in the
    directory; None on a miss."""
    held = _held(full)
    try:
        if held is not None:
            entry = json.loads(held[1])
        elif not stored:
            return None
        else:
            with open(_entry_path(base, kind, full), "rb") as fh:
                entry = json.loads(fh.read())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != full or "value" not in entry:
        return None
    value = entry["value"]
    try:
        return value if valid(value) else None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None


def put(kind: str, key: str, value: Any) -> None:
    """Store ``value`` (JSON data) for ``key``; any failure leaves the cache as it was.
    Nothing is stored inside :func:`reading_only`."""
    if home.cache_directory() is None or _READING_ONLY.get():
        return
    try:
        encoded = encode(value)
    except (TypeError, ValueError):
        return
    put_encoded(kind, key, encoded)


def encode(value: Any) -> str:
    """``value`` as the JSON text an entry holds (:func:`put_encoded` takes it)."""
    return json.dumps(value, separators=(",", ":"))


def put_encoded(kind: str, key: str, encoded: str) -> None:
    """:func:`put` of a value already encoded by :func:`encode`: a caller that keeps
    the text itself (the parse memo) encodes once."""
    base = home.cache_directory()
    if base is None or _READING_ONLY.get():
        return
    full = _full_key(kind, key)
    data = '{"key":' + json.dumps(full) + ',"value":' + encoded + "}"
    held = _HOLDING.get()
    if held is not None:
        held._entries[full] = (kind, data)
        return
    _store(base, kind, full, data)


def _store(base: str, kind: str, full: str, data: str) -> None:
    """Write one entry (its JSON ``data``) to a temporary file and rename it."""
    path = _entry_path(base, kind, full)
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")  # as secrets.token_hex
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        try:
            fd = os.open(tmp, flags, 0o600)
        except FileNotFoundError:  # the first entry of its kind
            os.makedirs(folder, exist_ok=True)
            fd = os.open(tmp, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    if base not in _PRUNED:  # at most one size check per process and directory
        _PRUNED[base] = True
        _maybe_prune(base)


def _maybe_prune(base: str) -> None:
    """Prune when the last size check is older than :data:`PRUNE_EVERY` seconds, so a
    large cache is not walked by every run that writes to it."""
    marker = Path(base, _MARKER)
    try:
        if time.time() - marker.stat().st_mtime < PRUNE_EVERY:
            return
    except OSError:
        pass
    try:
        marker.touch()
    except OSError:
        return
    prune(Path(base))


def prune(base: Path, limit: int = MAX_BYTES) -> int:
    """Remove the oldest entries until the directory holds at most ``limit`` bytes.

    Returns how many were removed. Entries are whole files, so removing one a
    concurrent run is about to read only costs that run a miss.
    """
    entries: list[tuple[int, int, str]] = []
    total = 0
    root = str(base)
    for dirpath, dirnames, filenames in os.walk(root):
        # only the kinds' directories, one level down: anything else kept in the same
        # directory (a tree, when the cache directory is a project's) is not an entry
        dirnames[:] = [
            d for d in dirnames if dirpath == root and home.owned(root, os.path.join(root, d))
        ]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if name == home.PRUNE_MARKER or not home.owned(root, path):
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue
            total += st.st_size
            entries.append((st.st_mtime_ns, st.st_size, path))
    if total <= limit:
        return 0
    removed = 0
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


__all__ = [
    "Held",
    "digest",
    "directory",
    "disable",
    "enabled",
    "fingerprint",
    "get",
    "get_encoded",
    "get_many",
    "holding",
    "prune",
    "put",
    "reading_only",
]
