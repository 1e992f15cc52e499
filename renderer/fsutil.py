"""Atomic file output: write to a temporary file beside the target, then rename.

Files get the usual mode (0666 less the umask), not mkstemp's private 0600.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def atomic_write(path: str | Path, data: str) -> None:
    """Replace ``path`` with ``data`` so readers see the old file or the new, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, _FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_tree(directory: str | Path, files: dict[str, str]) -> list[Path]:
    """Write several files atomically each; all temp files first, then all renames."""
    base = Path(directory)
    staged: list[tuple[str, Path]] = []
    try:
        for name, data in files.items():
            target = base / name
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            os.fchmod(fd, _FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(data)
            staged.append((tmp, target))
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    return [target for _, target in staged]
