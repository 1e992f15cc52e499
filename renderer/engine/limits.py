"""Bounds on rendering untrusted templates: wall-clock time and loop iterations.

A merge request controls the templates, so a render must end, and fail with one line
naming the limit, however the template is written: nested loops, exponential macros
or template calls. The budget is per render and per thread (a context variable), and
is checked on every sandboxed call and every loop iteration of both dialects.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from renderer.errors import FIXED, TemplateError, remedy

if TYPE_CHECKING:
    from jinja2 import nodes as j

#: Default wall-clock limit of one template render (:func:`set_render_timeout`).
DEFAULT_RENDER_TIMEOUT = 10.0
#: Loop iterations one render may run, all loops together.
MAX_LOOP_ITERATIONS = 10_000_000
#: Widths and precisions of ``%``, ``format`` and ``str.format`` (Go's own cap).
MAX_FORMAT_WIDTH = 1_000_000
#: Items ``batch`` and ``slice`` may make (as the sandbox's ``range``).
MAX_ITEMS = 100_000
#: Actions (``{{`` and ``{%``) of one Jinja2 template. Compiling costs about 22 KB of
#: memory per action at its peak (benchmarks/engine.py --scaling); BKE's templates have
#: at most about 50.
MAX_TEMPLATE_ACTIONS = 10_000
#: Actions (``{{``) of one Go template. The Go dialect is interpreted, not compiled:
#: parsing costs about 25 us and 1.6 KB per action (200,000 actions: about 5 s).
MAX_GO_TEMPLATE_ACTIONS = 200_000

_timeout = DEFAULT_RENDER_TIMEOUT


#: The argument that raises the render time limit (:func:`set_render_timeout`).
RENDER_TIMEOUT = "render_timeout"


class LimitExceeded(Exception):
    """A render went over a limit; the message names it (and how to raise it, if it can be:
    ``argument`` and ``hint``, as on :class:`renderer.errors.CalicoRenderError`)."""

    def __init__(self, message: str, argument: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.argument = argument
        self.hint = hint


def fixed(limit: str) -> str:
    """``(<limit> limit for untrusted templates; <no argument changes it>)``."""
    return f"({limit} limit for untrusted templates; {remedy('{}', FIXED)})"


def set_render_timeout(seconds: float) -> None:
    """The wall-clock limit of every later render in this process."""
    global _timeout
    if not seconds > 0:
        raise ValueError("the render timeout must be positive")
    _timeout = float(seconds)


def render_timeout() -> float:
    return _timeout


#: Memory one render may add to the process (resident set), both dialects: checked as
#: large values are made, every 64 calls and every 1024 loop iterations, so a template
#: that keeps many values each under the size limits stops long before the machine's
#: memory runs out.
MAX_RENDER_MEMORY = 512 * 1024 * 1024
#: Values at least this large (characters or items) read the memory at once.
LARGE_VALUE = 1 << 20


def _resident() -> int:
    """The process's resident set in bytes (0 where it cannot be read cheaply)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


try:
    _PAGE = os.sysconf("SC_PAGE_SIZE")
except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
    _PAGE = 4096


class _Budget:
    """One render's budget and what it has spent (a plain class: the CLI imports this
    module at start-up, and a dataclass costs more to define than the rest of it)."""

    __slots__ = ("calls", "deadline", "iterations", "memory", "timeout")

    def __init__(self, deadline: float, timeout: float, *, memory: int = 0) -> None:
        self.deadline = deadline
        self.timeout = timeout
        self.iterations = 0
        self.calls = 0
        self.memory = memory


_BUDGET: ContextVar[_Budget | None] = ContextVar("calico_render_budget", default=None)


@contextlib.contextmanager
def budget() -> Iterator[None]:
    """Run a render under the current limits (a nested render shares the outer one)."""
    if _BUDGET.get() is not None:
        yield
        return
    now = time.monotonic()
    token = _BUDGET.set(_Budget(now + _timeout, _timeout, memory=_resident()))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _overtime(b: _Budget) -> None:
    if time.monotonic() > b.deadline:
        hint = remedy("raise it with {}", RENDER_TIMEOUT)
        raise LimitExceeded(
            f"render took longer than {b.timeout:g} s (render time limit; {hint})",
            RENDER_TIMEOUT,
            hint,
        )


def _overmemory(b: _Budget, coming: int = 0) -> None:
    if b.memory and _resident() + coming - b.memory > MAX_RENDER_MEMORY:
        raise LimitExceeded(
            f"render used more than {MAX_RENDER_MEMORY // (1024 * 1024)} MiB of memory "
            + fixed("memory")
        )


def check_size(size: int) -> None:
    """A value of at least ``size`` bytes is about to be made (or was just made): a large
    one is checked against the render's memory limit at once (:data:`MAX_RENDER_MEMORY`)."""
    if size >= LARGE_VALUE:
        b = _BUDGET.get()
        if b is not None:
            _overmemory(b, size)


def check_memory() -> None:
    """After making a large value: the render's memory against its limit."""
    b = _BUDGET.get()
    if b is not None:
        _overmemory(b)


def check_call() -> None:
    """On every sandboxed call: the clock and the memory are read every 64 calls."""
    b = _BUDGET.get()
    if b is not None:
        b.calls += 1
        if not b.calls & 63:
            _overtime(b)
            _overmemory(b)


def bounded_iter(iterable: Iterable[object]) -> Iterator[object]:
    """What every ``for`` loop of a compiled template iterates: counts iterations
    against MAX_LOOP_ITERATIONS and reads the clock every 1024."""
    b = _BUDGET.get()
    if b is None:
        yield from iterable
        return
    for item in iterable:
        b.iterations += 1
        if not b.iterations & 1023:
            if b.iterations > MAX_LOOP_ITERATIONS:
                raise LimitExceeded(
                    f"more than {MAX_LOOP_ITERATIONS} loop iterations " + fixed("loop iteration")
                )
            _overtime(b)
            _overmemory(b)
        yield item


def check_actions(source: str, file: str, dialect: str) -> None:
    """Refuse a template with more actions than its dialect's limit before compiling it,
    naming the line of the first action over the limit."""
    marks = ("{{",) if dialect == "go" else ("{{", "{%")
    limit = MAX_GO_TEMPLATE_ACTIONS if dialect == "go" else MAX_TEMPLATE_ACTIONS
    if sum(source.count(m) for m in marks) <= limit:
        return
    positions = sorted(i for m in marks for i in _find_all(source, m, limit + 1))[: limit + 1]
    raise TemplateError(
        f"more than {limit} actions " + fixed("action"),
        file=file,
        line=source.count("\n", 0, positions[-1]) + 1,
    )


def _find_all(text: str, mark: str, count: int) -> list[int]:
    out: list[int] = []
    at = text.find(mark)
    while at >= 0 and len(out) < count:
        out.append(at)
        at = text.find(mark, at + len(mark))
    return out


def bound_loops(template: j.Template) -> j.Template:
    """Make every ``for`` loop of a Jinja2 AST iterate through ``bounded_iter`` (the
    environment carries it as ``bounded_iter``)."""
    from jinja2 import nodes as j  # here: the limits themselves are read by every command

    for loop in template.find_all(j.For):
        loop.iter = j.Call(j.EnvironmentAttribute("bounded_iter"), [loop.iter], [], None, None)
    return template


#: Largest rendered output of one file, and of one version's files together.
MAX_OUTPUT_CHARS = 64 * 1024 * 1024


def output_message() -> str:
    return f"output longer than {MAX_OUTPUT_CHARS} characters " + fixed("output")
