"""Source maps: which template line produced each rendered line.

Findings are about rendered objects, but users edit templates: a location must be the
template's line, as template parse errors already are. The Jinja2 dialect compiles a
call ``mark(line)`` before each top-level output chunk (literal text, or what an
action prints); the renderer, consuming the template's generator, reads :data:`TRACE`
after each chunk and extends the map with :meth:`SourceMap.add`. The Go interpreter
gives each chunk the same origin as it emits it. Rendering stays byte-identical: a
mark prints nothing. Literal text's newlines are counted once per template, so mapping
costs little more than the marks.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class _Trace(threading.local):
    """The origin of the chunk the template is about to yield.

    ``line``: ``L`` > 0 for literal text starting on template line L (each newline in
    it moves one template line on); ``-L`` for what an action on line L printed (all
    its lines are L's); 0 unknown. ``newlines``: the newlines of literal text, known
    when the template is compiled (-1: count them in the chunk).
    """

    line = 0
    newlines = -1


TRACE = _Trace()


def mark(line: int, newlines: int = -1) -> str:
    """Called by compiled Jinja2 templates right before a chunk; prints nothing."""
    TRACE.line = line
    TRACE.newlines = newlines
    return ""


@dataclass(frozen=True, slots=True)
class Printed:
    """Text an action printed from the context: its place in the output, the template
    line of the action, and what it read (``calicoMode``, ``ClusterCidr.Ipv6``)."""

    start: int
    end: int
    line: int
    key: str


class MappedRender:
    """A template that renders with or without a source map through one ``_execute``
    (``lines`` None: no map is built)."""

    def render(self, context: Mapping[str, Any]) -> str:
        """Render with ``context``; raises TemplateError on failure."""
        return self._execute(context, None)

    def render_mapped(self, context: Mapping[str, Any]) -> tuple[str, SourceMap]:
        """Like :meth:`render`, with the template line of each rendered line."""
        lines = SourceMap()
        return self._execute(context, lines), lines

    def _execute(self, context: Mapping[str, Any], lines: SourceMap | None) -> str:
        raise NotImplementedError


class SourceMap:
    """Rendered line -> template line of one rendered file, as segments: the rendered
    line each chunk's first owned line is on and its origin (see :class:`_Trace`). A
    rendered line belongs to the chunk holding its first character."""

    __slots__ = ("_bases", "_pending", "_row", "_starts")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._bases: list[int] = []
        self._row = 1
        self._pending = True

    @classmethod
    def identity(cls, text: str) -> SourceMap:
        """The map of text taken verbatim: line N is line N."""
        out = cls()
        out.add(text, 1, text.count("\n"))
        return out

    def add(self, chunk: str, origin: int, newlines: int = -1) -> None:
        """Extend by one non-empty output chunk of ``origin``."""
        count = chunk.count("\n") if newlines < 0 else newlines
        row, start = self._row, (origin if origin > 0 else -origin)
        ends = chunk[-1] == "\n"
        owned = (1 if self._pending else 0) + count - (1 if ends else 0)
        if owned > 0:
            first = row if self._pending else row + 1
            self._starts.append(first)
            self._bases.append(start + first - row if origin > 0 else -start)
        self._row = row + count
        self._pending = ends

    def __len__(self) -> int:
        """The number of rendered lines mapped."""
        return self._row - 1 if self._pending else self._row

    def line(self, rendered: int | None) -> int | None:
        """The template line of 1-based rendered line ``rendered`` (None when unknown);
        a line past the end (a parser's end-of-file mark) is the last line's."""
        if rendered is None or rendered < 1 or not self._starts:
            return None
        rendered = min(rendered, len(self))
        i = bisect.bisect_right(self._starts, rendered) - 1
        base = self._bases[i]
        line = base + rendered - self._starts[i] if base > 0 else -base
        return line or None

    def lines(self) -> list[int]:
        """The template line of every rendered line (for tests and tools)."""
        return [self.line(r) or 0 for r in range(1, len(self) + 1)]


def template_line(source: SourceMap | None, rendered: int | None) -> int | None:
    """The template line of rendered line ``rendered`` in ``source`` (None if unknown)."""
    return source.line(rendered) if source is not None else None
