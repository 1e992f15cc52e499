"""Stage 4, parse YAML: rendered text to Kubernetes objects with their origin.

Each object remembers its file, document index and first line, so every later finding
(rule, schema, golden diff) can point at where it came from.
"""

from __future__ import annotations

import base64
import bisect
import datetime
import io
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ruamel.yaml.composer import ComposerError
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.tag import Tag

from renderer.engine.sourcemap import SourceMap, template_line
from renderer.errors import InputError
from renderer.k8s.locate import Locator, parse_path
from renderer.k8s.yamlio import _YAML, MAX_DEPTH, _mark_error, check_expansion, split_documents
from renderer.store import cache
from renderer.store.memo import Memo

if TYPE_CHECKING:
    from renderer.engine.render import RenderedFile


@dataclass(frozen=True)
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
    if isinstance(value, bytes):
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


def _compose_all(
    text: str, file: str
) -> tuple[Any, list[tuple[int, Node]], tuple[int, ComposerError] | None]:
    """Every document of ``text`` as a node tree with its first content line, from one
    pass over libyaml's events (iterative, so any input is safe).

    Nesting deeper than :data:`MAX_DEPTH` is refused as the events arrive, before
    anything recursive sees it. Nodes are built as ruamel's C composer builds them (same
    tags, marks, alias sharing). A composition error (undefined or duplicate anchor) is
    returned with its document index, so the caller raises it where loading document
    by document would; a syntax error anywhere in the stream wins, as it did when the
    whole stream was scanned first.
    """
    loader, parser = _YAML.get_constructor_parser(io.StringIO(text))
    intern, resolve = _taggers(loader.resolve)
    get_event = parser.get_event
    docs: list[tuple[int, Node]] = []
    failed: tuple[int, ComposerError] | None = None
    anchors: dict[Any, Node] = {}
    #: Open collections, each with its pending mapping key ([None, None] after an error).
    stack: list[list[Any]] = []
    index = -1
    ends = (SequenceEndEvent, MappingEndEvent)
    while True:
        event = get_event()
        kind = type(event)
        node: Node
        if kind is ScalarEvent and failed is None and event.anchor is None:  # most events
            tag = event.tag
            value = event.value
            node = ScalarNode(
                resolve(ScalarNode, value, event.implicit)
                if tag is None or tag == "!"
                else intern(tag),
                value,
                event.start_mark,
                event.end_mark,
                style=event.style,
            )
        elif kind in ends:
            closed = stack.pop()[0]
            if closed is not None:
                closed.end_mark = event.end_mark
            continue
        elif kind is DocumentStartEvent:
            anchors = {}
            index += 1
            continue
        elif kind is StreamEndEvent:
            break
        elif kind not in _NODE_EVENTS:
            continue  # stream start and document ends
        elif failed is not None:
            _open_placeholder(stack, event, file)
            continue
        else:
            made = _anchored_node(event, anchors, intern, resolve)
            if isinstance(made, ComposerError):
                failed = (index, made)
                stack = [[None, None] for _ in stack]
                _open_placeholder(stack, event, file)
                continue
            node = made
        if stack:
            top = stack[-1]
            parent = top[0]
            if type(parent) is SequenceNode:
                parent.value.append(node)
            elif top[1] is None:
                top[1] = node
            else:
                parent.value.append((top[1], node))
                top[1] = None
        else:
            docs.append((_first_line(event), node))
        if kind in _COLLECTION_EVENTS:
            stack.append([node, None])
            _check_depth(stack, event, file)
    return loader, docs, failed


_COLLECTION_EVENTS = (SequenceStartEvent, MappingStartEvent)
_NODE_EVENTS = (ScalarEvent, AliasEvent, *_COLLECTION_EVENTS)
Intern = Callable[[Any], Tag]
Resolve = Callable[[type[Node], Any, Any], Tag]


def _taggers(resolver: Resolve) -> tuple[Intern, Resolve]:
    """``intern`` and ``resolve`` for one stream: one Tag object per tag, its text
    computed once (ruamel recomputes it per fresh Tag, a third of the load time on large
    manifests), and each implicit tag resolved once per (node class, value, implicit)."""
    tags: dict[Any, Tag] = {}
    resolved: dict[tuple[Any, ...], Tag] = {}

    def intern(tag: Any) -> Tag:
        key = (tag.handle, tag.suffix) if isinstance(tag, Tag) else tag
        found = tags.get(key)
        if found is None:
            found = tag if isinstance(tag, Tag) else Tag(suffix=tag)
            str(found)
            tags[key] = found
        return found

    def resolve(cls: type[Node], value: Any, implicit: Any) -> Tag:
        key = (cls, value, implicit)
        found = resolved.get(key)
        if found is None:
            found = resolved[key] = intern(resolver(cls, value, implicit))
        return found

    return intern, resolve


def _anchored_node(
    event: Any, anchors: dict[Any, Node], intern: Intern, resolve: Resolve
) -> Node | ComposerError:
    """The node of an alias, a collection start or an anchored scalar (registering its
    anchor), or the composition error it is: an undefined alias, a duplicate anchor."""
    kind = type(event)
    if kind is AliasEvent:
        if event.anchor not in anchors:
            return ComposerError(None, None, "found undefined alias", event.start_mark)
        return anchors[event.anchor]
    anchor = event.anchor
    if anchor is not None and anchor in anchors:
        return ComposerError(
            "found duplicate anchor; first occurrence",
            anchors[anchor].start_mark,
            "second occurrence",
            event.start_mark,
        )
    tag = event.tag
    node: Node
    if kind is ScalarEvent:
        if tag is None or tag == "!":
            tag = resolve(ScalarNode, event.value, event.implicit)
        node = ScalarNode(
            intern(tag), event.value, event.start_mark, event.end_mark, style=event.style
        )
    else:
        cls = SequenceNode if kind is SequenceStartEvent else MappingNode
        if tag is None or tag == "!":
            tag = resolve(cls, None, event.implicit)
        node = cls(intern(tag), [], event.start_mark, None, flow_style=event.flow_style)
    if anchor is not None:
        anchors[anchor] = node
    return node


def _open_placeholder(stack: list[list[Any]], event: Any, file: str) -> None:
    """After a composition error only nesting is tracked: a collection opens a placeholder."""
    if type(event) in _COLLECTION_EVENTS:
        stack.append([None, None])
        _check_depth(stack, event, file)


def _first_line(event: Any) -> int:
    """The line an event starts on (a document's first content line for its root)."""
    mark = event.start_mark
    return mark.line + 1 if mark is not None else 0


def _check_depth(stack: list[list[Any]], event: Any, file: str) -> None:
    if len(stack) > MAX_DEPTH:
        raise InputError(
            f"YAML nests deeper than {MAX_DEPTH} levels", file=file, line=_first_line(event) or None
        )


_MISSING = object()
_MERGE = "tag:yaml.org,2002:merge"


def _build_all(text: str, file: str) -> list[tuple[int, Any]] | None:
    """The documents of a plain stream built straight from its events, or None.

    Plain means what rendered manifests are: no anchors, aliases, explicit tags, merge
    keys, duplicate or collection keys. Each distinct scalar is constructed once by
    ruamel's safe constructor (so values are exactly its values); collections become
    dicts and lists as it makes them. Anything else returns None and the stream is
    loaded through nodes (:func:`_compose_all`), which also orders errors as before.
    Syntax errors and nesting beyond :data:`MAX_DEPTH` raise here as they would there.
    """
    loader, parser = _YAML.get_constructor_parser(io.StringIO(text))
    get_event = parser.get_event
    scalars: dict[tuple[Any, Any], Any] = {}
    docs: list[tuple[int, Any]] = []
    #: Open collections: [container, pending key or _MISSING].
    stack: list[list[Any]] = []
    while True:
        event = get_event()
        kind = type(event)
        value: Any
        if kind is ScalarEvent:
            if event.anchor is not None or event.tag is not None:
                return None
            key = (event.value, event.implicit)
            value = scalars.get(key, _MISSING)
            if value is _MISSING:
                value = _plain_scalar(loader, event)
                if value is _MISSING:
                    return None
                scalars[key] = value
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                return None
            value = {} if kind is MappingStartEvent else []
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            if stack.pop()[1] is not _MISSING:  # a key without a value: never from libyaml
                return None
            continue
        elif kind is StreamEndEvent:
            break
        elif kind is AliasEvent:
            return None
        else:
            continue  # stream and document starts and ends
        if stack:
            top = stack[-1]
            container = top[0]
            if type(container) is list:
                container.append(value)
            elif top[1] is _MISSING:
                if isinstance(value, (dict, list)) or value in container:
                    return None  # a collection or duplicate key: the node path decides
                top[1] = value
            else:
                container[top[1]] = value
                top[1] = _MISSING
        else:
            docs.append((_first_line(event), value))
        if kind is MappingStartEvent or kind is SequenceStartEvent:
            stack.append([value, _MISSING])
            _check_depth(stack, event, file)
    return docs


def _plain_scalar(loader: Any, event: Any) -> Any:
    """A scalar's value by ruamel's safe constructor; :data:`_MISSING` when it is not
    plain (a merge key, a collection, a value the constructor refuses: the node path
    raises that where loading would)."""
    tag = loader.resolve(ScalarNode, event.value, event.implicit)
    if str(tag) == _MERGE:
        return _MISSING
    node = ScalarNode(tag, event.value, event.start_mark, event.end_mark)
    try:
        value = loader.construct_document(node)
    except Exception:
        return _MISSING
    if isinstance(value, (dict, list, set)):
        return _MISSING
    return value


def load_documents(text: str, file: str) -> list[tuple[int, Any]]:
    """All documents of a YAML stream with their first content line (empty documents
    as None), from one pass over the events: built directly when the stream is plain,
    else composed into nodes for ruamel's safe constructor."""
    try:
        built = _build_all(text, file)
        if built is not None:
            out = built
        else:
            loader, nodes, failed = _compose_all(text, file)
            limit = failed[0] if failed is not None else len(nodes)
            out = [(start, loader.construct_document(node)) for start, node in nodes[:limit]]
            if failed is not None:
                raise failed[1]
    except YAMLError as exc:
        raise _mark_error(exc, file) from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise InputError(f"invalid YAML: {exc}", file=file) from None
    for _, doc in out:
        check_expansion(doc, file)
    return out


#: Parsed texts of this process as JSON (digest -> text): each use gets its own objects.
#: Bounded: a long-lived caller keeps only recent texts (a version renders some 15 files).
_PARSED: Memo[str, str] = Memo("k8s.parse.texts", 1024)


def _valid_parse(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(row, list)
        and len(row) == 3
        and all(type(x) is int for x in row[:2])
        and isinstance(row[2], dict)
        for row in value
    )


def parse_stream(text: str, file: str, *, lines: SourceMap | None = None) -> list[K8sObject]:
    """Objects of one rendered file; empty documents are dropped, non-mappings refused.
    ``lines``: the file's source map (template line per rendered line); objects then
    carry their template line and errors name it, with the rendered line as context."""
    if lines is None:
        return _parse_stream(text, file)
    try:
        found = _parse_stream(text, file)
    except InputError as exc:
        raise to_template_error(exc, lines) from None
    locator = Locator(text, lines)
    return [
        replace(o, source_line=template_line(lines, o.line) or 0, locator=locator) for o in found
    ]


def _parse_stream(text: str, file: str) -> list[K8sObject]:
    """:func:`parse_stream` without a source map.

    An identical text is parsed once: the objects (JSON data, their index and line)
    are kept for this process and in the persistent cache, keyed by the text's digest.
    """
    key = cache.digest(text)
    known = _PARSED.get(key)
    rows = json.loads(known) if known is not None else cache.get("parse", key, _valid_parse)
    if rows is None:
        objects = _parse(text, file)
        rows = [[o.index, o.line, o.data] for o in objects]
        try:
            _PARSED[key] = json.dumps(rows)
        except (TypeError, ValueError):
            return objects
        cache.put("parse", key, rows)
        return objects
    if known is None:
        _PARSED[key] = json.dumps(rows)
    return [K8sObject(file, index, line, data) for index, line, data in rows]


#: Documents parsed by this process as JSON (digest of the document's text -> rows):
#: a version's files hold some 60 documents, mostly CRDs shared by every render.
_DOCUMENTS: Memo[str, str] = Memo("k8s.parse.documents", 1024)
#: What makes splitting at ``---`` lines unsafe: directives, document end markers, and
#: content after a ``---`` (then the whole stream is loaded at once).
_UNSPLITTABLE = re.compile(r"^(?:%|\.\.\.|---[ \t]+[^ \t#\r\n])", re.MULTILINE)


def _split(text: str, file: str) -> list[tuple[int, Any]] | None:
    """The non-empty documents of ``text`` (JSON-like, with their first line), each
    document's text parsed once per process: renders of a version for several contexts
    share most documents (CRDs) even when their files differ.

    None when the stream cannot be split at its ``---`` lines, or holds an error: then
    loading the whole stream gives the documents or the error exactly as before.
    """
    if _UNSPLITTABLE.search(text):
        return None
    chunks = list(split_documents(text))
    keys = [cache.digest(chunk) for _, chunk in chunks]
    try:
        missing = [i for i, key in enumerate(keys) if key not in _DOCUMENTS]
        if missing:
            _parse_chunks([chunks[i][1] for i in missing], [keys[i] for i in missing], file)
        out: list[tuple[int, Any]] = []
        for (start, _), key in zip(chunks, keys, strict=True):
            out.extend((start + line - 1, doc) for line, doc in json.loads(_DOCUMENTS[key]))
    except (InputError, TypeError, ValueError, KeyError):
        return None
    return out


def _parse_chunks(chunks: list[str], keys: list[str], file: str) -> None:
    """Parse documents (texts between ``---`` lines) in one load: joined as a stream,
    each after its own ``---``; one whose text does not end a line goes last (joining
    must not change how a final scalar ends)."""
    order = sorted(range(len(chunks)), key=lambda i: not chunks[i].endswith("\n"))
    if sum(not c.endswith("\n") for c in chunks) > 1:
        raise ValueError("more than one unterminated document")
    parts: list[str] = []
    firsts: list[int] = []  # the line of the joined stream where each chunk begins
    line = 1
    for i in order:
        parts.append("---\n")
        firsts.append(line + 1)
        parts.append(chunks[i])
        line += 1 + chunks[i].count("\n")
    rows: list[list[list[Any]]] = [[] for _ in order]
    for start, doc in load_documents("".join(parts), file):
        if doc is None:
            continue
        slot = bisect.bisect_right(firsts, start) - 1
        rel = start - firsts[slot] + 1
        rows[slot].append([rel, to_json_like(doc, file, rel)])
    for slot, i in enumerate(order):
        _DOCUMENTS[keys[i]] = json.dumps(rows[slot])


def _parse(text: str, file: str) -> list[K8sObject]:
    objects: list[K8sObject] = []
    index = 0
    split = _split(text, file)
    documents = (
        iter(split)
        if split is not None
        else (
            (start, to_json_like(doc, file, start))
            for start, doc in load_documents(text, file)
            if doc is not None
        )
    )
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
