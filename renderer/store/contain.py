"""One containment rule for every path the tool reads, writes or deletes.

A merge request controls the manifest tree, its goldens and its exceptions file; a
previous run (or anyone with access) controls an output directory. So every path taken
from such a directory is resolved (links followed) and must stay inside it, and must be
a regular file or a directory: a link could otherwise make the tool read and print, or
overwrite, or delete any file, and a FIFO or device would block a read or never end.
Each check here fails as bad input (exit 2) naming the path, never as a traceback; the
readers and writers of the tree, the goldens, the exceptions, the output directory and
import call these instead of checking on their own.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from renderer.errors import InputError

#: What a path is, as far as the tool cares: a regular file, a directory, or neither.
FILE, DIRECTORY, SPECIAL = "file", "directory", "special"

_NOT_REGULAR = "not a regular file or directory (a FIFO, socket or device)"


def resolve(path: Path) -> Path:
    """``path`` with every link resolved (missing tails allowed); a loop, a name over
    PATH_MAX or an unsearchable directory is bad input naming it."""
    try:
        return Path(os.path.realpath(path, strict=False))
    except (OSError, RuntimeError, ValueError) as exc:
        raise InputError(f"cannot resolve: {_why(exc)}", file=_shown(path)) from None


def is_inside(real: Path, real_base: Path) -> bool:
    """Whether the resolved ``real`` is ``real_base`` or below it."""
    return real == real_base or real_base in real.parents


def inside(path: Path, base: Path, what: str) -> Path:
    """``path`` resolved; bad input naming both when it leaves ``base`` (``what`` says
    which directory that is, e.g. "the manifest tree")."""
    real_base = resolve(base)
    real = resolve(path)
    if not is_inside(real, real_base):
        raise InputError(f"points to {real}, outside {what} {real_base}", file=_shown(path))
    return real


def kind(path: Path) -> str | None:
    """FILE, DIRECTORY or SPECIAL for what ``path`` points to (links followed), None when
    nothing is there; a path that cannot be looked at (permissions, a name too long) is
    bad input naming it."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read: {_why(exc)}", file=_shown(path)) from None
    if stat.S_ISREG(mode):
        return FILE
    if stat.S_ISDIR(mode):
        return DIRECTORY
    return SPECIAL


def entry(path: Path, base: Path, what: str) -> str | None:
    """What ``path`` is (:func:`kind`) after checking it stays inside ``base``; a FIFO,
    socket or device is bad input naming it."""
    inside(path, base, what)
    found = kind(path)
    if found == SPECIAL:
        raise InputError(_NOT_REGULAR, file=_shown(path))
    return found


def regular_file(path: Path, base: Path, what: str) -> Path:
    """``path`` resolved, a regular file inside ``base``, else bad input naming it."""
    real = inside(path, base, what)
    found = kind(path)
    if found is None:
        raise InputError("no such file", file=_shown(path))
    if found != FILE:
        raise InputError("not a regular file", file=_shown(path))
    return real


def directory(path: Path, base: Path, what: str, *, missing_ok: bool = False) -> Path:
    """``path`` resolved, a directory inside ``base`` (or nothing, with ``missing_ok``),
    else bad input naming it."""
    real = inside(path, base, what)
    found = kind(path)
    if found is None and missing_ok:
        return real
    if found != DIRECTORY:
        raise InputError("not a directory", file=_shown(path))
    return real


def not_a_link(path: Path) -> None:
    """Refuse to replace or remove ``path`` when it is a symbolic link: a directory the
    tool swaps out or a file it deletes must be its own, not what a link points to."""
    if os.path.islink(path):
        raise InputError("is a symbolic link; refusing to replace or remove it", file=_shown(path))


def outside(path: Path, protected: Path, what: str) -> None:
    """Refuse an output ``path`` that resolves inside ``protected`` (the tree being
    checked, its goldens): a report must never overwrite what it reports on."""
    real = resolve(path)
    real_protected = resolve(protected)
    if is_inside(real, real_protected):
        raise InputError(f"is inside {what} {real_protected}; write it elsewhere", file=str(path))


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them: opened without
    blocking and without following a final link (so a FIFO swapped in after a check
    neither hangs nor is read), checked to be a regular file, and bounded."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(resolve(path), flags | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise InputError(f"cannot read: {_why(exc)}", file=_shown(path)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError("not a regular file", file=_shown(path))
        if info.st_size > limit:
            raise InputError(f"larger than {limit} bytes", file=_shown(path))
        os.set_blocking(fd, True)
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise InputError(f"larger than {limit} bytes", file=_shown(path))
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"cannot read: {_why(exc)}", file=_shown(path)) from None
    finally:
        os.close(fd)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _shown(path: Path) -> str:
    """The path as the user gave it; one too long to be useful is shortened."""
    text = str(path)
    return text if len(text) <= 300 else f"{text[:140]}...{text[-140:]}"
