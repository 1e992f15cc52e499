"""A memo of whole command-line runs: a render repeated on unchanged inputs is answered
with the bytes the first run wrote, without importing or computing anything.

A run is kept only when it is a pure function of what it could see, and everything it
saw is written down while it runs:

- its command line, working directory, environment (but for a few variables a shell
  changes between commands), whether stdin/stdout/stderr are terminals, and the
  interpreter (version, executable, flags, module path);
- every file it read (through an audit hook on ``open``), by the path as named (made
  absolute, not normalized): the bytes themselves, compared in full on reuse; a file
  of the installation (the interpreter's prefixes) by its size and modification time;
- every file it asked about (``os.stat``, ``os.lstat``, ``os.access``, ``os.readlink``,
  and so ``os.path.exists``, ``Path.is_dir``, ``os.path.realpath``...): absent, its
  type, a regular file's size and modification time, a symbolic link's target; a
  directory only by its type;
- every directory it listed (``os.listdir``/``os.scandir``, and so ``os.walk`` and
  ``glob``): the names and their types;
- the code that ran: each loaded module's file, and the files the result cache's
  fingerprint reads (:func:`renderer.store.cache.fingerprinted_files`), by size and
  modification time.

Anything it cannot account for spoils the run for keeping: a write outside the cache's
own entries (:func:`renderer.store.home.owned`; a tree kept in the cache directory is
traced like any other), reading stdin or anything under ``/proc``, ``/dev`` or ``/sys``
but this process's own memory use, a file over :data:`MAX_CONTENT`, a child process
(but work forked by :func:`fork`, whose child hands its trace back) or a socket,
changing directory, output it could not all write, an exit code other than 0 or 1
(bad input, an interrupt or a timeout are not kept), or a command that did not ask to
be kept (:func:`allow`; only the render does). Files the interpreter opens to import
modules are not traced: the modules are, as code.

On reuse every item is checked again, and any difference, an unreadable or corrupt
entry, or a closed stdout is a miss: the command then runs as usual. Entries live in
the result cache directory (``invocation/``; ``--no-cache`` and
``CALICO_RENDER_NO_CACHE=1`` turn them off too, ``CALICO_RENDER_NO_RUN_MEMO=1`` only
them), one file each, framed by a CRC and written atomically. This module imports
nothing heavier than :mod:`marshal` and :mod:`zlib`: reuse costs the interpreter's
start-up and the checks.
"""

from __future__ import annotations

import _thread
import contextlib
import io
import marshal
import os
import stat
import sys
import zlib

from renderer.store import home

TYPE_CHECKING = False  # typing itself costs a run served from here more than the rest
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: Bump when what an entry holds changes: older entries are then misses.
_FORMAT = 2
_MAGIC = b"calico-render run\n"
_KIND = "invocation"
#: Set to anything but empty or 0: no run is served or kept (the result cache still is).
ENV_OFF = "CALICO_RENDER_NO_RUN_MEMO"
#: What a shell changes between two commands without changing what a command does.
_VOLATILE_ENV = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
#: Audit events that change the file system: allowed only inside the cache directory.
_MUTATING = frozenset(
    {
        "os.chmod",
        "os.chown",
        "os.link",
        "os.mkdir",
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.symlink",
        "os.truncate",
        "os.utime",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "shutil.copytree",
        "shutil.move",
        "shutil.rmtree",
    }
)
#: Audit events whose effects cannot be traced: the run is not kept.
_UNTRACEABLE = (
    "subprocess.",
    "os.fork",
    "os.forkpty",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "os.kill",
    "os.chdir",
    "os.chroot",
    "socket.",
    "builtins.input",
    "ctypes.",
    "mmap.",
)
#: The os functions that ask about a path without opening it (and whether they follow
#: symbolic links): os.path and pathlib call them by these names.
_STAT_FUNCTIONS = (("stat", True), ("lstat", False), ("access", True), ("readlink", False))
#: Files this process reads about itself to bound its memory: not inputs.
_OWN_STATE = frozenset({"/proc/self/statm", f"/proc/{os.getpid()}/statm"})
#: Reading anything else here is not reading a file's bytes (``/proc/self/fd/0`` is
#: stdin, ``/dev/stdin`` too): such a run is not kept.
_SYSTEM_FILES = ("/proc/", "/dev/", "/sys/")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: Modes of ``open`` that do not write (most opens: checked before the letters).
_READ_MODES = frozenset({"r", "rb", "rt", "br", "tr"})
#: Frames of these files are the interpreter importing a module (traced as code).
_IMPORT_FRAMES = ("<frozen importlib", "<frozen zipimport")
#: The functions a recorder wraps while it runs (:data:`_STAT_FUNCTIONS`), as they are
#: before it does: the recorder's own questions go straight to them, untraced.
_os_stat, _os_lstat, _os_readlink = os.stat, os.lstat, os.readlink

#: What an audit event means to a recorder (:func:`_classify`): most events (compiling,
#: importing, reading a frame's code...) mean nothing and cost one lookup.
_IGNORED, _OPEN, _LIST, _MUTATE, _UNTRACED = range(5)
#: Each event's meaning, looked up by name before anything else; the names an
#: interpreter audits are few, a bound keeps a program that makes up names from growing it.
_KINDS: dict[str, int] = {}
_MAX_KINDS = 4096

#: The run being recorded in this process (at most one; see :func:`record`).
_ACTIVE: Recorder | None = None
#: Whether the running command may be kept (:func:`allow`).
_ALLOWED = False


def allow() -> None:
    """Say that the running command's output is a function of what it reads: it may be
    kept when nothing else spoils it. Called by the command, once its options are
    parsed (help text, for one, depends on the terminal's width and is not kept)."""
    global _ALLOWED
    _ALLOWED = True


def spoil(why: str) -> None:
    """Something the run did cannot be traced (reading stdin): it is not kept."""
    if _ACTIVE is not None:
        _ACTIVE.spoiled = _ACTIVE.spoiled or why


def _key(argv: list[str], cwd: str) -> bytes:
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k not in _VOLATILE_ENV))
    ttys = tuple(_isatty(fd) for fd in (0, 1, 2))
    interpreter = (
        sys.version,
        sys.executable,
        tuple(sys.flags),
        tuple(sys.path),
        tuple(sys.warnoptions),
        tuple(sorted((str(k), str(v)) for k, v in sys._xoptions.items())),
    )
    return marshal.dumps((_FORMAT, interpreter, tuple(argv), cwd, env, ttys))


def _cwd() -> str | None:
    """The working directory, or None when it is gone (no run is served or kept)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _entry_path(base: str, key: bytes) -> str:
    """A name from two checksums of the key: the entry holds the whole key, so two keys
    with one name only cost each other a miss."""
    name = f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}"
    return os.path.join(base, _KIND, name)


def _classify(event: str) -> int:
    """What ``event`` means to a recorder, remembered for the next time it is audited."""
    if event == "open":
        kind = _OPEN
    elif event in ("os.listdir", "os.scandir"):
        kind = _LIST
    elif event in _MUTATING:
        kind = _MUTATE
    elif event.startswith(_UNTRACEABLE):
        kind = _UNTRACED
    else:
        kind = _IGNORED
    if len(_KINDS) < _MAX_KINDS:
        _KINDS[event] = kind
    return kind


def _normal(path: str) -> bool:
    """Whether ``path`` is absolute and normal (no empty, ``.`` or ``..`` part, no
    trailing slash): ``os.path.abspath`` and ``os.path.normpath`` return it as it is."""
    return (
        path[:1] == "/"
        and "//" not in path
        and "/./" not in path
        and "/../" not in path
        and not path.endswith(("/", "/.", "/.."))
    )


def _absolute(path: str) -> str:
    """``os.path.abspath(path)``, without its cost on a normal path: module files are."""
    return path if _normal(path) else os.path.abspath(path)


def _installed_prefixes() -> tuple[str, ...]:
    """Where the interpreter and installed packages live: files there change only when
    something is installed, which changes their size or time."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return tuple(sorted(os.path.join(p, "") for p in found if p))


def _stat_signature(path: str, follow: bool) -> tuple[int, int, int, str] | None:
    """None when absent; else (type, size, mtime, "") for a regular file, (type, 0, 0,
    target) for a symbolic link and (type, 0, 0, "") for anything else: a directory
    gains entries all the time without changing a run."""
    try:
        st = _os_stat(path) if follow else _os_lstat(path)
    except (OSError, ValueError):
        return None
    return _signature_of(st, path)


def _signature_of(st: os.stat_result, path: str) -> tuple[int, int, int, str] | None:
    """:func:`_stat_signature` of ``path`` whose status is ``st``."""
    kind = stat.S_IFMT(st.st_mode)
    if kind == stat.S_IFREG:
        return (kind, st.st_size, st.st_mtime_ns, "")
    if kind == stat.S_IFLNK:
        try:
            return (kind, 0, 0, _os_readlink(path))
        except (OSError, ValueError):
            return None
    return (kind, 0, 0, "")


def _listing(path: str) -> tuple[tuple[str, bool, bool, bool], ...] | None:
    try:
        with os.scandir(path) as entries:
            found = [(e.name, e.is_dir(), e.is_file(), e.is_symlink()) for e in entries]
        return tuple(sorted(found))
    except (OSError, ValueError):
        return None


#: The largest file a kept run may have read (twice what any input may be): a larger
#: one is not copied into an entry, and the run is not kept.
MAX_CONTENT = 16 * 1024 * 1024
#: What stands for a file too large to keep (never equal to a file's bytes).
_TOO_LARGE = "too large"


def _content(path: str) -> bytes | str | None:
    """A regular file's bytes (None: absent, not regular or unreadable; :data:`_TOO_LARGE`
    beyond :data:`MAX_CONTENT`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > MAX_CONTENT:
            return _TOO_LARGE
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > MAX_CONTENT:
                return _TOO_LARGE
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


# --- reuse -------------------------------------------------------------------------------


def _base() -> str | None:
    """The cache directory, when both the cache and the run memo are on."""
    if os.environ.get(ENV_OFF, "") not in ("", "0"):
        return None
    return home.cache_directory()


def serve(argv: list[str]) -> int | None:
    """Write what an earlier identical run wrote, if every input is unchanged, and
    return its exit code; None when there is no such run (then run the command)."""
    base, cwd = _base(), _cwd()
    if base is None or cwd is None:
        return None
    key = _key(argv, cwd)
    try:
        with open(_entry_path(base, key), "rb") as fh:
            raw = fh.read()
        entry = _decode(raw)
        if entry is None or entry[0] != key or not _unchanged(entry):
            return None
        os.fstat(1)  # a closed stdout is the command's to report
        os.fstat(2)
    except (OSError, ValueError, TypeError, EOFError, IndexError):
        return None
    code: int = entry[1]
    return _replay(entry[2], code)


def _decode(raw: bytes) -> tuple[Any, ...] | None:
    head = len(_MAGIC)
    if not raw.startswith(_MAGIC) or len(raw) < head + 4:
        return None
    crc, payload = int.from_bytes(raw[head : head + 4], "big"), raw[head + 4 :]
    if zlib.crc32(payload) != crc:
        return None
    entry = marshal.loads(payload)
    if not (isinstance(entry, tuple) and len(entry) == 7 and entry[1] in (0, 1)):
        return None
    outputs = entry[2]
    if not isinstance(outputs, tuple) or not all(
        isinstance(o, tuple) and len(o) == 2 and o[0] in (1, 2) and isinstance(o[1], bytes)
        for o in outputs
    ):
        return None
    return entry


def _unchanged(entry: tuple[Any, ...]) -> bool:
    """Whether everything ``entry`` records is as it was: the code, then the inputs."""
    for path, size, mtime in entry[3]:
        try:
            st = _os_stat(path)
        except OSError:
            return False
        if (st.st_size, st.st_mtime_ns) != (size, mtime):
            return False
    return _inputs_unchanged(entry)


def _inputs_unchanged(entry: tuple[Any, ...]) -> bool:
    """Whether the files, paths and directories ``entry`` records are as they were."""
    _, _, _, _, files, stats, listings = entry
    for path, follow, signature in stats:
        if _stat_signature(path, follow) != signature:
            return False
    for path, listing in listings:
        if _listing(path) != listing:
            return False
    for path, how, seen in files:
        if how == "content":
            if isinstance(seen, bytes):  # the size first: a file grown huge is not read
                signature = _stat_signature(path, True)
                if signature is None or signature[1] != len(seen):
                    return False
            if _content(path) != seen:
                return False
        elif _stat_signature(path, True) != seen:
            return False
    return True


def _replay(outputs: tuple[tuple[int, bytes], ...], code: int) -> int:
    """The kept bytes to stdout and stderr in the order they were written, ending as
    the command ends when it cannot write: a closed pipe quietly with 0; stdout failing
    otherwise (a full disk) with one line and 2; stderr failing otherwise with 1."""
    for fd, data in outputs:
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BrokenPipeError:
                return 0
            except OSError as exc:
                if fd != 1:
                    return 1
                why = exc.strerror or str(exc)
                line = f"calico-render: error: cannot write to standard output: {why}\n"
                with contextlib.suppress(OSError):
                    os.write(2, line.encode())
                return 2
            view = view[written:]
    return code


# --- recording ---------------------------------------------------------------------------


class _Tee(io.RawIOBase):
    """A standard stream's file descriptor that remembers what went through it."""

    def __init__(self, fd: int, outputs: list[tuple[int, bytes]]) -> None:
        super().__init__()
        self._fd = fd
        self._outputs = outputs

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return _isatty(self._fd)

    def write(self, data: Any) -> int:
        try:
            written = os.write(self._fd, data)
        except OSError:
            spoil(f"writing to descriptor {self._fd} failed")  # a reader gone, a full disk
            raise
        self._outputs.append((self._fd, bytes(memoryview(data)[:written])))
        return written

    def close(self) -> None:  # the descriptor stays the interpreter's
        super().close()


def _teed(stream: Any, fd: int, outputs: list[tuple[int, bytes]]) -> Any:
    """A text stream like ``stream`` (encoding, errors, buffering) over a :class:`_Tee`."""
    raw = _Tee(fd, outputs)
    buffered = io.BufferedWriter(raw)
    return io.TextIOWrapper(
        buffered,
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )


class Recorder:
    """Traces one run (see the module doc) and keeps it when nothing spoiled it."""

    def __init__(self, argv: list[str], base: str, cwd: str) -> None:
        self.key = _key(argv, cwd)
        self.base = base
        #: What a normal path the cache owns starts with (see :func:`home.owned`).
        self._base_text = base.rstrip("/")
        self.cwd = cwd
        self.installed = _installed_prefixes()
        self.spoiled: str | None = None
        self.outputs: list[tuple[int, bytes]] = []
        self.reads: dict[str, tuple[str, Any]] = {}
        self.stats: dict[tuple[str, bool], tuple[int, int, int, str] | None] = {}
        self.listings: dict[str, Any] = {}
        #: Threads inside the recorder's own file calls (not traced): one thread's
        #: snapshot must not hide another thread's read.
        self._busy: set[int] = set()
        self._saved: dict[str, Any] = {}
        self._teed: dict[str, Any] = {}
        #: Code a forked child of this run loaded (see :func:`add_trace`).
        self.child_code: set[str] = set()

    # the trace

    def _name(self, path: Any) -> str:
        """A path as the run named it, made absolute against the working directory but
        not normalized: ``link/..`` is where the system says, not where text says."""
        if type(path) is str and path[:1] == "/":
            return path  # what the rest would return, at a fraction of the cost
        name = os.fsdecode(path)
        return name if os.path.isabs(name) else os.path.join(self.cwd, name)

    def _cache_own(self, name: str) -> bool:
        """The result cache's own directories and entries (content-keyed, never a
        dependency); nothing reached through ``..``, whatever the text says."""
        if _normal(name):  # most paths: only a look at the text
            return name.startswith(self._base_text) and home.owned(self.base, name)
        return "/../" not in f"{name}/" and home.owned(self.base, os.path.normpath(name))

    def _quiet(self) -> bool:
        """Whether the recorder itself is at work in this thread (its own file calls are
        not traced; one thread's snapshot must not hide another thread's read)."""
        return bool(self._busy) and _thread.get_ident() in self._busy

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        kind = _KINDS.get(event)
        self._dispatch(
            _classify(event) if kind is None else kind, event, args, sys._getframe(0).f_back
        )

    def _dispatch(self, kind: int, event: str, args: tuple[Any, ...], caller: Any) -> None:
        """Trace one audited event of kind ``kind`` (:func:`_classify`), raised by code
        running in frame ``caller``."""
        if not kind or self.spoiled or self._quiet():
            return
        if kind == _OPEN:
            self._open(args, caller)
        elif kind == _LIST:
            self._list(args[0], caller)
        elif kind == _MUTATE:
            paths = [a for a in args if isinstance(a, str | bytes | os.PathLike)]
            if not paths or not all(self._cache_own(self._name(p)) for p in paths):
                self.spoiled = event
        else:
            self.spoiled = event

    @staticmethod
    def _from_import(frame: Any) -> bool:
        """Whether the audited call came from the interpreter's import machinery: the
        first frame outside this module, from ``frame`` (the hook's caller) out."""
        while frame is not None:
            filename = frame.f_code.co_filename  # itself an audited event: read once
            if filename != __file__:
                return bool(filename.startswith(_IMPORT_FRAMES))
            frame = frame.f_back
        return False

    def _open(self, args: tuple[Any, ...], caller: Any) -> None:
        path, mode, flags = args if len(args) == 3 else (*args, None, None, None)[:3]
        if isinstance(path, int) or path is None:
            return  # an open descriptor (its file was traced when opened)
        name = path if type(path) is str and path[:1] == "/" else self._name(path)
        writes = (
            isinstance(mode, str) and mode not in _READ_MODES and any(c in mode for c in "wax+")
        ) or (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if not writes and not name.startswith(_SYSTEM_FILES):
            # most opens: a module imported (traced as code) or a file read again
            if name in self.reads:
                return
            while caller is not None:  # the first frame outside this module: importing?
                filename = caller.f_code.co_filename  # itself an audited event: read once
                if filename != __file__:
                    if filename.startswith(_IMPORT_FRAMES):
                        return
                    break
                caller = caller.f_back
            if not self._cache_own(name):
                self.reads[name] = self._snapshot(name)
        elif self._cache_own(name) or name in _OWN_STATE:
            return  # the result cache, and this process's memory use (read to bound it)
        elif writes:
            self.spoiled = f"writes {name}"
        else:
            self.spoiled = f"reads {name}"  # /proc/self/fd/0 is stdin: not a file's bytes

    def _snapshot(self, path: str) -> tuple[str, Any]:
        """How a file read is checked on reuse: its bytes, or for a file of the
        installation its size and time."""
        signature = _stat_signature(path, True)
        if path.startswith(self.installed) and "/../" not in path:
            return ("stat", signature)
        if signature is not None and signature[0] != stat.S_IFREG:
            self.spoiled = f"reads a special file {path}"
        me = _thread.get_ident()
        self._busy.add(me)  # the read's own open is not a read of the run
        try:
            content = _content(path)
        finally:
            self._busy.discard(me)
        if content == _TOO_LARGE:
            self.spoiled = f"reads a file larger than {MAX_CONTENT} bytes"
        return ("content", content)

    def _list(self, path: Any, caller: Any) -> None:
        if isinstance(path, int):
            self.spoiled = "lists a directory descriptor"
            return
        name = self._name(path if path is not None else ".")
        if name in self.listings or self._from_import(caller) or self._cache_own(name):
            return
        me = _thread.get_ident()
        self._busy.add(me)  # the listing's own scandir is not a listing of the run
        try:
            self.listings[name] = _listing(name)
        finally:
            self._busy.discard(me)

    def _stat_wrapper(
        self, real: Callable[..., Any], follow_default: bool, answers: bool
    ) -> Callable[..., Any]:
        """``real`` (``os.stat``...), noting the first answer about each path; when
        ``answers`` (``os.stat``, ``os.lstat``), the answer the run itself got."""
        stats, busy = self.stats, self._busy

        def traced(path: Any, *args: Any, **kwargs: Any) -> Any:
            if not kwargs and type(path) is str and (path, follow_default) in stats:
                return real(path, *args)  # asked before, by this absolute name: noted
            if not self.spoiled and not (busy and _thread.get_ident() in busy):
                if kwargs and kwargs.get("dir_fd") is not None:
                    self.spoiled = "a path relative to a directory descriptor"
                elif not isinstance(path, int):
                    follow = bool(kwargs.get("follow_symlinks", follow_default))
                    name = self._name(path)
                    key = (name, follow)
                    if key not in stats and not self._cache_own(name):
                        if not answers:
                            stats[key] = _stat_signature(name, follow)  # untraced
                            return real(path, *args, **kwargs)
                        try:
                            st = real(path, *args, **kwargs)
                        except (OSError, ValueError):
                            stats[key] = None  # what _stat_signature says of it
                            raise
                        except BaseException:
                            stats[key] = _stat_signature(name, follow)
                            raise
                        stats[key] = _signature_of(st, name)
                        return st
            return real(path, *args, **kwargs)

        return traced

    # start and finish

    def start(self) -> None:
        global _ACTIVE
        _ACTIVE = self
        for name, follow in _STAT_FUNCTIONS:
            real = getattr(os, name)
            self._saved[name] = real
            setattr(os, name, self._stat_wrapper(real, follow, name in ("stat", "lstat")))
        for attr, fd in (("stdout", 1), ("stderr", 2)):
            stream = getattr(sys, attr)
            if stream is None or not hasattr(stream, "buffer"):
                self.spoiled = f"{attr} is not a file"  # closed at start: not teed
                continue
            self._saved[attr] = stream
            stream.flush()
            self._teed[attr] = _teed(stream, fd, self.outputs)
            setattr(sys, attr, self._teed[attr])

    def stop(self) -> None:
        """Restore the stat functions and streams; the trace ends."""
        global _ACTIVE
        if _ACTIVE is self:
            _ACTIVE = None
        for attr in ("stdout", "stderr"):
            stream = getattr(sys, attr)
            if attr not in self._saved:
                continue
            if stream is not self._teed.get(attr):  # replaced while it ran: not all seen
                self.spoiled = self.spoiled or f"{attr} was replaced"
            try:
                self._teed[attr].flush()
            except (OSError, ValueError):
                self.spoiled = self.spoiled or f"{attr} failed"
            setattr(sys, attr, self._saved[attr])
        for name, _ in _STAT_FUNCTIONS:
            if name in self._saved:
                setattr(os, name, self._saved[name])

    def finish(self, code: Any) -> None:
        """Stop tracing; keep the run when it may be kept (see the module doc)."""
        self.stop()
        if self.spoiled or not _ALLOWED or code not in (0, 1) or not home.enabled():
            return
        try:
            entry = self._entry(code)
            # nothing it read changed while it ran (the code's sizes and times are the
            # ones checked with the paths asked about, or were taken just now)
            if _inputs_unchanged(entry):
                self._write(entry)
        except (OSError, ValueError, TypeError):
            return

    def _entry(self, code: int) -> tuple[Any, ...]:
        modules = set()
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str):
                modules.add(_absolute(path))
        modules.update(self.child_code)
        cache = sys.modules.get("renderer.store.cache")
        if cache is not None:
            modules.update(_absolute(p) for p in cache.fingerprinted_files())
        code_files = []
        for path in sorted(modules):
            # a file the run asked about (the cache's fingerprint asks about its own
            # code) is checked again with the paths asked about before the entry is kept
            seen = self.stats.get((path, True))
            if seen is not None and seen[0] == stat.S_IFREG:
                code_files.append((path, seen[1], seen[2]))
                continue
            st = _os_stat(path)
            code_files.append((path, st.st_size, st.st_mtime_ns))
        files = [(p, how, seen) for p, (how, seen) in self.reads.items() if p not in modules]
        stats = tuple((path, follow, sig) for (path, follow), sig in self.stats.items())
        return (
            self.key,
            code,
            tuple(self.outputs),
            tuple(code_files),
            tuple(files),
            stats,
            tuple(self.listings.items()),
        )

    def _write(self, entry: tuple[Any, ...]) -> None:
        payload = marshal.dumps(entry)
        data = _MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload
        path = _entry_path(self.base, self.key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with open(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _hook(event: str, args: tuple[Any, ...], _kind: Callable[..., int] = _KINDS.get) -> None:
    kind = _kind(event, -1)
    if kind < 0:
        kind = _classify(event)
    if kind:  # most events are nothing to a recorder: one lookup, no call
        recorder = _ACTIVE
        if recorder is not None and not recorder.spoiled:
            caller = sys._getframe(0).f_back  # who raised it: importing a module?
            if kind == _OPEN and not (recorder._busy and _thread.get_ident() in recorder._busy):
                recorder._open(args, caller)  # most events that are something
            else:
                recorder._dispatch(kind, event, args, caller)


_HOOKED = False


def record(argv: list[str]) -> Recorder | None:
    """Start tracing this run (None when the cache is off). Audit hooks cannot be
    removed, so one hook serves every recorder and does nothing between them."""
    global _HOOKED
    base, cwd = _base(), _cwd()
    if base is None or cwd is None:
        return None
    if not _HOOKED:
        sys.addaudithook(_hook)
        _HOOKED = True
    global _ALLOWED
    _ALLOWED = False  # each run allows itself (a caller may run commands one after another)
    recorder = Recorder(argv, base, cwd)
    recorder.start()
    return recorder


# --- work forked aside -------------------------------------------------------------------


#: In a child of :func:`fork`: how much of the trace (reads, stats, listings, modules)
#: the parent already had, so the child hands back only what it added.
_FORKED_AT: tuple[int, int, int, frozenset[str]] | None = None


def fork() -> int:
    """``os.fork`` for work whose child hands its trace back (:func:`trace`, then
    :func:`add_trace` in the parent): the fork alone does not spoil the run."""
    global _ACTIVE, _FORKED_AT
    active, _ACTIVE = _ACTIVE, None
    at = None
    if active is not None:
        at = (len(active.reads), len(active.stats), len(active.listings), frozenset(sys.modules))
    try:
        pid = os.fork()
    finally:
        _ACTIVE = active
    if pid == 0:
        _FORKED_AT = at
    return pid


def trace() -> bytes:
    """In a child of :func:`fork`: what the run read, asked about, listed and loaded
    since the fork (the parent has the rest)."""
    rec = _ACTIVE
    if rec is None:
        return marshal.dumps(None)
    reads, stats, listings, loaded = _FORKED_AT or (0, 0, 0, frozenset())
    code = sorted(
        _absolute(path)
        for name, module in list(sys.modules.items())
        if name not in loaded and isinstance(path := getattr(module, "__file__", None), str)
    )
    return marshal.dumps(
        (
            rec.spoiled,
            tuple(rec.reads.items())[reads:],
            tuple(rec.stats.items())[stats:],
            tuple(rec.listings.items())[listings:],
            tuple(code),
        )
    )


def add_trace(data: bytes) -> None:
    """A child's :func:`trace`, kept as if this run had done the child's work; one that
    cannot be read spoils the run."""
    rec = _ACTIVE
    if rec is None:
        return
    try:
        found = marshal.loads(data)
        if found is None:
            rec.spoiled = rec.spoiled or "a child ran untraced"
            return
        spoiled, reads, stats, listings, code = found
        rec.spoiled = rec.spoiled or spoiled
        for path, seen in reads:
            rec.reads.setdefault(path, seen)
        for path_follow, signature in stats:
            rec.stats.setdefault(path_follow, signature)
        for path, listing in listings:
            rec.listings.setdefault(path, listing)
        rec.child_code.update(code)
    except (ValueError, TypeError, EOFError):
        rec.spoiled = rec.spoiled or "a child's trace is unreadable"
