"""Command-line interface: a thin layer over :mod:`renderer.api`.

Every command shares the exit codes of :mod:`renderer.errors` and prints bad input as
one line on stderr; ``--debug`` shows the traceback. An unexpected exception is still
reported as one line (exit 2), so no input can produce a traceback by default.

The commands are click's (:mod:`renderer.cli.app`); each subcommand's module is
imported when that command runs.
"""

from __future__ import annotations

import contextlib
import copy
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from types import FrameType
from typing import Any

import click

from renderer.cli.app import LAZY_COMMANDS, cli
from renderer.cli.common import (
    FLAGS,
    REPORT,
    ReaderGone,
    discard_output,
    echo_err,
    failure_report,
    flag_worded,
)
from renderer.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    CalicoRenderError,
    interrupted,
    naming,
)
from renderer.store import cache


class Interrupted(BaseException):
    """Ctrl-C (or SIGTERM) while a command runs. Not KeyboardInterrupt, which click
    turns into an empty line and Abort."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_once(signum: int, frame: FrameType | None) -> None:
    """First Ctrl-C or SIGTERM unwinds (workers are ended, locks released, temporary
    files removed on the way); a second one leaves at once."""
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    raise Interrupted(signum)


@contextlib.contextmanager
def _interrupt_handler() -> Iterator[None]:
    """SIGINT and SIGTERM unwind once while a command runs; the caller's handlers are
    restored afterwards (tests call :func:`main` in-process)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise_once) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _utf8_stdout() -> None:
    """Text on stdout is UTF-8 whatever PYTHONIOENCODING says; Go's lone bytes pass."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(encoding="utf-8", errors="surrogateescape")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: Ctrl-C at any moment is one line and exit 130."""
    with _interrupt_handler(), naming(FLAGS):
        try:
            _utf8_stdout()
            try:
                _main(argv)
            except SystemExit as exc:
                why = cache.problem()
                if why is not None and exc.code != EXIT_BAD_INPUT:  # bad input: one line
                    echo_err(f"calico-render: {why}")
                raise
        except (KeyboardInterrupt, Interrupted) as exc:
            with contextlib.suppress(ValueError):
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            if isinstance(exc, Interrupted) and exc.signum == signal.SIGTERM:
                echo_err("calico-render: terminated")
                sys.exit(EXIT_TERMINATED)
            echo_err("calico-render: interrupted")
            sys.exit(EXIT_INTERRUPTED)


def _main(argv: list[str] | None) -> None:
    args = sys.argv[1:] if argv is None else argv
    REPORT.clear()
    debug = "--debug" in args
    if debug:  # accepted anywhere on the line, not only before the command
        args = ["--debug", *(a for a in args if a != "--debug")]
    try:
        code = _run(args)
    except CalicoRenderError as exc:
        if debug:
            traceback.print_exc()
        if exc.exit_code == EXIT_BAD_INPUT:
            failure_report(flag_worded(_unlocated(exc)), exc)
        echo_err(f"calico-render: error: {flag_worded(exc)}")
        sys.exit(exc.exit_code)
    except (BrokenPipeError, ReaderGone):  # the reader left (| head): nothing more to say
        discard_output()
        sys.exit(0)
    except Exception as exc:
        _click_error(exc)  # click's own: usage, bad values, aborts
        if debug:  # last resort: one line, never a traceback unless --debug
            traceback.print_exc()
        detail = str(exc).splitlines()[0] if str(exc) else ""
        failure_report(f"internal error: {type(exc).__name__}" + (f": {detail}" if detail else ""))
        echo_err(
            f"calico-render: internal error: {type(exc).__name__}"
            + (f": {detail}" if detail else "")
            + ("" if debug else " (run with --debug for the traceback)")
        )
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(code if isinstance(code, int) else 0)


def _run(args: list[str]) -> Any:
    """Run the command line through click's group; what it returns (an exit code, or None)."""
    return cli.main(args=args, prog_name="calico-render", standalone_mode=False)


def _click_error(exc: Exception) -> None:
    """Report one of click's exceptions and exit as the command line does; return for
    any other."""
    if isinstance(exc, click.exceptions.Exit):
        sys.exit(exc.exit_code)
    if isinstance(exc, click.exceptions.Abort):
        echo_err("calico-render: aborted")
        sys.exit(EXIT_INTERRUPTED)
    if isinstance(exc, click.UsageError):
        command = exc.ctx.command_path if exc.ctx is not None else "calico-render"
        message = exc.format_message()
        if "'--version' requires an argument" in message:
            message += " (the tool's own version is --tool-version)"
        failure_report(message)
        echo_err(f"calico-render: error: {message} (see '{command} --help')")
        sys.exit(EXIT_BAD_INPUT)
    if isinstance(exc, click.ClickException):
        failure_report(exc.format_message())
        echo_err(f"calico-render: error: {exc.format_message()}")
        sys.exit(exc.exit_code if exc.exit_code else EXIT_BAD_INPUT)


def _unlocated(exc: CalicoRenderError) -> CalicoRenderError:
    """``exc`` without its file and line (the finding carries them apart)."""
    bare = copy.copy(exc)
    bare.file = bare.line = bare.column = None
    return bare


__all__ = ["LAZY_COMMANDS", "cli", "main"]
