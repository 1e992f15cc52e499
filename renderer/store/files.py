"""Atomic file output: write to a temporary file beside the target, then rename.

Readers see the old file or the new one, never half of one. Staged files are synced
together before any is renamed. Files get the usual mode
(0666 less the umask): the temporary file is created with ``os.open(..., 0o666)`` so the
kernel applies the umask, as for any new file. An OS failure (unwritable directory, a
file where a directory should be, a full disk) is bad input naming the path, never a
traceback.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from renderer.errors import InputError


def _stage(target: Path, data: str) -> tuple[Path, int]:
    """Write ``data`` to a new temporary file beside ``target``; return its path and its
    still open descriptor, for :func:`_sync_all`."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        raw = data.encode("utf-8")
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    return tmp, fd


def _sync_all(fds: list[int]) -> None:
    """fsync staged files together: concurrent syncs share the filesystem's journal
    commits, where one sync after each write pays a commit per file."""
    if len(fds) <= 1:
        for fd in fds:
            os.fsync(fd)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(8, len(fds))) as pool:
        list(pool.map(os.fsync, fds))


def _os_error(exc: OSError, path: Path) -> InputError:
    """Name the file the user asked for, not our temporary file beside it."""
    return InputError(f"cannot write: {exc.strerror or exc}", file=str(path))


def write_tree(directory: str | Path, files: dict[str, str]) -> list[Path]:
    """Write several files under ``directory``, all or nothing: every file is staged
    first, then renamed over its target; when a rename fails, the targets already
    replaced get their previous content back (kept as hard links while renaming).

    A failure leaves all targets as they were and no temporary files.
    """
    base = Path(directory)
    staged: list[tuple[Path, Path]] = []
    backups: dict[Path, tuple[bool, Path | None]] = {}
    fds: list[int] = []
    try:
        try:
            for name, data in files.items():
                target = base / name
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    tmp, fd = _stage(target, data)
                except OSError as exc:
                    raise _os_error(exc, target) from None
                staged.append((tmp, target))
                fds.append(fd)
            try:
                _sync_all(fds)
            except OSError as exc:
                raise _os_error(exc, staged[0][1]) from None
        finally:
            for fd in fds:
                os.close(fd)
        for tmp, target in staged:
            try:
                backups[target] = _keep(target)
                os.replace(tmp, target)
            except OSError as exc:
                _restore(backups, target)
                raise _os_error(exc, target) from None
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for _, backup in backups.values():
            if backup is not None:
                backup.unlink(missing_ok=True)
    return [target for _, target in staged]


def _keep(target: Path) -> tuple[bool, Path | None]:
    """Whether ``target`` exists, and a hard link to it (None when it cannot be kept)."""
    if not os.path.lexists(target):
        return False, None
    if not target.is_file() or target.is_symlink():
        return True, None
    backup = target.with_name(f".{target.name}.{secrets.token_hex(6)}.old")
    try:
        os.link(target, backup)
    except OSError:
        return True, None  # a file system without hard links: no rollback for this file
    return True, backup


def _restore(backups: dict[Path, tuple[bool, Path | None]], failed: Path) -> None:
    """Put back every target replaced before ``failed``; new files are removed. A file
    that existed but could not be kept stays as written rather than being lost."""
    for target, (existed, backup) in backups.items():
        if target == failed:
            continue
        try:
            if backup is not None:
                os.replace(backup, target)
            elif not existed:
                target.unlink(missing_ok=True)
        except OSError:
            pass  # best effort: the original error is what the user needs to see


def atomic_write(path: str | Path, data: str) -> None:
    """Replace one file atomically."""
    target = Path(path)
    write_tree(target.parent, {target.name: data})


def write_output(path: str | Path, data: str) -> None:
    """Write a report where ``--output`` points, never replacing a node that is not ours.

    A regular file (or a new one) is replaced atomically; through a symlink, the file it
    points to is (the symlink stays); anything else (``/dev/null``, a FIFO, a terminal)
    is written in place, since renaming over it would replace a device node with a file.
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise _os_error(exc, Path(path)) from None
    if mode is None or stat.S_ISREG(mode):
        atomic_write(target, data)
        return
    if stat.S_ISDIR(mode):
        raise InputError("is a directory", file=str(path))
    try:
        fd = os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8"))
    except OSError as exc:
        raise _os_error(exc, Path(path)) from None


#: The files an ``--output-dir`` render wrote, one path a line, so the next render into
#: that directory removes the files it no longer renders (and touches no other file).
OWNED_FILES = ".calico-render-files"


def _owned(directory: Path) -> list[str]:
    """The relative paths an earlier render recorded; anything odd is ignored."""
    try:
        text = (directory / OWNED_FILES).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for line in text.splitlines():
        path = Path(line)
        usable = line and not line.startswith("#") and not path.is_absolute()
        if usable and ".." not in path.parts and line != OWNED_FILES:
            out.append(line)
    return out


def write_owned_tree(directory: str | Path, files: dict[str, str]) -> list[Path]:
    """:func:`write_tree`, then remove the files an earlier render wrote there that this
    one does not, so ``kubectl apply -f DIR`` never mixes two versions. Only files the
    directory's :data:`OWNED_FILES` names are removed; other files are left alone."""
    base = Path(directory)
    previous = _owned(base)
    listing = "".join(f"{name}\n" for name in sorted(files))
    header = "# Files written by calico-render; removed by its next render here.\n"
    written = write_tree(base, {**files, OWNED_FILES: header + listing})
    for name in previous:
        if name in files:
            continue
        old = base / name
        try:
            if old.is_symlink() or old.is_file():
                old.unlink()
        except OSError as exc:
            raise InputError(f"cannot remove: {exc.strerror or exc}", file=str(old)) from None
    return [p for p in written if p.name != OWNED_FILES or p.parent != base]


def replace_dir(directory: str | Path, files: dict[str, str], *, replace: bool) -> Path:
    """Make ``directory`` hold exactly ``files``: written into a temporary directory beside
    it, then renamed into place, so the directory is never half-written. An existing
    directory is refused unless ``replace``; then it is swapped out and removed.
    """
    target = Path(directory)
    if target.exists() and not replace:
        raise InputError("already exists", file=str(target))
    tag = secrets.token_hex(6)
    staging = target.with_name(f".{target.name}.{tag}.tmp")
    old = target.with_name(f".{target.name}.{tag}.old")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
    except OSError as exc:
        raise _os_error(exc, target) from None
    try:
        write_tree(staging, files)
        try:
            if target.exists():
                os.replace(target, old)
            os.replace(staging, target)
        except OSError as exc:
            if old.exists() and not target.exists():
                os.replace(old, target)
            raise _os_error(exc, target) from None
    finally:
        for leftover in (staging, old):
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
    return target


@contextlib.contextmanager
def exclusive_lock(directory: Path, what: str, *, wait: float = 5.0) -> Iterator[None]:
    """Hold an advisory lock on ``directory/.<what>.lock`` while the block runs, waiting
    up to ``wait`` seconds; bad input when another process holds it longer. The lock
    goes with the process, so a killed run never leaves the directory locked, and the
    file is removed on release (a waiter that locked a removed file tries again)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no locking
        yield
        return
    path = directory / f".{what}.lock"
    deadline = time.monotonic() + wait
    try:
        directory.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if os.path.samestat(os.fstat(fd), os.stat(path)):
                    break  # locked the file that is still there
            except (BlockingIOError, FileNotFoundError):
                pass
            os.close(fd)
            if time.monotonic() >= deadline:
                raise InputError(
                    f"another {what} is running on this directory (waited {wait:g} s)",
                    file=str(directory),
                )
            time.sleep(0.1)
    except OSError as exc:
        raise InputError(f"cannot lock: {exc.strerror or exc}", file=str(path)) from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)
