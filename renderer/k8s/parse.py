"""Stage 4, parse YAML: rendered text to Kubernetes objects with their origin.

A rendered file is read as BKE's controller reads it before applying it
(:mod:`renderer.k8s.decode`: YAML 1.1, its document cutting, its errors), so the
objects are what the cluster receives. Each object remembers its file, document index
and first line, so every later finding (rule, schema, golden diff) can point at where
it came from, and the scalars the controller reads otherwise than YAML 1.2.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from renderer.engine.sourcemap import SourceMap, template_line
from renderer.errors import InputError
from renderer.k8s.locate import Locator, parse_path
from renderer.store import cache
from renderer.store.memo import Memo

if TYPE_CHECKING:
    from renderer.engine.render import RenderedFile


@dataclass(frozen=True, slots=True)
class Reading:
    """A plain scalar YAML 1.1 reads otherwise than YAML 1.2: ``yes`` is true to BKE's
    controller's decoder (YAML 1.1), the string "yes" to YAML 1.2's core schema."""

    #: The rendered line the scalar is on.
    line: int
    #: Where its value ends up in its object (keys and list indexes).
    path: tuple[str | int, ...]
    #: The scalar as written.
    text: str
    #: What the controller decodes it to, as JSON (a key: the JSON string it becomes).
    yaml11: str
    #: What YAML 1.2's core schema reads, as JSON (or ``.inf``, ``.nan``).
    yaml12: str
    #: Whether the scalar is a mapping key.
    key: bool = False
    #: The template line that produced ``line`` (0 when the text has no source map).
    source_line: int = 0


@dataclass(frozen=True, slots=True)
class K8sObject:
    """One rendered Kubernetes object."""

    file: str
    index: int
    line: int
    data: dict[str, Any]
    #: The template line that produced ``line`` (0 when the text has no source map).
    source_line: int = 0
    #: Finds template lines of fields (None when the text has no source map).
    locator: Locator | None = field(default=None, compare=False, repr=False)
    #: Scalars of its document whose YAML 1.1 reading (the controller's, which ``data``
    #: holds) is not their YAML 1.2 reading.
    readings: tuple[Reading, ...] = field(default=(), compare=False, repr=False)

    def field_line(self, path: str) -> int:
        """The template line of field ``path`` (``spec.containers[0].image``); the
        object's line when it cannot be told."""
        found = None
        if path and self.locator is not None:
            found = self.locator.field_line(self.line, parse_path(path))
        return found or self.source_line or self.line

    @property
    def where(self) -> str:
        """``file:line`` as findings print it: the template's line when known."""
        return f"{self.file}:{self.source_line or self.line}"

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.data.get("apiVersion", ""))

    @property
    def name(self) -> str:
        meta = self.data.get("metadata")
        return str(meta.get("name", "")) if isinstance(meta, dict) else ""

    @property
    def namespace(self) -> str:
        meta = self.data.get("metadata")
        return str(meta.get("namespace", "") or "") if isinstance(meta, dict) else ""

    @property
    def ref(self) -> str:
        """``Kind namespace/name`` (or ``Kind name`` when cluster-scoped)."""
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)


#: Parses of this process, by the text's cache key: a check renders the same text for
#: several scenarios and stages. Kept as JSON so that every use gets its own objects.
_PARSED: Memo[str, str] = Memo("k8s.parse.texts", 256)


def _valid_rows(value: Any) -> bool:
    """The shape of a kept parse: ``[line, mapping]`` per object, with a third item
    listing its readings (``[line, path, text, yaml11, yaml12, key]``) when it has any."""
    return isinstance(value, list) and all(
        isinstance(row, list)
        and len(row) in (2, 3)
        and type(row[0]) is int
        and isinstance(row[1], dict)
        and (len(row) == 2 or _valid_readings(row[2]))
        for row in value
    )


def _valid_readings(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(r, list)
        and len(r) == 6
        and type(r[0]) is int
        and isinstance(r[1], list)
        and all(type(p) in (str, int) for p in r[1])
        and all(isinstance(t, str) for t in r[2:5])
        and type(r[5]) is bool
        for r in value
    )


def _row(line: int, data: dict[str, Any], readings: tuple[Reading, ...]) -> list[Any]:
    if not readings:
        return [line, data]
    kept = [[r.line, list(r.path), r.text, r.yaml11, r.yaml12, r.key] for r in readings]
    return [line, data, kept]


def _rows(text: str, file: str) -> list[list[Any]]:
    """``[first line, object]`` (and its readings) of every object the controller
    applies of ``text``: from this process's memo, the result cache (keyed by the
    text), or decoded."""
    key = cache.key("parse", text)
    known = _PARSED.get(key)
    if known is not None:
        rows: list[list[Any]] = json.loads(known)
        return rows
    stored = cache.get("parse", key, _valid_rows)
    if stored is not None:
        _PARSED[key] = json.dumps(stored)
        return list(stored)
    from renderer.k8s.decode import decode_stream  # ruamel's parser: only to parse a text

    decoded = [_row(d.line, d.data, d.readings) for d in decode_stream(text, file)]
    encoded = json.dumps(decoded)
    _PARSED[key] = encoded
    cache.put("parse", key, decoded)
    # decoded anew: an alias (``*x``) gives each place its own containers, as every
    # later use of this parse gets them
    fresh: list[list[Any]] = json.loads(encoded)
    return fresh


def parse_stream(text: str, file: str, *, lines: SourceMap | None = None) -> list[K8sObject]:
    """Objects of one rendered file, as BKE's controller decodes it; where it fails
    (an empty document, a value JSON has no form for, ...) an InputError names the
    line. ``lines``: the file's source map (template line per rendered line); objects
    and their readings then carry their template line and errors name it, with the
    rendered line as context."""
    try:
        rows = _rows(text, file)
    except InputError as exc:
        raise to_template_error(exc, lines) if lines is not None else exc from None
    found = [
        K8sObject(file, index, row[0], row[1], readings=_readings(row, lines))
        for index, row in enumerate(rows)
    ]
    if lines is None:
        return found
    locator = Locator(text, lines)
    return [
        replace(o, source_line=template_line(lines, o.line) or 0, locator=locator) for o in found
    ]


def _readings(row: list[Any], lines: SourceMap | None) -> tuple[Reading, ...]:
    """The readings of a kept row, at their template lines when ``lines`` is given."""
    if len(row) == 2:
        return ()
    return tuple(
        Reading(
            line,
            tuple(path),
            text,
            yaml11,
            yaml12,
            key,
            (template_line(lines, line) or 0) if lines is not None else 0,
        )
        for line, path, text, yaml11, yaml12, key in row[2]
    )


def to_template_error(exc: InputError, lines: SourceMap | None) -> InputError:
    """``exc`` (about a rendered line) located at the template line that produced it."""
    source = template_line(lines, exc.line)
    if source is None:
        return exc
    col = f", column {exc.column}" if exc.column is not None else ""
    return InputError(
        f"{exc.message} (rendered line {exc.line}{col})", file=exc.file, line=source, key=exc.key
    )


def parse_files(files: Iterable[tuple[str, str]]) -> list[K8sObject]:
    """Objects of several (name, text) files, in order."""
    out: list[K8sObject] = []
    for name, text in files:
        out.extend(parse_stream(text, name))
    return out


def parse_rendered(files: Iterable[RenderedFile]) -> list[K8sObject]:
    """Objects of rendered files, in order, located by each file's source map."""
    out: list[K8sObject] = []
    for f in files:
        out.extend(parse_stream(f.text, f.name, lines=f.lines))
    return out
