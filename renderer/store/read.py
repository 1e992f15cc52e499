"""Bounded reads of untrusted input files: templates, values, configs, goldens.

Every file a tool run reads comes through :func:`read_text`: only regular files (a FIFO
or device would block or never end), at most :data:`MAX_INPUT_BYTES`, valid UTF-8; any
failure is bad input naming the file. The template engine and the YAML reader share it,
so neither needs the other.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from renderer.errors import InputError

#: Largest input file; a 4,000-node BKENode list is under 2 MiB.
MAX_INPUT_BYTES = 8 * 1024 * 1024


def _open_regular(path: str | Path) -> int:
    """Open for reading without blocking; only regular files pass (a FIFO or device
    named as ``--values``/``--config``/``--nodes-file`` would block or never end)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("not a regular file (a FIFO, device or directory)", file=str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_text(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> str:
    """Read an input file (``-`` is stdin) as UTF-8, refusing huge or binary files."""
    name = str(path)
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(limit + 1)
        else:
            with open(_open_regular(path), "rb") as fh:
                raw = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=name) from None
    if len(raw) > limit:
        raise InputError(f"file is larger than {limit // (1024 * 1024)} MiB", file=name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("file is not valid UTF-8", file=name, line=line) from None
