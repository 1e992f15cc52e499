"""The template line of a field of a rendered object, for findings.

A rendered file's :class:`~renderer.engine.sourcemap.SourceMap` gives each rendered line
its template line; this finds the rendered line of a field path (YAML with positions)
and asks the map, so a finding can point at the template line that wrote the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from renderer.engine.sourcemap import SourceMap, template_line
from renderer.store import cache as result_cache
from renderer.store.memo import Memo

#: Compiled (and kept by ``re``) when a finding first asks for a line.
_PATH_PART = r"\[(\d+)\]|([^.\[\]]+)"


#: The last documents parsed with positions (``None``: not parseable), by their text.
_POSITIONS: Memo[str, list[Any] | None] = Memo("k8s.locate.positions", 16)


def positions(document: str) -> list[Any] | None:
    """``document`` parsed with positions (read only: shared). One document renders
    alike in every scenario and Kubernetes version, and each of them locates its own
    findings: the slow parse is done once for all of them."""
    try:
        return _POSITIONS[document]
    except KeyError:
        parsed = _POSITIONS[document] = load_with_positions(document)
        return parsed


def load_with_positions(document: str) -> list[Any] | None:
    """:func:`renderer.k8s.yamlio.load_with_positions`, importing the YAML reader when a
    finding first asks for a line (a render served from the cache makes locators that
    are never asked)."""
    from renderer.k8s import yamlio

    return yamlio.load_with_positions(document)


def parse_path(field: str) -> list[str | int]:
    """``spec.containers[0].image`` as path parts: ["spec", "containers", 0, "image"]."""
    return [int(i) if i else key for i, key in re.findall(_PATH_PART, field)]


class Locator:
    """Template lines of fields of the objects of one rendered file, for findings.

    Slow path only: a document is parsed again with positions the first time one of
    its fields is asked for.
    """

    def __init__(self, text: str, source: SourceMap | None) -> None:
        self.text = text
        self.source = source
        self._docs: list[tuple[int, int, str]] | None = None
        #: Documents already parsed with positions, by their first line (fields of one
        #: object, e.g. every container image of a DaemonSet, share one parse).
        self._parsed: dict[int, list[Any] | None] = {}

    def field_line(self, start: int, path: Sequence[str | int]) -> int | None:
        """The template line of ``path`` (its deepest existing key) in the object whose
        document holds rendered line ``start``."""
        from renderer.k8s.yamlio import locate_in, split_documents

        if self._docs is None:
            self._docs = [
                (first, first + chunk.count("\n"), chunk)
                for first, chunk in split_documents(self.text)
            ]
        for first, last, chunk in self._docs:
            if first <= start <= last:
                found = self._line_in(first, chunk, path, locate_in)
                return template_line(self.source, first + found - 1) if found else None
        return None

    def _line_in(
        self, first: int, chunk: str, path: Sequence[str | int], locate_in: Any
    ) -> int | None:
        """The line of ``path`` in one document (its first line ``first``): from the
        result cache, under the document's text and the path, else parsed with
        positions (the slow parse: a CRD of 5,000 lines takes a second) and kept."""
        key = result_cache.key("locate", chunk, json.dumps(list(path)))
        stored = result_cache.get("locate", key, _valid_line)
        if stored is not None:
            return int(stored["line"]) if stored["line"] is not None else None
        if first not in self._parsed:
            self._parsed[first] = positions(chunk)
        found: int | None = locate_in(self._parsed[first], 0, path)
        result_cache.put("locate", key, {"line": found})
        return found


def _valid_line(value: Any) -> bool:
    line = value.get("line", 0) if isinstance(value, dict) else 0
    return line is None or (isinstance(line, int) and not isinstance(line, bool) and line > 0)


def field_line(
    text: str, source: SourceMap | None, start: int, path: Sequence[str | int]
) -> int | None:
    """:meth:`Locator.field_line` for one question."""
    return Locator(text, source).field_line(start, path)
