"""Console entry point.

The SIGINT handler is installed before anything heavy is imported, so Ctrl-C during
start-up is one line and exit 130 like any other time. A run repeated on unchanged
inputs is answered by the run memo (:mod:`renderer.store.invocation`) before the
command-line interface is even imported; other runs are recorded for it.

The process ends with ``os._exit`` once output is flushed and exit handlers have run:
freeing the objects a cold render builds (parsed YAML, compiled schemas) one by one at
interpreter shutdown costs a sizeable part of the run and changes nothing.
"""

from __future__ import annotations

import os
import signal
import sys

from renderer.errors import interrupted

TYPE_CHECKING = False  # typing (and the re it imports) would double a served run's cost
if TYPE_CHECKING:
    from typing import NoReturn


def main() -> None:
    signal.signal(signal.SIGINT, interrupted)
    from renderer.store import invocation

    argv = sys.argv[1:]
    code: object = invocation.serve(argv)
    if code is None:
        recorder = invocation.record(argv)
        try:
            code = _run()
        finally:
            if recorder is not None:
                recorder.finish(code)
    leave(code)


def _run() -> object:
    """The command's exit code (what it passed to ``sys.exit``)."""
    from renderer.cli import main as run

    try:
        run()
    except SystemExit as exc:
        return exc.code
    return 0


def leave(code: object) -> NoReturn:
    """Exit with ``code`` the way the interpreter would, without its teardown: threads
    joined, exit handlers run, standard streams flushed. Anything unusual (a code that
    is not a number, a stream that cannot be flushed, a thread still running) leaves
    through ``sys.exit`` instead, so the interpreter reports it as it always does, and
    so does a run under a profiler or a coverage tracer, which write their data then."""
    if code is None:
        code = 0
    if not isinstance(code, int) or sys.getprofile() is not None or sys.gettrace() is not None:
        raise SystemExit(code)  # a profiler or coverage writes its data at a normal exit
    import atexit

    threading = sys.modules.get("threading")  # not loaded (a served run): no threads
    if threading is not None:
        threading._shutdown()  # what the interpreter does first
        if threading.active_count() > 1:
            sys.exit(code)
    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code & 0xFF)
