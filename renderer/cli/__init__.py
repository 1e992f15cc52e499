"""Command-line interface: a thin layer over :mod:`renderer.api`.

Every command shares the exit codes of :mod:`renderer.errors` and prints bad input as
one line on stderr; ``--debug`` shows the traceback. An unexpected exception is still
reported as one line (exit 2), so no input can produce a traceback by default.

The commands are click's (:mod:`renderer.cli.app`, loaded when first needed); the plain
render of a version for a node count, the command run most, is read without it
(:mod:`renderer.cli.quick`) and prints the same bytes.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

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
    CalicoRenderError,
    interrupted,
    naming,
)

#: Subcommand -> the module of this package that defines it, imported on first use (so a
#: command pays only for its own imports). A module imported here instead, the usual
#: click way, registers its commands as before.
LAZY_COMMANDS = {
    "advise": ".advise",
    "capability": ".capability",
    "check": ".check",
    "explain-context": ".explain_context",
    "images": ".images",
    "import": ".import_",
    "plan": ".plan",
    "rules": ".rules",
    "schema": ".schema",
    "template": ".template",
    "typha": ".typha",
    "validate": ".validate",
    "version": ".version",
    "versions": ".versions",
}

if TYPE_CHECKING:
    from renderer.cli.app import LazyGroup

    cli: LazyGroup


def __getattr__(name: str) -> Any:
    """``cli``, the click group, imported when first asked for."""
    if name == "cli":
        from renderer.cli.app import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Allocations between two collections of the youngest generation while a command runs.
YOUNG_COLLECTION = 20_000


class Interrupted(BaseException):
    """Ctrl-C while a command runs. Not KeyboardInterrupt, which click turns into an
    empty line and Abort."""


def _raise_once(signum: int, frame: FrameType | None) -> None:
    """First Ctrl-C unwinds (temporary files are removed on the way); a second one
    leaves at once."""
    signal.signal(signal.SIGINT, interrupted)
    raise Interrupted


@contextlib.contextmanager
def _interrupt_handler() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt once while a command runs; the caller's handler
    is restored afterwards (tests call :func:`main` in-process)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _raise_once)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _utf8_stdout() -> None:
    """Text on stdout is UTF-8 whatever PYTHONIOENCODING says; Go's lone bytes pass."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(encoding="utf-8", errors="surrogateescape")


def main(argv: list[str] | None = None, *, quick: bool = True) -> None:
    """Console entry point: Ctrl-C at any moment is one line and exit 130.

    ``quick``: a plain render is read without click (:mod:`renderer.cli.quick`); False
    sends every command line through click (the two print the same bytes, tested).

    Imported modules live as long as the process, so they are moved out of the
    collector's sight (``gc.freeze``) here and after a command's own imports: a run
    allocates hundreds of thousands of objects (parsed YAML), and every collection
    would otherwise walk the imported ones again. For the same reason the youngest
    generation is collected every :data:`YOUNG_COLLECTION` allocations instead of 700
    while a command runs (few of them are cycles).
    """
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION, *threshold[1:])
    try:
        with _interrupt_handler(), naming(FLAGS):
            try:
                _utf8_stdout()
                _main(argv, quick)
            except (KeyboardInterrupt, Interrupted):
                with contextlib.suppress(ValueError):
                    signal.signal(signal.SIGINT, signal.SIG_IGN)
                echo_err("calico-render: interrupted")
                sys.exit(EXIT_INTERRUPTED)
    finally:
        gc.set_threshold(*threshold)


def _main(argv: list[str] | None, quick: bool = True) -> None:
    args = sys.argv[1:] if argv is None else argv
    REPORT.clear()
    debug = "--debug" in args
    if debug:  # accepted anywhere on the line, not only before the command
        args = ["--debug", *(a for a in args if a != "--debug")]
    try:
        code = _run(args, quick)
    except CalicoRenderError as exc:
        if debug:
            import traceback  # --debug only

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
            import traceback  # --debug only

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


def _run(args: list[str], quick: bool) -> Any:
    """Run the command line: a plain render without click when it is one, else click's
    group; what click returns (an exit code, or None)."""
    if quick:
        from renderer.cli import quick as plain

        params = plain.parse(args)
        if params is not None:
            try:
                plain.run(params)
            except (EOFError, KeyboardInterrupt) as exc:  # as click's main turns them
                echo_err("")
                raise _abort() from exc
            return 0
    from renderer.cli.app import cli

    return cli.main(args=args, prog_name="calico-render", standalone_mode=False)


def _abort() -> Exception:
    import click

    return click.exceptions.Abort()


def _click_error(exc: Exception) -> None:
    """Report one of click's exceptions and exit as the command line does; return for
    any other (click is not even loaded when the command did not use it)."""
    click = sys.modules.get("click")
    if click is None:
        return
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
    import copy

    bare = copy.copy(exc)
    bare.file = bare.line = bare.column = None
    return bare


__all__ = ["cli", "main"]
