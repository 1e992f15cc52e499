"""Atomic file output: write to a temporary file beside the target, then rename.

Readers see the old file or the new one, never half of one. Files get the usual mode
(0666 less the umask): the temporary file is created with ``os.open(..., 0o666)`` so the
kernel applies the umask, as for any new file. An OS failure (unwritable directory, a
file where a directory should be, a full disk) is bad input naming the path, never a
traceback.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from .errors import InputError


def _stage(target: Path, data: str) -> Path:
    """Write ``data`` to a new temporary file beside ``target``; return its path."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _os_error(exc: OSError, path: Path) -> InputError:
    """Name the file the user asked for, not our temporary file beside it."""
    return InputError(f"cannot write: {exc.strerror or exc}", file=str(path))


def write_tree(directory: str | Path, files: dict[str, str]) -> list[Path]:
    """Write several files under ``directory``: every file staged first, then renamed.

    A failure while staging leaves all targets untouched and no temporary files.
    """
    base = Path(directory)
    staged: list[tuple[Path, Path]] = []
    try:
        for name, data in files.items():
            target = base / name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                staged.append((_stage(target, data), target))
            except OSError as exc:
                raise _os_error(exc, target) from None
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


def replace_dir(directory: str | Path, files: dict[str, str], *, replace: bool) -> Path:
    """Make ``directory`` hold exactly ``files``: written into a temporary directory beside
    it, then renamed into place, so the directory is never half-written. An existing
    directory is refused unless ``replace``; then it is swapped out and removed.
    """
    target = Path(directory)
    if target.exists() and not replace:
        raise InputError("already exists (use --force to replace it)", file=str(target))
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
