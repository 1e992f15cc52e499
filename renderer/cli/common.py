"""What every command shares: the one table from the library's argument names to the
flags (:data:`FLAGS`), writing to stdout and stderr, and printing a document in the
chosen format."""

from __future__ import annotations

import contextlib
import copy
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import click

from renderer import output
from renderer.cli import requests
from renderer.errors import FIXED, CalicoRenderError, InputError
from renderer.finding import Finding
from renderer.manifests.tree import holds_tree
from renderer.output.inputerror import InputErrorDocument

if TYPE_CHECKING:
    from renderer.bke.unread import ParamWarning
    from renderer.checks.options import CheckOptions
    from renderer.output import Document


#: The library's argument names -> how the command line takes them: the key of an error
#: about an argument names the flag, and a remedy (what to try) says the flag that does it
#: (:func:`renderer.errors.naming`). The library itself never names flags; this is the
#: one table that does.
FLAGS = {
    "nodes": "--nodes",
    "nodes_file": "--nodes-file",
    "from_nodes": "--from-nodes",
    "operation": "--operation",
    "max_pods": "--max-pods",
    "version": "--version",
    "to_version": "--to-version",
    "from_version": "--from-version",
    "kube_version": "--kube-version",
    "image_prefix": "--repo",
    "repo": "--repo",
    "role": "--role",
    "dialect": "--dialect",
    "set": "--set",
    "upstream": "--upstream",
    "exceptions": "--exceptions",
    "golden": "--golden",
    "registry": "--registry",
    "platform": "--platform",
    "ca_file": "--ca-file",
    "insecure": "--insecure-registry HOST",
    "config": "--config",
    "addon": "--addon",
    "render_timeout": "--render-timeout SECONDS",
    "rules": "'calico-render rules'",
    "strict": "--strict",
    "crds": "--crds",
    FIXED: "no flag",
}


def flag_worded(exc: CalicoRenderError) -> str:
    """``exc`` as one line from its fields, its argument named by its flag (:data:`FLAGS`;
    a quoted value after the name stays: ``version '../x'`` -> ``--version '../x'``)."""
    worded = copy.copy(exc)
    worded.key = exc.label(FLAGS)
    return str(worded)


def version_or_config(version: str | None, config: str | None) -> None:
    """A version comes from ``--version`` or from ``--config``, not both."""
    if version is not None and config is not None:
        raise InputError("give --version or --config, not both", key="--config")


def emit(text: str) -> None:
    """Write ``text`` to stdout as UTF-8 bytes: PYTHONIOENCODING cannot change or break
    a manifest, and a lone byte of a Go template (a surrogate escape) is written as is."""
    data = _utf8(text)
    stream = sys.stdout
    if stream is None:  # started with stdout closed
        raise InputError("standard output is closed; use --output or redirect it")
    try:
        stream.flush()
        buffer: BinaryIO | None = getattr(stream, "buffer", None)
        if buffer is None:  # a text-only stream (an embedding application)
            stream.write(data.decode("utf-8", "replace"))
            return
        buffer.write(data)
        buffer.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:  # a full disk, /dev/full, a closed descriptor
        _discard_stdout()
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"cannot write to standard output: {why}") from None


def _discard_stdout(fds: tuple[int, ...] = (1,)) -> None:
    """Point stdout (or ``fds``) at /dev/null so the interpreter's final flush of what
    could not be written adds no second message."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        for fd in fds:
            os.dup2(null, fd)
        os.close(null)


class ReaderGone(Exception):
    """stdout or stderr was a pipe whose reader left (``| head``): not an OSError, so
    that click does not turn it into exit 1; the command ends quietly with 0."""


def discard_output() -> None:
    """After a closed pipe on stdout or stderr: both go to /dev/null, so what is still
    buffered cannot fail again at exit (the run ends with 0 whenever the reader left)."""
    _discard_stdout((1, 2))


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone byte of a Go template (a surrogate escape) as that byte;
    a text holding any other surrogate is written with every surrogate escaped instead.
    Encoded once when it can be (a render is some 340 KB)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


#: The running command's ``--format``, ``--output`` and name (see
#: :func:`renderer.cli.options.format_option`); reset for every command line.
REPORT: dict[str, Any] = {}


def write_report_document(
    fmt: str, document: Document, path: Path | None, options: CheckOptions | None = None
) -> None:
    """``document`` in format ``fmt`` to ``path`` (atomically; never onto what the
    check of ``options`` reads), or to stdout."""
    text = output.render(fmt, document)
    if path is None:
        emit(text)
        return
    try:
        requests.write_report(path, text, options)
    except InputError as exc:
        raise InputError(exc.message, file=exc.file, key="--output") from None


def failure_report(message: str, exc: CalicoRenderError | None = None) -> None:
    """With ``--output FILE``, a run that ends in bad input still writes FILE in the
    requested format: one error finding of stage ``input`` saying what was wrong
    (nothing happens without ``--output``, or when FILE itself cannot be written)."""
    path, command = REPORT.get("output"), REPORT.get("command")
    if path is None or not command or (exc is not None and exc.key == "--output"):
        return
    finding = Finding(
        "input-error",
        "error",
        message,
        stage="input",
        file=(exc.file or "") if exc is not None else "",
        line=(exc.line or 0) if exc is not None else 0,
        column=(exc.column or 0) if exc is not None and exc.line else 0,
    )
    fmt = str(REPORT.get("fmt", "text"))
    try:
        text = output.render(fmt, InputErrorDocument(command, finding))
        requests.write_report(Path(path), text)
    except (CalicoRenderError, OSError, ValueError):
        pass  # the one error line on stderr still says what went wrong


def write_document(fmt: str, document: Document) -> None:
    """Print ``document`` in format ``fmt`` (see :mod:`renderer.output`)."""
    emit(output.render(fmt, document))


def echo_err(text: str) -> None:
    """``text`` and a line break on stderr (click strips colour codes off a stream
    that is not a terminal)."""
    click.echo(text, err=True)


def warn(message: str) -> None:
    """A warning on stderr."""
    echo_err(f"calico-render: warning: {message}")


def note(message: str) -> None:
    """A line on stderr."""
    echo_err(f"calico-render: {message}")


def given_params(found: Sequence[ParamWarning], strict: bool, *, show: bool = True) -> None:
    """Print the warnings about given params; with ``--strict`` they are exit 2."""
    if show and found:  # one write: 200,000 warnings one echo each took seconds
        lines = (f"calico-render: warning: {w.message}" for w in found)
        echo_err("\n".join(lines))
    if strict and found:
        keys = ", ".join(sorted({w.key for w in found}))
        raise InputError(
            f"{len(found)} given param(s) change nothing or take no branch: {keys}",
            key="--strict",
        )


#: What the tree options' help says of the default tree.
TREE_DEFAULT = "the current directory when it holds kubernetes/calico/, else the bundled tree"


def tree_root(root: Path | None) -> Path | None:
    """The tree a command works on: ROOT as given; else the current directory when it
    holds ``kubernetes/calico/`` (as ``helm lint`` and ``yamllint`` check ``.``); else
    None, the bundled tree."""
    if root is None and holds_tree(Path(".")):
        return Path(".")
    return root


def config_keys(strict: bool, *files: str | None) -> None:
    """Warn about every key of the given BKECluster/BKEConfig/BKENode files that BKE's
    CRDs do not define (it would be dropped); with ``--strict`` the first is exit 2,
    naming file, line and key."""
    given = [f for f in files if f is not None]
    if not given:  # nothing to read: the CRD key tables are not loaded
        return
    found = requests.config_keys(*given)
    for unknown in () if strict else found:
        warn(str(unknown))
    if strict and found:
        first = found[0]
        near = f"did you mean {first.suggestion}? " if first.suggestion else ""
        raise InputError(
            f"unknown key ({near}{len(found)} unknown key(s) in all; --strict)",
            file=first.file,
            line=first.line,
            key=first.path,
        )
