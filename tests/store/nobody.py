"""Run Python as the unprivileged user ``nobody`` (from a root test run), for the cases
that differ by who runs the tool: another user's files, unsearchable directories."""

from __future__ import annotations

import os
import pwd
import shutil
import site
import subprocess
import sys
from functools import cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def nobody_ids() -> tuple[int, int] | None:
    """The uid and gid of ``nobody``, or None when there is no such user."""
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _runs_as_nobody(python: str) -> bool:
    try:
        probe = _run(
            [python, "-c", "import ruamel.yaml, jinja2, click"], {**_env(), "PYTHONPATH": _path()}
        )
    except OSError:
        return False
    return probe.returncode == 0


def _path() -> str:
    return os.pathsep.join([str(REPO_ROOT), *site.getsitepackages()])


def _env() -> dict[str, str]:
    """An environment of nobody's own: no home, so no cache (root's is not theirs)."""
    skipped = ("PYTHON", "XDG_", "CALICO_RENDER_CACHE_DIR")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skipped)}
    return {**env, "HOME": "/nonexistent"}


@cache
def nobody_python() -> str | None:
    """An interpreter ``nobody`` can run with this checkout and its dependencies: this
    one, or the system's of the same minor version (this one may live in root's home)."""
    if os.geteuid() != 0 or nobody_ids() is None:
        return None
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for python in (sys.executable, shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")):
        if python and _runs_as_nobody(python):
            return python
    return None


def skip_reason() -> str | None:
    """Why the cases run as ``nobody`` cannot run here (None: they can)."""
    if os.geteuid() != 0:
        return "needs root to run a case as 'nobody'"
    if nobody_ids() is None:
        return "no 'nobody' user"
    if nobody_python() is None:
        return "no Python interpreter 'nobody' can run with this checkout"
    return None


def _run(
    argv: list[str], env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    ids = nobody_ids()
    assert ids is not None and os.geteuid() == 0
    uid, gid = ids

    def drop() -> None:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)

    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=drop,
        env=env,
        cwd="/",
    )


def as_nobody(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -c code args`` as ``nobody`` (the caller skips when :func:`skip_reason`)."""
    python = nobody_python()
    assert python is not None
    argv = [python, "-c", code, *args]
    return _run(argv, {**_env(), "PYTHONPATH": _path()}, timeout)
