"""Safe YAML reading for untrusted input and for rendered manifests.

Uses ruamel.yaml's C loader when present (several times faster on multi-thousand-line
manifests). Input files are bounded: size, UTF-8, and the expanded size of aliases, so
an alias bomb fails fast with exit 2 instead of exhausting memory later.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import io
import json
import math
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    NodeEvent,
)
from ruamel.yaml.resolver import VersionedResolver

from renderer.errors import InputError
from renderer.store.read import read_text

MAX_EXPANDED_NODES = 2_000_000
#: Deepest collection nesting accepted. Calico's CRD schemas nest about 30 deep; the C
#: composer recurses on the C stack, so a file nested thousands deep would crash it.
MAX_DEPTH = 128


class _Yaml12Resolver(VersionedResolver):
    """YAML 1.2 resolution without re-deriving the version for every scalar.

    ruamel looks the document's version up through two failing attribute lookups per
    scalar, a quarter of the load time on large files; ``%YAML`` directives are not
    honoured here (manifests and BKE configs carry none).
    """

    @property
    def processing_version(self) -> tuple[int, int]:
        return (1, 2)


def _loader() -> YAML:
    yaml = YAML(typ="safe", pure=False)
    yaml.Resolver = _Yaml12Resolver
    return yaml


_YAML = _loader()
C_LOADER: bool = getattr(_YAML.Parser, "__name__", "") == "CParser"


def _mark_error(exc: YAMLError, file: str) -> InputError:
    if isinstance(exc, MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is not None:
            return InputError(
                f"invalid YAML: {problem}",
                file=file,
                line=mark.line + 1,
                column=mark.column + 1,
            )
        return InputError(f"invalid YAML: {problem}", file=file)
    return InputError(f"invalid YAML: {str(exc).splitlines()[0] if str(exc) else exc!r}", file=file)


def check_expansion(data: Any, file: str, limit: int = MAX_EXPANDED_NODES) -> None:
    """Reject data whose aliases expand beyond ``limit`` nodes (billion-laughs)."""
    budget = limit
    stack = [data]
    while stack:
        node = stack.pop()
        budget -= 1
        if budget < 0:
            raise InputError(f"YAML expands to more than {limit} nodes (alias bomb?)", file=file)
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def scan(text: str, file: str, *, limit: int = MAX_DEPTH) -> list[int]:
    """One pass over libyaml's event stream (iterative, so safe on any input): reject
    nesting deeper than ``limit`` before anything recursive (the composer, our walkers)
    sees it, and return each document's first content line (1-based), which the C
    loader's documents do not carry."""
    parser = _YAML.get_constructor_parser(io.StringIO(text))[1]
    depth = 0
    starts: list[int] = []
    pending = False
    while parser.check_event():
        event = parser.get_event()
        mark = event.start_mark
        line = mark.line + 1 if mark is not None else 0
        if isinstance(event, DocumentStartEvent):
            starts.append(line + 1 if event.explicit else line)
            pending = True
        elif isinstance(event, NodeEvent) and pending:
            starts[-1] = line
            pending = False
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > limit:
                raise InputError(
                    f"YAML nests deeper than {limit} levels",
                    file=file,
                    line=line or None,
                )
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
    return starts


_GC_LOCK = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a document is built. Building creates
    objects that all stay alive, and the collector's repeated passes over them made
    loading superlinear (a values file of 400,000 keys); documents hold no cycles.
    Counted, so overlapping loads in threads restore the collector once, at the end."""
    global _gc_pauses, _gc_was_enabled
    with _GC_LOCK:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def load_all_lines(text: str, file: str) -> list[tuple[int, Any]]:
    """All documents of a YAML stream with their first content line (empty documents
    included as None). One load of the whole stream: loading document by document to
    keep positions costs a parser per document."""
    try:
        starts = scan(text, file)
        with _gc_paused():
            docs = list(_YAML.load_all(io.StringIO(text)))
    except YAMLError as exc:
        raise _mark_error(exc, file) from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise InputError(f"invalid YAML: {exc}", file=file) from None
    if len(starts) != len(docs):  # both come from the same parser; never expected
        raise InputError("YAML documents could not be located", file=file)
    for doc in docs:
        check_expansion(doc, file)
    return list(zip(starts, docs, strict=True))


def load_all(text: str, file: str) -> list[Any]:
    """All documents of a YAML stream (empty documents included as None)."""
    return [doc for _, doc in load_all_lines(text, file)]


def load_mapping_file(path: str | Path) -> dict[str, Any]:
    """A file holding one mapping (values files); an empty file is an empty mapping.

    JSON (a ``.json`` file, or content starting with ``{``) is parsed as JSON, with
    JSON's escapes and rules; every value must be plain data (see :func:`check_plain`).
    """
    text = read_text(path)
    file = str(path)
    if file.endswith(".json") or text.lstrip(" \t\r\n").startswith("{"):
        doc = load_json(text, file)
        docs = [] if doc is None else [doc]
    else:
        docs = [d for d in load_all(text, file) if d is not None]
    if not docs:
        return {}
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError("expected one YAML mapping", file=file)
    check_plain(docs[0], file, text)
    return docs[0]


def _json_pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in items:
        if key in out:
            raise _JsonDuplicate(key)
        out[key] = value
    return out


class _JsonDuplicate(Exception):
    pass


def load_json(text: str, file: str) -> Any:
    """One JSON document (RFC 8259: raw control characters in strings are errors,
    duplicate keys too). ``NaN``/``Infinity`` parse here and are refused by
    :func:`check_plain`, which knows their key."""
    try:
        return json.loads(text, object_pairs_hook=_json_pairs)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg}", file=file, line=exc.lineno, column=exc.colno
        ) from None
    except _JsonDuplicate as exc:
        raise InputError("duplicate key", file=file, key=str(exc.args[0])) from None
    except RecursionError:
        raise InputError(f"JSON nests deeper than {MAX_DEPTH} levels", file=file) from None


def _plain_problem(value: Any) -> str | None:
    """Why ``value`` is not plain context data (str, int, finite float, bool, null,
    list, mapping), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number (NaN and Infinity are not allowed)"
    if isinstance(value, datetime.date):  # datetime too
        return f"is a YAML timestamp ({value.isoformat()}); quote it to pass it as text"
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            return "holds an unpaired UTF-16 surrogate escape"
        return None
    if value is None or isinstance(value, bool | int | float | dict | list):
        return None
    return f"has unsupported type {type(value).__name__}"


def check_plain(data: dict[Any, Any], file: str, text: str | None = None) -> None:
    """Refuse what the context cannot carry, naming the key: non-string keys, NaN and
    Infinity, timestamps, binary, lone surrogates, nesting deeper than MAX_DEPTH.
    Iterative and linear in the size of ``data``."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        node, path = stack.pop()
        problem = _plain_problem(node)
        if problem is None and len(path) > MAX_DEPTH:
            problem = f"nests deeper than {MAX_DEPTH} levels"
        if problem is None and isinstance(node, dict):
            for key, value in node.items():
                if not isinstance(key, str):
                    problem = "is not a string key; quote it"
                    path = [*path, _plain_text(key)]
                    break
                stack.append((value, [*path, key]))
        elif problem is None and isinstance(node, list):
            stack.extend((value, [*path, i]) for i, value in enumerate(node))
        if problem is not None:
            where = ".".join(str(p) for p in path)
            line = locate(text, 0, path) if text is not None and path else None
            raise InputError(problem, file=file, line=line, key=where or None)


def _plain_text(value: Any) -> str:
    """A scalar as YAML would spell it, for messages (no Python repr)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def split_documents(text: str) -> Iterator[tuple[int, str]]:
    """Yield (first line number, text) per document of a stream, split at ``---`` lines.

    Splitting ourselves keeps each object's line number while still parsing with the
    C loader, which records no positions.
    """
    start = 1
    chunk: list[str] = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.startswith("---") and (len(line) == 3 or line[3] in " \t\r\n"):
            yield start, "".join(chunk)
            rest = line[3:].strip()
            chunk = [] if not rest or rest.startswith("#") else [rest + "\n"]
            start = number if chunk else number + 1
            continue
        chunk.append(line)
    yield start, "".join(chunk)


# --- positions, for error messages only --------------------------------------------------


def _position_loader() -> YAML:
    """A round-trip loader: slower than the safe C loader, but it records line numbers."""
    return YAML(typ="rt")


def load_with_positions(text: str) -> list[Any] | None:
    """Documents of ``text`` whose mappings and sequences know their lines; None if invalid."""
    try:
        return list(_position_loader().load_all(io.StringIO(text)))
    except (YAMLError, ValueError, TypeError, RecursionError):
        return None


def _line_of(node: Any) -> int | None:
    lc = getattr(node, "lc", None)
    return int(lc.line) + 1 if lc is not None else None


def locate(text: str, doc_index: int, path: Sequence[str | int]) -> int | None:
    """1-based line of key ``path`` in document ``doc_index`` of ``text``, or None.

    Meant for error paths only: it parses ``text`` again with the round-trip loader.
    The line of the deepest key of ``path`` that exists is returned.
    """
    return locate_in(load_with_positions(text), doc_index, path)


def locate_in(docs: list[Any] | None, doc_index: int, path: Sequence[str | int]) -> int | None:
    """:func:`locate` in documents already loaded by :func:`load_with_positions` (so a
    caller asking for several fields of one document parses it once)."""
    if docs is None or doc_index >= len(docs):
        return None
    node: Any = docs[doc_index]
    line = _line_of(node)
    for part in path:
        lc = getattr(node, "lc", None)
        try:
            if isinstance(part, int) and isinstance(node, list):
                line = lc.item(part)[0] + 1 if lc is not None else line
            elif isinstance(part, str) and isinstance(node, dict):
                line = lc.key(part)[0] + 1 if lc is not None else line
            else:
                break
            node = node[part]
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line
