"""Safe YAML reading for untrusted input and for rendered manifests.

Uses ruamel.yaml's C loader when present (several times faster on multi-thousand-line
manifests). Input files are bounded: size, UTF-8, and the expanded size of aliases, so
an alias bomb fails fast with exit 2 instead of exhausting memory later.
"""

from __future__ import annotations

import datetime
import io
import json
import math
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renderer.errors import InputError
from renderer.k8s import gcpause as _gcpause
from renderer.store.read import read_text

if TYPE_CHECKING:
    from ruamel.yaml.error import YAMLError

MAX_EXPANDED_NODES = 2_000_000
#: Deepest collection nesting accepted. Calico's CRD schemas nest about 30 deep; the C
#: composer recurses on the C stack, so a file nested thousands deep would crash it.
MAX_DEPTH = 128

# ruamel's loaders live in :mod:`renderer.k8s.libyaml`, imported by the functions
# that read YAML (a warm render reads its parses back without them).


def mark_error(exc: YAMLError, file: str) -> InputError:
    """ruamel's error as our one-line input error, at its line and column when it has
    them (:func:`load_all_lines` and :mod:`renderer.k8s.decode` report this way)."""
    from renderer.k8s.libyaml import MarkedYAMLError

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
    from renderer.k8s.libyaml import (
        CollectionEndEvent,
        CollectionStartEvent,
        DocumentStartEvent,
        NodeEvent,
        safe_loader,
    )

    parser = safe_loader(text)[1]
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


def item_lines(text: str, key: str, field: str) -> list[tuple[int, int]]:
    """For the sequence under top-level ``key`` of the first document: each item's line
    and the line of its ``field`` key (the item's line when it has none), 1-based. One
    pass of the C parser's events: locating each item with the round-trip loader parsed
    the file again per item (10,000 exceptions: minutes)."""
    from renderer.k8s.libyaml import (
        CollectionEndEvent,
        CollectionStartEvent,
        DocumentStartEvent,
        NodeEvent,
        safe_loader,
    )

    parser = safe_loader(text)[1]
    out: list[list[int]] = []
    depth = 0
    in_key = False  # inside the top-level key's value
    expect_key = {1: True}  # per mapping depth: the next scalar is a key
    pending_top: str | None = None
    while parser.check_event():
        event = parser.get_event()
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, DocumentStartEvent) and out:
            break
        if isinstance(event, CollectionStartEvent):
            if depth == 1 and pending_top == key:
                in_key = True
            elif in_key and depth == 2:
                out.append([line, line])
            _flip(expect_key, depth)
            depth += 1
            expect_key[depth] = True
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
            if depth == 1:
                in_key = False
        elif isinstance(event, NodeEvent):  # a scalar or an alias
            if depth == 1 and expect_key.get(1):
                pending_top = getattr(event, "value", None)
            elif in_key and depth == 3 and expect_key.get(3) and out:
                if getattr(event, "value", None) == field:
                    out[-1][1] = line
            elif in_key and depth == 2:
                out.append([line, line])
            _flip(expect_key, depth)
    return [(a, b) for a, b in out]


def _flip(expect_key: dict[int, bool], depth: int) -> None:
    """A node at ``depth`` was read: in a mapping, keys and values alternate."""
    if depth in expect_key:
        expect_key[depth] = not expect_key[depth]


def yaml_shape(text: str) -> tuple[str, ...] | None:
    """The structure of a YAML stream: its events' kinds (documents, mappings,
    sequences, scalars, aliases, anchors and tags), scalars' text aside; None when it does
    not parse (or nests deeper than MAX_DEPTH). Two texts with one shape differ only in
    the text of their scalars. One pass of libyaml's events (iterative, so the depth is
    checked as they arrive, before anything recursive sees them)."""
    from renderer.k8s.libyaml import (
        CollectionEndEvent,
        CollectionStartEvent,
        YAMLError,
        safe_loader,
    )

    try:
        parser = safe_loader(text)[1]
        out: list[str] = []
        depth = 0
        while parser.check_event():
            event = parser.get_event()
            kind = type(event).__name__
            anchor = getattr(event, "anchor", None)
            tag = getattr(event, "tag", None)
            if kind == "ScalarEvent":
                style = getattr(event, "style", None)
                out.append(f"S{style if style in ('|', '>') else ''}{tag or ''}&{anchor or ''}")
            else:
                out.append(f"{kind}{tag or ''}&{anchor or ''}")
                if isinstance(event, CollectionStartEvent):
                    depth += 1
                    if depth > MAX_DEPTH:
                        return None
                elif isinstance(event, CollectionEndEvent):
                    depth -= 1
        return tuple(out)
    except (YAMLError, ValueError, RecursionError):
        return None


#: Kept under its old names: the readers below and callers that import it from here.
gc_paused = _gc_paused = _gcpause.gc_paused

_STR = "tag:yaml.org,2002:str"
#: Implicit scalar tags the plain builder constructs (through ruamel's own constructors).
_PLAIN_TAGS = frozenset(
    {_STR, "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"}
)
_NULL = "tag:yaml.org,2002:null"
_NO_KEY = object()


class _Lines:
    """Where a collection, its keys and its items start (0-based lines): the part of
    ruamel's ``lc`` that :func:`locate_in` reads."""

    __slots__ = ("items", "keys", "line")

    def __init__(self, line: int) -> None:
        self.line = line
        self.keys: dict[Any, int] = {}
        self.items: dict[int, int] = {}

    def key(self, key: Any) -> tuple[int, int]:
        return self.keys[key], 0

    def item(self, index: int) -> tuple[int, int]:
        return self.items[index], 0


class _LineDict(dict[Any, Any]):
    __slots__ = ("lc",)
    lc: _Lines


class _LineList(list[Any]):
    __slots__ = ("lc",)
    lc: _Lines


class _NotPlain(Exception):
    """The stream leaves the plain subset :func:`_plain_load_all` builds."""


class _MapFrame:
    """A mapping being built and its key waiting for a value."""

    __slots__ = ("data", "key")

    def __init__(self, data: dict[Any, Any]) -> None:
        self.data: Any = data
        self.key: Any = _NO_KEY


def _plain_load_all(
    text: str, limit: int = MAX_DEPTH, *, lines: bool = False
) -> list[tuple[int, Any]] | None:
    """:func:`load_all_lines` for the usual input, in one pass over libyaml's events:
    scalars, mappings and sequences without tags, anchors, aliases, merge keys or
    duplicate keys, scalars resolving to str, int, float, bool or null. Anything else,
    and every error, is None: the caller loads the stream the full way, which decides
    and words it. ruamel's pure-Python composer and constructor took 4 s for 20,000
    BKENodes; the values are the ones they build (ruamel's resolver table and scalar
    constructors are used here). With ``lines``, mappings and sequences carry the lines
    of their keys and items as the round-trip loader's do (see :func:`positions`)."""
    from ruamel.yaml.events import (
        AliasEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
    )
    from ruamel.yaml.nodes import ScalarNode

    from renderer.k8s.libyaml import C_LOADER, safe_loader

    if not C_LOADER:
        return None
    loader = safe_loader(text)[1]
    table = loader.versioned_resolver
    extra = table.get(None, [])
    constructors = loader.yaml_constructors
    resolved: dict[str, str | None] = {}

    def resolve(value: str) -> str | None:
        """ruamel's implicit tag of a plain scalar, None outside the plain tags."""
        tag: str | None = _STR
        for candidate, regexp in [*table.get(value[0] if value else "", []), *extra]:
            if regexp.match(value):
                tag = candidate
                break
        if tag != _NULL and tag not in _PLAIN_TAGS:
            tag = None
        if tag is not None and len(resolved) < 4096:
            resolved[value] = tag
        return tag

    docs: list[tuple[int, Any]] = []
    # Open collections: a list, or [dict, pending key]; ``nodes`` counts a document's.
    stack: list[Any] = []
    start = 0
    pending = False
    nodes = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)
            if kind is ScalarEvent:
                if event.anchor is not None or event.ctag is not None:
                    raise _NotPlain
                value: Any = event.value
                if event.implicit[0]:
                    tag = resolved.get(value) or resolve(value)
                    if tag is None:
                        raise _NotPlain
                    if tag == _NULL:
                        value = None
                    elif tag != _STR:
                        value = constructors[tag](loader, ScalarNode(tag, value))
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                if event.anchor is not None or event.ctag is not None or len(stack) >= limit:
                    raise _NotPlain
                if lines:
                    value = _LineDict() if kind is MappingStartEvent else _LineList()
                    value.lc = _Lines(event.start_mark.line)
                else:
                    value = {} if kind is MappingStartEvent else []
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                stack.pop()
                continue
            elif kind is DocumentStartEvent:
                line = event.start_mark.line + 1
                start = line + 1 if event.explicit else line
                pending = True
                nodes = 0
                continue
            elif kind is AliasEvent:
                raise _NotPlain
            else:
                continue
            if pending:
                start = event.start_mark.line + 1
                pending = False
            nodes += 1
            if nodes > MAX_EXPANDED_NODES:
                raise _NotPlain
            if not stack:
                docs.append((start, value))
            else:
                top = stack[-1]
                if top.__class__ is not _MapFrame:
                    if lines:
                        top.lc.items[len(top)] = event.start_mark.line
                    top.append(value)
                elif top.key is _NO_KEY:
                    if kind is not ScalarEvent:
                        raise _NotPlain  # a collection as a key
                    top.key = value
                    if lines:
                        top.data.lc.keys[value] = event.start_mark.line
                else:
                    if top.key in top.data:
                        raise _NotPlain  # a duplicate key: the full load words it
                    top.data[top.key] = value
                    top.key = _NO_KEY
            if kind is MappingStartEvent:
                stack.append(_MapFrame(value))
            elif kind is SequenceStartEvent:
                stack.append(value)
    except Exception:  # not plain, or an error the full load words
        return None
    return docs


def load_all_lines(text: str, file: str) -> list[tuple[int, Any]]:
    """All documents of a YAML stream with their first content line (empty documents
    included as None). One load of the whole stream: loading document by document to
    keep positions costs a parser per document. The usual input is built in one pass
    (:func:`_plain_load_all`); the rest takes ruamel's composer and constructor."""
    with _gc_paused():
        plain = _plain_load_all(text)
    if plain is not None:
        return plain
    from renderer.k8s.libyaml import SAFE, YAMLError

    try:
        starts = scan(text, file)
        with _gc_paused():
            docs = list(SAFE.load_all(io.StringIO(text)))
    except YAMLError as exc:
        raise mark_error(exc, file) from None
    except ValueError as exc:
        raise _huge_integer(text, file, exc) from None
    except (TypeError, RecursionError) as exc:
        raise InputError(f"invalid YAML: {exc}", file=file) from None
    if len(starts) != len(docs):  # both come from the same parser; never expected
        raise InputError("YAML documents could not be located", file=file)
    for doc in docs:
        check_expansion(doc, file)
    return list(zip(starts, docs, strict=True))


def load_all(text: str, file: str) -> list[Any]:
    """All documents of a YAML stream (empty documents included as None)."""
    return [doc for _, doc in load_all_lines(text, file)]


def load_mapping_file(
    path: str | Path, duplicates: list[tuple[str, int, int]] | None = None
) -> dict[str, Any]:
    """A file holding one mapping (values files); an empty file is an empty mapping.

    JSON (a ``.json`` file, or content starting with ``{``) is parsed as JSON, with
    JSON's escapes and rules; every value must be plain data (see :func:`check_plain`).
    A key given twice in one mapping keeps its last value, as Go's decoders do, and is
    added to ``duplicates`` as (key path, first line, last line); without that list it
    is refused.
    """
    text = read_text(path)
    file = str(path)
    is_json = file.endswith(".json") or text.lstrip(" \t\r\n").startswith("{")
    try:
        if is_json:
            doc = load_json(text, file)
            docs = [] if doc is None else [doc]
        else:
            docs = [d for d in load_all(text, file) if d is not None]
    except InputError as exc:
        if duplicates is None or "duplicate key" not in exc.message:
            raise
        found = duplicate_keys(text, file)
        if not found:
            raise
        duplicates.extend(found)
        if is_json:
            doc = json.loads(text)  # a dict keeps the last of equal keys
            docs = [] if doc is None else [doc]
        else:
            from renderer.k8s.libyaml import LAST_WINS

            with _gc_paused():
                docs = [d for d in LAST_WINS.load_all(io.StringIO(text)) if d is not None]
    if not docs:
        return {}
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError("expected one YAML mapping", file=file)
    _check_keys(docs[0], file, text)
    # Decoded UTF-8 holds no surrogate: only an escape (JSON's \u, YAML's \u and \U)
    # makes one, so a text without those needs no second copy of its data.
    may_escape = "\\u" in text or "\\U" in text
    mapping: dict[str, Any] = _replace_surrogates(docs[0]) if may_escape else docs[0]
    check_plain(mapping, file, text)
    return mapping


_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(value: Any) -> Any:
    """A lone UTF-16 surrogate escape (``"\\ud800"``) becomes U+FFFD, as Go's JSON and
    YAML decoders make it (the controller's context never holds one)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    return value


class _Frame:
    """An open collection while walking events: a mapping expects a key or a value. (A
    plain class: this module loads on every run, and a dataclass is built at import.)"""

    __slots__ = ("expect_key", "is_map", "items", "key", "path", "seen")

    def __init__(self, is_map: bool, path: list[str]) -> None:
        self.is_map = is_map
        self.path = path
        self.seen: dict[str, int] = {}
        self.expect_key = True
        self.key = "?"
        self.items = 0


def duplicate_keys(text: str, file: str) -> list[tuple[str, int, int]]:
    """Keys given twice in one mapping of ``text`` (YAML, or JSON read as YAML): (key
    path, line of the first, line of the last), in the order the repeats appear."""
    from renderer.k8s.libyaml import (
        CollectionEndEvent,
        CollectionStartEvent,
        NodeEvent,
        YAMLError,
        safe_loader,
    )

    try:
        scan(text, file)  # bounded depth before walking
        parser = safe_loader(text)[1]
        frames: list[_Frame] = []
        out: dict[str, tuple[str, int, int]] = {}
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, CollectionEndEvent):
                frames.pop()
                if frames and frames[-1].is_map:
                    frames[-1].expect_key = True
                continue
            if not isinstance(event, NodeEvent):
                continue
            parent = frames[-1] if frames else None
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            is_key = parent is not None and parent.is_map and parent.expect_key
            if parent is not None and is_key:
                key = str(getattr(event, "value", "?"))
                parent.key, parent.expect_key = key, False
                where = ".".join([*parent.path, key])
                if key in parent.seen:
                    out[where] = (where, out.get(where, (where, parent.seen[key], 0))[1], line)
                else:
                    parent.seen[key] = line
            elif (
                parent is not None and parent.is_map and not isinstance(event, CollectionStartEvent)
            ):
                parent.expect_key = True
            if isinstance(event, CollectionStartEvent):
                step = [] if parent is None else [parent.key if parent.is_map else "[]"]
                frames.append(_Frame(type(event).__name__ == "MappingStartEvent",
                                     [*(parent.path if parent else []), *step]))  # fmt: skip
        return list(out.values())
    except YAMLError:
        return []


def _json_pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = dict(items)
    if len(out) == len(items):  # no key twice: built in C, not a loop per key
        return out
    out = {}
    for key, value in items:
        if key in out:
            raise _JsonDuplicate(key)
        out[key] = value
    return out


class _JsonDuplicate(Exception):
    pass


#: A key and an integer longer than Python converts (``sys.get_int_max_str_digits``).
_HUGE_INTEGER = re.compile(
    r"(?:\"((?:[^\"\\\n]|\\.)*)\"|'([^'\n]*)'|([^\s:#{},\[\]\"']+))[ \t]*:[ \t]*[-+]?"
    r"(?:0[xob])?[0-9a-fA-F_]{4300,}"
)


def _huge_integer(text: str, file: str, exc: ValueError) -> InputError:
    """Bad input naming the key and line of an integer longer than Python converts;
    any other ValueError of a loader, as invalid YAML."""
    if "digits" not in str(exc):
        return InputError(f"invalid YAML: {exc}", file=file)
    m = _HUGE_INTEGER.search(text)
    line = text.count("\n", 0, m.start()) + 1 if m else None
    key = next((g for g in m.groups() if g is not None), None) if m else None
    return InputError(
        "integer longer than 4300 digits (Python's limit; quote it to pass it as text)",
        file=file,
        line=line,
        key=key,
    )


_SCALAR_CLASSES = frozenset({str, int, float, bool, type(None)})


def _check_keys(data: Any, file: str, text: str) -> None:
    """Every mapping key, YAML or JSON, must be a plain printable name: a line break,
    control character or lone surrogate in a key would reach warnings and reports."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and not key.isprintable():
                    where = ".".join(str(p) for p in [*path, key])
                    line = locate(text, 0, [*path, key]) if text else None
                    raise InputError(
                        "key has a line break, control character or unpaired surrogate",
                        file=file,
                        line=line,
                        key=where.encode("unicode_escape").decode("ascii"),
                    )
                # a scalar has no keys to check (judged by class first: one a key)
                if value.__class__ not in _SCALAR_CLASSES and isinstance(value, dict | list):
                    stack.append((value, [*path, key]))
        elif isinstance(node, list):
            stack.extend((value, [*path, i]) for i, value in enumerate(node))


def load_json(text: str, file: str) -> Any:
    """One JSON document (RFC 8259: raw control characters in strings are errors,
    duplicate keys too). ``NaN``/``Infinity`` parse here and are refused by
    :func:`check_plain`, which knows their key."""
    try:
        return json.loads(text, object_pairs_hook=_json_pairs)
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # an integer over Python's digit limit
            raise _huge_integer(text, file, exc) from None
        raise InputError(
            f"invalid JSON: {exc.msg}", file=file, line=exc.lineno, column=exc.colno
        ) from None
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
        if _SURROGATE.search(value):
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
            # A string or a whole number below the depth limit is plain: not pushed, so
            # 200,000 keys do not build 200,000 paths (the error found first is the same).
            shallow = len(path) < MAX_DEPTH
            for key, value in node.items():
                if not isinstance(key, str):
                    problem = "is not a string key; quote it"
                    path = [*path, _plain_text(key)]
                    break
                kind = value.__class__
                if shallow and (
                    (kind is str and not _SURROGATE.search(value)) or kind is int or kind is bool
                ):
                    continue
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


#: A separator line (what :func:`split_documents` splits at) after its line break, in a
#: text whose only line break is ``\n``: ``---``, then a blank or the line's end.
_SEPARATOR_LINE = re.compile(r"\n---(?=[ \t\n]|\Z)[^\n]*")
#: Line breaks ``str.splitlines`` honours besides ``\n``.
OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def only_newlines(text: str) -> bool:
    """Whether ``\n`` is the only line break of ``text`` that ``splitlines`` sees (then
    a search for ``\n---`` finds every line that starts with ``---``)."""
    return not any(b in text for b in OTHER_BREAKS)


def split_documents(text: str) -> Iterator[tuple[int, str]]:
    """Yield (first line number, text) per document of a stream, split at ``---`` lines.

    Splitting ourselves keeps each object's line number while still parsing with the
    C loader, which records no positions. One search for the separator lines; line by
    line only for a text with a line break other than ``\n``.
    """
    if not only_newlines(text):
        yield from _split_by_line(text)
        return
    padded = "\n" + text  # so the first line, too, follows a line break
    start = 1
    at = 0  # in ``text``
    number = 1  # the line number of ``at``
    first = ""
    for m in _SEPARATOR_LINE.finditer(padded):
        begin, end = m.start(), m.end() - 1  # the separator line, in ``text``
        number += text.count("\n", at, begin)
        yield start, first + text[at:begin]
        rest = text[begin + 3 : end].strip()
        first = "" if not rest or rest.startswith("#") else rest + "\n"
        start = number if first else number + 1
        at = end + 1 if end < len(text) else end  # past its line break
        number += 1
    yield start, first + text[at:]


def _split_by_line(text: str) -> Iterator[tuple[int, str]]:
    """:func:`split_documents` line by line, with every line break ``splitlines`` knows."""
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


def positions(text: str) -> list[Any] | None:
    """:func:`load_with_positions` for error messages: the plain stream's documents with
    their lines from one pass of the C parser's events (:func:`_plain_load_all`), the
    rest by the round-trip loader. A bad key among 200,000 values keys took 40 s to
    locate with the round-trip loader alone."""
    with _gc_paused():
        plain = _plain_load_all(text, lines=True)
    if plain is not None:
        return [doc for _, doc in plain]
    return load_with_positions(text)


def load_with_positions(text: str) -> list[Any] | None:
    """Documents of ``text`` whose mappings and sequences know their lines; None if invalid."""
    from renderer.k8s.libyaml import YAMLError, position_loader

    try:
        return list(position_loader().load_all(io.StringIO(text)))
    except (YAMLError, ValueError, TypeError, RecursionError):
        return None


def _line_of(node: Any) -> int | None:
    lc = getattr(node, "lc", None)
    return int(lc.line) + 1 if lc is not None else None


#: Line breaks Python's ``splitlines`` knows and YAML does not count.
_NOT_YAML_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e]")


def _document_lines(text: str, doc_index: int) -> tuple[int, int] | None:
    """The first and last line (0-based) of document ``doc_index``, from one pass of the
    C parser's events up to it; None when that cannot be told."""
    from ruamel.yaml.events import DocumentEndEvent

    from renderer.k8s.libyaml import C_LOADER, DocumentStartEvent, YAMLError, safe_loader

    if not C_LOADER or _NOT_YAML_BREAKS.search(text):
        return None
    try:
        parser = safe_loader(text)[1]
        seen = -1
        first = 0
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, DocumentStartEvent):
                seen += 1
                first = event.start_mark.line
            elif isinstance(event, DocumentEndEvent) and seen == doc_index:
                return first, event.end_mark.line
    except (YAMLError, ValueError, TypeError):
        return None
    return None


def locate(text: str, doc_index: int, path: Sequence[str | int]) -> int | None:
    """1-based line of key ``path`` in document ``doc_index`` of ``text``, or None.

    Meant for error paths only: it parses the document again with the round-trip
    loader, alone (a bad BKENode among 20,000 took a minute when the whole stream was
    parsed that way). The line of the deepest key of ``path`` that exists is returned.
    """
    span = _document_lines(text, doc_index)
    if span is None:
        return locate_in(positions(text), doc_index, path)
    first, last = span
    lines = text.splitlines(keepends=True)[first : last + 1]
    line = locate_in(positions("".join(lines)), 0, path)
    return None if line is None else line + first


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
