"""Stage 4, parse YAML: rendered text to Kubernetes objects with their origin.

Each object remembers its file, document index and first line, so every later finding
(rule, schema, golden diff) can point at where it came from.
"""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from renderer.engine.sourcemap import SourceMap, template_line
from renderer.errors import InputError
from renderer.k8s import load
from renderer.k8s.locate import Locator, parse_path
from renderer.store import cache
from renderer.store.memo import Memo

if TYPE_CHECKING:
    from renderer.engine.render import RenderedFile


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


def _scalar_json(value: Any) -> Any:
    """A YAML scalar JSON has no type for, as a string (as YAML-to-JSON does for Kubernetes)."""
    if isinstance(value, datetime.datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, bytes):  # a !!binary scalar
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _key_json(key: Any) -> str:
    """A mapping key as a JSON object key: ``1`` -> "1", ``true`` -> "true", ``null`` -> "null"."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, (int, float)):
        return str(key)
    return str(_scalar_json(key))


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float, dict, list)):
        return value
    if isinstance(value, (set, frozenset)):
        return {_key_json(k): None for k in sorted(value, key=_key_json)}
    if isinstance(value, tuple):
        return list(value)
    return _scalar_json(value)


def to_json_like(doc: Any, file: str, line: int) -> Any:
    """``doc`` with only JSON types: string keys, dates and binary as strings.

    Kubernetes tooling converts YAML to JSON before it reads an object, so a key ``1`` is
    the string "1" there; doing the same here keeps every later stage (hashing, schema
    validation, diffs) on plain JSON data. Two keys equal once converted are refused.
    Works in place, iteratively (no recursion limit on deep documents).
    """
    doc = _json_value(doc)
    stack = [doc]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            if not all(isinstance(k, str) for k in node):
                items = list(node.items())
                node.clear()
                for k, v in items:
                    key = _key_json(k)
                    if key in node:
                        raise InputError(
                            f"key {key!r} appears twice once keys are strings (as in JSON)",
                            file=file,
                            line=line,
                        )
                    node[key] = v
            for k, v in node.items():
                new = _json_value(v)
                if new is not v:
                    node[k] = new
                if isinstance(new, (dict, list)):
                    stack.append(new)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                new = _json_value(v)
                if new is not v:
                    node[i] = new
                if isinstance(new, (dict, list)):
                    stack.append(new)
    return doc


def _documents(text: str, file: str) -> Iterator[tuple[int, Any]]:
    """The non-empty documents of a stream with their first line, each JSON-like
    (:func:`to_json_like`) unless the loader built it so already."""
    for start, doc, json_like in load.load_marked(text, file):
        if doc is not None:
            yield start, doc if json_like else to_json_like(doc, file, start)


#: Parses of this process, by the text's cache key: a check renders the same text for
#: several scenarios and stages. Kept as JSON so that every use gets its own objects.
_PARSED: Memo[str, str] = Memo("k8s.parse.texts", 256)


def _valid_rows(value: Any) -> bool:
    """The shape of a kept parse: ``[line, mapping]`` per document."""
    return isinstance(value, list) and all(
        isinstance(row, list) and len(row) == 2 and type(row[0]) is int and isinstance(row[1], dict)
        for row in value
    )


def _rows(text: str, file: str) -> list[list[Any]]:
    """``[first line, document]`` of every non-empty document of ``text``: from this
    process's memo, the result cache (keyed by the text), or parsed."""
    key = cache.key("parse", text)
    known = _PARSED.get(key)
    if known is not None:
        rows: list[list[Any]] = json.loads(known)
        return rows
    stored = cache.get("parse", key, _valid_rows)
    if stored is not None:
        _PARSED[key] = json.dumps(stored)
        return list(stored)
    rows = [[start, doc] for start, doc in _documents(text, file)]
    try:
        encoded = json.dumps(rows)
    except (TypeError, ValueError):  # not JSON data (a refused document raises below)
        return rows
    _PARSED[key] = encoded
    cache.put("parse", key, rows)
    # decoded anew: an alias (``*x``) gives each place its own containers, as every
    # later use of this parse gets them
    fresh: list[list[Any]] = json.loads(encoded)
    return fresh


def parse_stream(text: str, file: str, *, lines: SourceMap | None = None) -> list[K8sObject]:
    """Objects of one rendered file; empty documents are dropped, non-mappings refused.
    ``lines``: the file's source map (template line per rendered line); objects then
    carry their template line and errors name it, with the rendered line as context."""
    try:
        found = _objects(file, ((line, doc) for line, doc in _rows(text, file)))
    except InputError as exc:
        raise to_template_error(exc, lines) if lines is not None else exc from None
    if lines is None:
        return found
    locator = Locator(text, lines)
    return [
        replace(o, source_line=template_line(lines, o.line) or 0, locator=locator) for o in found
    ]


def _objects(file: str, documents: Iterable[tuple[int, Any]]) -> list[K8sObject]:
    """The objects of (first line, document) pairs: each mapping, or a List's items."""
    objects: list[K8sObject] = []
    index = 0
    for start, doc in documents:
        if not isinstance(doc, dict):
            raise InputError(
                f"document is a {type(doc).__name__}, not a Kubernetes object",
                file=file,
                line=start,
            )
        if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            for item in doc["items"]:
                if isinstance(item, dict):
                    objects.append(K8sObject(file, index, start, item))
                    index += 1
            continue
        objects.append(K8sObject(file, index, start, doc))
        index += 1
    return objects


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
