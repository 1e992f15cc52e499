"""The command line as a user runs it, for the run memo's tests: a private cache, a tree
to edit, and (``traced``) whether the memo answered instead of the command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from renderer.data.bundled import bundled_manifests

VERSION = "v3.28.2"


@dataclass(frozen=True)
class Run:
    code: int
    out: bytes
    err: bytes
    #: Answered from the memo: the command-line interface was never imported (known
    #: only for a traced run).
    served: bool | None = None


def environment(cache: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment with ``cache`` as the only cache setting; PS1 and PS2
    left out, as ``bash -c`` leaves them (the memo's key holds the environment)."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("CALICO_RENDER_") and k not in ("PS1", "PS2")
    }
    return {**base, "CALICO_RENDER_CACHE_DIR": str(cache), **(extra or {})}


def cli(
    cwd: Path,
    cache: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    traced: bool = False,
) -> Run:
    """``python -m renderer ARGS`` in ``cwd``; ``traced`` runs it with ``-X importtime``
    (part of the memo's key) to tell whether the CLI ran; those lines are not part of
    the command's stderr."""
    trace = ["-X", "importtime"] if traced else []
    proc = subprocess.run(
        [sys.executable, *trace, "-m", "renderer", *args],
        cwd=cwd,
        env=environment(cache, env),
        input=stdin,
        capture_output=True,
        check=False,
        timeout=120,
    )
    if not traced:
        return Run(proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines(keepends=True)
    imports = [line for line in lines if line.startswith(b"import time:")]
    err = b"".join(line for line in lines if not line.startswith(b"import time:"))
    served = not any(line.rstrip().endswith(b" renderer.cli") for line in imports)
    return Run(proc.returncode, proc.stdout, err, served)


def copy_version(tmp_path: Path) -> Path:
    """A tree with one bundled version, free to edit."""
    root = tmp_path / "tree"
    shutil.copytree(
        bundled_manifests() / "kubernetes" / "calico" / VERSION,
        root / "kubernetes" / "calico" / VERSION,
    )
    return root


def render_args(tree: Path, *extra: str) -> list[str]:
    return ["--manifests", str(tree), "--version", VERSION, "--nodes", "601", *extra]
