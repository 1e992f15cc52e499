"""Rendered text to documents in one pass over libyaml's events: the loader
:func:`renderer.k8s.parse.parse_stream` uses when a text is not in the cache.

Kept apart from :mod:`renderer.k8s.parse` so that reading objects back from the
persistent cache (a warm render) loads no YAML library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ruamel.yaml.composer import ComposerError
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
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

from renderer.errors import InputError
from renderer.k8s.libyaml import safe_loader
from renderer.k8s.yamlio import MAX_DEPTH, MAX_EXPANDED_NODES, check_expansion, mark_error


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
    loader, parser = safe_loader(text)
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


#: Scalar types JSON has: a document built of these and string keys needs no converting.
_JSON_SCALARS = (str, int, float, bool, type(None))


class Built:
    """The documents of a plain stream (:func:`_build_all`) and what building them
    proved: which are JSON-like already (string keys, JSON scalars), and the first
    whose values number more than :data:`MAX_EXPANDED_NODES` (with no aliases, what
    :func:`check_expansion` would count)."""

    __slots__ = ("docs", "json_like", "oversized")

    def __init__(self) -> None:
        self.docs: list[tuple[int, Any]] = []
        self.json_like: list[bool] = []
        self.oversized: int | None = None


def _build_all(text: str, file: str) -> Built | None:
    """The documents of a plain stream built straight from its events, or None.

    Plain means what rendered manifests are: no anchors, aliases, explicit tags, merge
    keys, duplicate or collection keys. Each distinct scalar is constructed once by
    ruamel's safe constructor (so values are exactly its values); collections become
    dicts and lists as it makes them. Anything else returns None and the stream is
    loaded through nodes (:func:`_compose_all`), which also orders errors as before.
    Syntax errors and nesting beyond :data:`MAX_DEPTH` raise here as they would there.
    """
    loader, parser = safe_loader(text)
    get_event = parser.get_event
    scalars: dict[tuple[Any, Any], Any] = {}
    typed = _typed_starts(loader)
    built = Built()
    docs = built.docs
    #: Open collections: [container, pending key or _MISSING].
    stack: list[list[Any]] = []
    #: Values in the current document, and whether every scalar and key so far is JSON's.
    count = 0
    plain = True
    while True:
        event = get_event()
        kind = type(event)
        value: Any
        if kind is ScalarEvent:
            # ``ctag``: the slot behind ruamel's ``tag`` property, read without a call
            if event.anchor is not None or event.ctag is not None:
                return None
            value = event.value
            implicit = event.implicit
            # a quoted or block scalar, or a plain one no implicit tag can match: a str
            if typed is None or (implicit[0] and (not value or value[0] in typed)):
                key = (value, implicit)
                value = scalars.get(key, _MISSING)
                if value is _MISSING:
                    value = _plain_scalar(loader, event, typed is not None)
                    if value is _MISSING:
                        return None
                    scalars[key] = value
            if plain and type(value) not in _JSON_SCALARS:
                plain = False
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.anchor is not None or event.ctag is not None:
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
        elif kind is DocumentEndEvent:
            built.json_like.append(plain)
            if count > MAX_EXPANDED_NODES and built.oversized is None:
                built.oversized = len(built.json_like) - 1
            count, plain = 0, True
            continue
        else:
            continue  # stream and document starts
        if stack:
            top = stack[-1]
            container = top[0]
            if type(container) is list:
                container.append(value)
                count += 1
            elif top[1] is _MISSING:
                if isinstance(value, (dict, list)) or value in container:
                    return None  # a collection or duplicate key: the node path decides
                if type(value) is not str:
                    plain = False  # a key JSON would write as a string
                top[1] = value
            else:
                container[top[1]] = value
                top[1] = _MISSING
                count += 1
        else:
            docs.append((_first_line(event), value))
            count += 1
        if kind is MappingStartEvent or kind is SequenceStartEvent:
            stack.append([value, _MISSING])
            _check_depth(stack, event, file)
    return built


_STR = "tag:yaml.org,2002:str"


def _typed_starts(loader: Any) -> frozenset[str] | None:
    """The first characters of plain scalars an implicit tag may match (ruamel's own
    table), when every other scalar is certainly the string it reads: resolved to the
    default ``str`` tag (no path resolvers, no resolver for any first character) and
    constructed as its text by the safe constructor. None: ask ruamel for each."""
    try:
        table = loader.versioned_resolver
        safe = (
            None not in table
            and not loader.yaml_path_resolvers
            and str(loader.DEFAULT_SCALAR_TAG) == _STR
            and loader.yaml_constructors.get(_STR) is SafeConstructor.construct_yaml_str
            and type(loader).construct_scalar is SafeConstructor.construct_scalar
        )
    except AttributeError:
        return None
    return frozenset(table) if safe else None


_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def resolve_plain(loader: Any, value: str) -> Any:
    """The tag ruamel's resolver gives a plain scalar, for a table :func:`_typed_starts`
    accepts (no path resolvers, none for every first character): its implicit
    resolvers for the first character, in order, then the default. The timestamp
    pattern is tried only on a value that begins as both of its alternatives do, four
    ASCII digits and a dash: compiling that pattern costs some 4 ms, and a render's
    plain scalars that begin with a digit are numbers, addresses and versions."""
    for tag, regexp in loader.versioned_resolver.get(value[0] if value else "", ()):
        if tag == _TIMESTAMP and not (
            value[4:5] == "-" and value[:4].isascii() and value[:4].isdigit()
        ):
            continue
        if regexp.match(value):
            return Tag(suffix=tag)
    return loader.DEFAULT_SCALAR_TAG


def _plain_scalar(loader: Any, event: Any, safe: bool = False) -> Any:
    """A scalar's value by ruamel's safe constructor; :data:`_MISSING` when it is not
    plain (a merge key, a collection, a value the constructor refuses: the node path
    raises that where loading would). ``safe``: the resolver's table is one
    :func:`_typed_starts` accepts, and the scalar is plain (:func:`resolve_plain`)."""
    if safe:
        tag = resolve_plain(loader, event.value)
    else:
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
    return [(start, doc) for start, doc, _ in load_marked(text, file)]


def load_marked(text: str, file: str) -> list[tuple[int, Any, bool]]:
    """:func:`load_documents`, each document marked True when building it proved it
    JSON-like already (string keys, JSON scalars): converting it would change nothing.
    A built document is not walked again for :func:`check_expansion` either: without
    aliases, its values are what that counts, and the builder counted them."""
    json_like: list[bool] = []
    try:
        built = _build_all(text, file)
        if built is not None:
            out = built.docs
            json_like = built.json_like
        else:
            loader, nodes, failed = _compose_all(text, file)
            limit = failed[0] if failed is not None else len(nodes)
            out = [(start, loader.construct_document(node)) for start, node in nodes[:limit]]
            if failed is not None:
                raise failed[1]
    except YAMLError as exc:
        raise mark_error(exc, file) from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise InputError(f"invalid YAML: {exc}", file=file) from None
    if built is None:
        for _, doc in out:
            check_expansion(doc, file)
    elif built.oversized is not None:
        # raises, worded as ever (the same limit the builder counted against)
        check_expansion(out[built.oversized][1], file, MAX_EXPANDED_NODES)
    return [(start, doc, i < len(json_like) and json_like[i]) for i, (start, doc) in enumerate(out)]
