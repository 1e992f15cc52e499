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
import errno
import os
import secrets
import shutil
import stat
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from renderer.errors import InputError
from renderer.store import contain


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


def write_output(
    path: str | Path, data: str, *, protected: Sequence[tuple[Path, str]] = ()
) -> None:
    """Write a report where ``--output`` points, never replacing a node that is not ours.

    A new file is created atomically; an existing regular file is replaced atomically
    keeping its mode and owner (when the owner cannot be kept, as for a file of another
    user, the write is refused rather than taking the file over); through a symlink, the
    file it points to is (the symlink stays); anything else (``/dev/null``, a FIFO, a
    terminal) is written in place, since renaming over it would replace a device node
    with a file, and a FIFO no process reads is refused instead of waiting forever.
    ``protected`` are the directories (and what each is) the path must not be inside:
    the tree a report is about.
    """
    target = Path(path)
    for directory, what in protected:
        contain.outside(target, directory, what)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _os_error(exc, Path(path)) from None
    if info is None:
        atomic_write(target, data)
        return
    if stat.S_ISREG(info.st_mode):
        _replace_keeping(target, data, info, Path(path))
        return
    if stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory", file=str(path))
    fd = _open_in_place(target, Path(path))
    try:
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8"))
    except OSError as exc:
        raise _os_error(exc, Path(path)) from None


#: How long a FIFO given as ``--output`` may go without a reader before it is refused.
FIFO_READER_WAIT = 5.0


def _open_in_place(target: Path, shown: Path) -> int:
    """Open a device or FIFO for writing without blocking: a FIFO no process opens
    for reading within :data:`FIFO_READER_WAIT` seconds is refused, not waited on."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NONBLOCK", 0)
    deadline = time.monotonic() + FIFO_READER_WAIT
    while True:
        try:
            return os.open(target, flags)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise _os_error(exc, shown) from None
            if time.monotonic() >= deadline:
                raise InputError(
                    f"a FIFO no process reads (waited {FIFO_READER_WAIT:g} s)", file=str(shown)
                ) from None
            time.sleep(0.02)


def _replace_keeping(target: Path, data: str, info: os.stat_result, shown: Path) -> None:
    """Replace the regular file ``target`` atomically with its mode and owner kept."""
    tmp: Path | None = None
    try:
        tmp, fd = _stage(target, data)
        try:
            if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, info.st_uid, info.st_gid)
                except PermissionError:
                    raise InputError(
                        f"owned by another user (uid {info.st_uid}); its owner cannot be "
                        "kept, so it is not replaced",
                        file=str(shown),
                    ) from None
            os.fchmod(fd, stat.S_IMODE(info.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise _os_error(exc, shown) from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


#: The files an ``--output-dir`` render wrote, one path a line, so the next render into
#: that directory removes the files it no longer renders (and touches no other file).
OWNED_FILES = ".calico-render-files"
#: Largest listing read back: thousands of paths, far beyond any version's files.
MAX_OWNED_BYTES = 1024 * 1024


def _owned(directory: Path) -> list[Path]:
    """The files an earlier render recorded that may be removed, validated before
    anything is written: the listing is a bounded regular file (a FIFO or ``/dev/zero``
    in its place would hang or exhaust memory), and each entry is relative, resolves
    inside ``directory`` and is a regular file, so a listing naming ``link/victim.yaml``
    through a link out of the directory is refused, never followed. A missing entry is
    already gone; comments and blank lines are skipped."""
    listing = directory / OWNED_FILES
    if not os.path.lexists(listing):
        return []
    contain.not_a_link(listing)
    raw = contain.read_bytes(listing, MAX_OWNED_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            "not UTF-8 text: not a listing this tool wrote", file=str(listing)
        ) from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        path = Path(line)
        if (
            path.is_absolute()
            or ".." in path.parts
            or line == OWNED_FILES
            or not line.isprintable()
        ):
            raise InputError(
                f"entry {line!r} is not a file name under the directory; the listing was not "
                "written by this tool (remove it to render here)",
                file=str(listing),
                line=number,
            )
        old = directory / path
        contain.inside(old, directory, "the output directory")
        if not os.path.lexists(old):
            continue
        contain.not_a_link(old)
        if contain.kind(old) != contain.FILE:
            raise InputError(
                "listed as written by an earlier render but not a regular file; not removed",
                file=str(old),
            )
        out.append(old)
    return out


def write_owned_tree(directory: str | Path, files: dict[str, str]) -> list[Path]:
    """:func:`write_tree`, then remove the files an earlier render wrote there that this
    one does not, so ``kubectl apply -f DIR`` never mixes two versions. Only files the
    directory's :data:`OWNED_FILES` names are removed, after the listing is validated
    (:func:`_owned`); other files are left alone. Writers into one directory take turns
    (:func:`exclusive_lock`), so it always holds one render's files and the listing
    names exactly them."""
    base = Path(directory)
    if contain.kind(base) not in (None, contain.DIRECTORY):
        raise InputError("not a directory", file=str(base))
    with exclusive_lock(base, "render", wait=60.0):
        previous = _owned(base)
        listing = "".join(f"{name}\n" for name in sorted(files))
        header = "# Files written by calico-render; removed by its next render here.\n"
        for name in files:  # a link in the directory never takes a write outside it
            contain.inside((base / name).parent, base, "the output directory")
        written = write_tree(base, {**files, OWNED_FILES: header + listing})
        keep = {base / name for name in files}
        for old in previous:
            if old in keep:
                continue
            try:
                old.unlink(missing_ok=True)
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
