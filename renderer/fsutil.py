"""Atomic file output: write to a temporary file beside the target, then rename.

Readers see the old file or the new one, never half of one. Staged files are synced
together before any is renamed. Files get the usual mode
(0666 less the umask): the temporary file is created with ``os.open(..., 0o666)`` so the
kernel applies the umask, as for any new file. An OS failure (unwritable directory, a
file where a directory should be, a full disk) is bad input naming the path, never a
traceback.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from .errors import InputError


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
    """Write several files under ``directory``: every file staged first, then renamed.

    A failure while staging leaves all targets untouched and no temporary files.
    """
    base = Path(directory)
    staged: list[tuple[Path, Path]] = []
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
                os.replace(tmp, target)
            except OSError as exc:
                raise _os_error(exc, target) from None
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
    return [target for _, target in staged]


def atomic_write(path: str | Path, data: str) -> None:
    """Replace one file atomically."""
    target = Path(path)
    write_tree(target.parent, {target.name: data})
