"""Stage 4, parse YAML: rendered text to Kubernetes objects with their origin.

Each object remembers its file, document index and first line, so every later finding
(rule, schema, golden diff) can point at where it came from.
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import datetime
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from renderer.engine.sourcemap import SourceMap, template_line
from renderer.errors import InputError
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
    if isinstance(value, bytes):
        import base64  # a !!binary scalar: rare

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


def load_documents(text: str, file: str) -> list[tuple[int, Any]]:
    """All documents of a YAML stream with their first content line (empty documents
    as None), from one pass over the events (:func:`renderer.k8s.load.load_documents`:
    the YAML library loads only when a text is parsed, not served from the cache)."""
    from renderer.k8s import load

    return load.load_documents(text, file)


def split_documents(text: str) -> Iterator[tuple[int, str]]:
    """:func:`renderer.k8s.yamlio.split_documents`, whose module (the YAML reader's
    checks) loads only when a text is parsed, not served from the cache."""
    from renderer.k8s import yamlio

    return yamlio.split_documents(text)


def _json_documents(text: str, file: str) -> Iterator[tuple[int, Any]]:
    """The non-empty documents of a stream, each made JSON-like (:func:`to_json_like`)
    as it is reached, unless the loader proved it JSON-like already."""
    from renderer.k8s import load

    for start, doc, json_like in load.load_marked(text, file):
        if doc is not None:
            yield start, doc if json_like else to_json_like(doc, file, start)


#: Parsed texts of this process as JSON (digest -> text): each use gets its own objects.
#: Bounded: a long-lived caller keeps only recent texts (a version renders some 15 files).
_PARSED: Memo[str, str] = Memo("k8s.parse.texts", 1024)
#: Texts of :data:`_PARSED` parsed while the cache was reading only (a capability
#: verdict's renders): written to the cache when a later use, such as the render the
#: user asked for, is served from the memo, so that the next run finds it.
_UNSAVED: Memo[str, bool] = Memo("k8s.parse.unsaved", 1024)


def _valid_parse(value: Any) -> bool:
    """The shape of a whole text's parse: ``[first line, documents]`` per part of the
    text (a ``---`` chunk, or the whole stream), each document ``[line in the part,
    mapping]`` (:func:`_parse`)."""
    return isinstance(value, list) and all(
        isinstance(part, list)
        and len(part) == 2
        and type(part[0]) is int
        and isinstance(part[1], list)
        and all(
            isinstance(row, list)
            and len(row) == 2
            and type(row[0]) is int
            and isinstance(row[1], dict)
            for row in part[1]
        )
        for part in value
    )


def _read_back(file: str, parts: list[list[Any]]) -> list[K8sObject]:
    """The objects of a parse kept as :func:`_valid_parse` says."""
    return _objects(file, ((start + line - 1, doc) for start, rows in parts for line, doc in rows))


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


#: Whether parses of whole texts are kept (see :func:`keep_texts`).
_KEEP_TEXTS = True


def keep_texts(keep: bool) -> None:
    """False: this process writes no cache and ends after its work (the child judging
    a verdict aside), so a whole text's parse is not encoded to be kept; its documents
    still are, for the renders that share them."""
    global _KEEP_TEXTS
    _KEEP_TEXTS = keep


def _text_served() -> bool:
    """Whether a whole text's parse, keyed by its digest, could be read back here when
    texts are not kept (:func:`keep_texts`): from this process's memo (filled before a
    fork) or the persistent cache's parse entries. A process that keeps no text finds
    none on a cold cache, where hashing each whole text would buy nothing."""
    return len(_PARSED) > 0 or cache.may_hold("parse")


def _parse_stream(text: str, file: str) -> list[K8sObject]:
    """:func:`parse_stream` without a source map.

    An identical text is parsed once: the objects (JSON data, their index and line)
    are kept for this process and in the persistent cache, keyed by the text's digest.
    A process that keeps no text and could not read one back (:func:`_text_served`)
    does not take the digest.
    """
    noted = _NOTED.get()
    if not _KEEP_TEXTS and noted is None and not _text_served():
        return _parse(text, file)[0]
    key = cache.digest(text)
    known = _PARSED.get(key)
    if noted is not None:  # read back with each document's own JSON, to note it
        stored = known if known is not None else cache.get_encoded("parse", key)
        parts = _noted_parse(stored, noted) if stored is not None else None
    elif known is not None:
        parts = json.loads(known)
    else:
        parts = cache.get("parse", key, _valid_parse)
    if parts is None:
        objects, encoded = _parse(text, file)
        if encoded is None:  # not kept, or not JSON
            return objects
        _PARSED[key] = encoded
        if cache.writing():
            cache.put_encoded("parse", key, encoded)
        else:
            _UNSAVED[key] = True
        return objects
    if known is not None and _UNSAVED.get(key) and cache.writing():
        cache.put_encoded("parse", key, known)
        _UNSAVED[key] = False
    # read back from the persistent cache: not copied into the memo (a dump of the whole
    # render); a later use in this process reads the entry again, to the same objects
    return _read_back(file, parts)


#: Documents parsed by this process as JSON (digest of the document's text -> rows):
#: a version's files hold some 60 documents, mostly CRDs shared by every render.
_DOCUMENTS: Memo[str, str] = Memo("k8s.parse.documents", 1024)
#: The digest of each document's text this process split out (text -> digest): renders
#: of a version repeat most documents, and finding a text among those seen (Python's
#: own string hash, then a comparison) costs a fraction of a SHA-256 of it.
_CHUNK_KEYS: Memo[str, str] = Memo("k8s.parse.document_keys", 1024)
#: What makes splitting at ``---`` lines unsafe: directives, document end markers, and
#: content after a ``---`` (then the whole stream is loaded at once).
#: Searched in the text after a line break (``"\\n" + text``): a search for the line
#: break is fast, where ``^`` with MULTILINE tries every position of a long text.
#: A pattern compiled (and kept by ``re``) when a text is first parsed, not read back.
_UNSPLITTABLE = r"\n(?:%|\.\.\.|---[ \t]+[^ \t#\r\n])"


def _chunk_key(chunk: str) -> str:
    """The digest of a document's text (:data:`_CHUNK_KEYS`)."""
    key = _CHUNK_KEYS.get(chunk)
    if key is None:
        key = _CHUNK_KEYS[chunk] = cache.digest(chunk)
    return key


def _split(text: str, file: str) -> tuple[list[tuple[int, Any]], str | None] | None:
    """The non-empty documents of ``text`` (JSON-like, with their first line), each
    document's text parsed once per process: renders of a version for several contexts
    share most documents (CRDs) even when their files differ. With them, the whole
    text's parse as :func:`_valid_parse` says, joined from the documents' JSON (None
    when texts are not kept).

    None when the stream cannot be split at its ``---`` lines, or holds an error: then
    loading the whole stream gives the documents or the error exactly as before.
    """
    if re.search(_UNSPLITTABLE, "\n" + text):
        return None
    chunks = list(split_documents(text))
    keys = [_chunk_key(chunk) for _, chunk in chunks]
    noted = _NOTED.get()
    shared = _SHARED.get()
    try:
        missing = {key: i for i, key in enumerate(keys) if key not in _DOCUMENTS}
        fresh: dict[str, _Chunk] = {}
        if len(missing) > 1 and _PEER is not None:
            fresh = _parse_shared(_PEER, [chunks[i][1] for i in missing.values()], missing, file)
        elif missing:
            chunk_texts = [chunks[i][1] for i in missing.values()]
            fresh = dict(zip(missing, _parse_chunks(chunk_texts, list(missing), file), strict=True))
        out: list[tuple[int, Any]] = []
        parts: list[str] = []
        for (start, _), key in zip(chunks, keys, strict=True):
            built = fresh.get(key)
            if built is not None:
                # just built: used as they are, once (a document repeated is read back anew)
                found, encoded, texts = built
                fresh[key] = (None, encoded, texts)
            else:
                found, encoded, texts = None, _DOCUMENTS[key], None
            if found is None and shared is not None:
                found = shared.get(key)
            if found is None:
                if noted is not None and texts is None:
                    found, texts = _decoded(encoded)
                else:
                    found = json.loads(encoded)
            if shared is not None:
                shared.setdefault(key, found)
            if found:
                out.extend((start + line - 1, doc) for line, doc in found)
                parts.append(f"[{start},{encoded}]")
                if noted is not None and texts is not None:
                    for (_, doc), doc_text in zip(found, texts, strict=True):
                        noted[id(doc)] = (doc, doc_text)
    except (InputError, TypeError, ValueError, KeyError, IndexError):
        return None
    # the documents' own JSON, joined: the whole parse is not encoded again
    return out, ("[" + ",".join(parts) + "]" if _KEEP_TEXTS else None)


#: A chunk just parsed: its rows where usable as built (else None), its JSON (as
#: :data:`_DOCUMENTS` keeps it) and each document's own JSON in it, where known.
_Chunk = tuple[list[list[Any]] | None, str, list[str] | None]


def _joined(rows: list[list[Any]], texts: list[str]) -> str:
    """Rows (``[line, document]``) as JSON, from each document's JSON in ``texts``:
    what :func:`renderer.store.cache.encode` gives for the rows, one encoding."""
    return (
        "[" + ",".join([f"[{row[0]},{text}]" for row, text in zip(rows, texts, strict=True)]) + "]"
    )


_RAW_DECODE = json.JSONDecoder().raw_decode


def _scan(encoded: str, at: int, item: Callable[[int], tuple[Any, int]]) -> tuple[list[Any], int]:
    """``[[number,item],...]`` at ``at`` in ``encoded``: its ``[number, item]`` pairs
    (``item`` reads one at an index, giving it and the index past it) and the index
    past the list. Raises ValueError or IndexError on anything else; numbers are read
    leniently, so the caller compares what it read, written again, with ``encoded``."""
    if encoded[at] != "[":
        raise ValueError("not a list")
    out: list[Any] = []
    at += 1
    if encoded[at] == "]":
        return out, at + 1
    while True:
        if encoded[at] != "[":
            raise ValueError("not a pair")
        comma = encoded.index(",", at)
        found, end = item(comma + 1)
        out.append([int(encoded[at + 1 : comma]), found])
        if encoded[end] != "]":
            raise ValueError("not a pair")
        at = end + 2
        if encoded[end + 1] == "]":
            return out, at
        if encoded[end + 1] != ",":
            raise ValueError("not a list")


def _rows(encoded: str, at: int) -> tuple[tuple[list[list[Any]], list[str]], int]:
    """A chunk's rows at ``at`` (:func:`_scan`) with each document's JSON in them."""
    texts: list[str] = []

    def document(start: int) -> tuple[Any, int]:
        doc, end = _RAW_DECODE(encoded, start)
        texts.append(encoded[start:end])
        return doc, end

    rows, end = _scan(encoded, at, document)
    return (rows, texts), end


def _decoded(encoded: str) -> tuple[list[list[Any]], list[str]]:
    """The rows of a chunk's JSON (:func:`_joined`) and each document's own JSON in it;
    ValueError (or IndexError) unless the JSON is exactly what :func:`_joined` writes."""
    (rows, texts), end = _rows(encoded, 0)
    if end != len(encoded) or _joined(rows, texts) != encoded:
        raise ValueError("not the JSON of a chunk's documents")
    return rows, texts


def _decoded_parse(encoded: str) -> tuple[list[list[Any]], list[list[str]]]:
    """A whole text's parse (:func:`_valid_parse`) from its JSON, with each document's
    own JSON; ValueError (or IndexError) unless the JSON is exactly as :func:`_split`
    or :func:`_parse` join it."""
    chunks: list[list[str]] = []

    def chunk(start: int) -> tuple[Any, int]:
        (rows, texts), end = _rows(encoded, start)
        chunks.append(texts)
        return rows, end

    parts, end = _scan(encoded, 0, chunk)
    joined = [f"[{p[0]},{_joined(p[1], t)}]" for p, t in zip(parts, chunks, strict=True)]
    if end != len(encoded) or "[" + ",".join(joined) + "]" != encoded:
        raise ValueError("not the JSON of a parse")
    return parts, chunks


def _noted_parse(encoded: str, noted: dict[int, tuple[Any, str]]) -> list[list[Any]] | None:
    """A whole text's parse read back from its JSON (the memo's or the cache entry's),
    each document noted with its own JSON in it; None when it is not a parse's JSON
    (a damaged or foreign entry: a miss)."""
    try:
        parts, texts = _decoded_parse(encoded)
    except (ValueError, IndexError, RecursionError):
        return None
    if not _valid_parse(parts):
        return None
    for (_, rows), doc_texts in zip(parts, texts, strict=True):
        for (_, doc), doc_text in zip(rows, doc_texts, strict=True):
            noted[id(doc)] = (doc, doc_text)
    return parts


#: Inside :func:`sharing_objects`: each document's rows as first built or read back,
#: by the digest of its text.
_SHARED: contextvars.ContextVar[dict[str, list[list[Any]]] | None] = contextvars.ContextVar(
    "calico_render_parse_shared", default=None
)


@contextlib.contextmanager
def sharing_objects() -> Iterator[None]:
    """Inside the block, a document parsed again (the same text, in this render or
    another) gives the very data it gave first, not a copy read back from its JSON:
    the three renders of a capability verdict share most documents (the CRDs), and
    decoding them anew is most of their parse. The caller vouches that nothing
    changes an object parsed inside the block, there or after it (the verdict only
    reads its renders: the Typha contract and the release rules), since a change to
    one would be a change to all. Outside it each use gets its own objects."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


#: Inside :func:`noting_json`: each parsed document's JSON, by the id of its data (kept
#: with the data, so that the id is not another object's).
_NOTED: contextvars.ContextVar[dict[int, tuple[Any, str]] | None] = contextvars.ContextVar(
    "calico_render_parse_noted", default=None
)


@contextlib.contextmanager
def noting_json() -> Iterator[None]:
    """Inside the block, a parse notes each document it splits out with the JSON it
    encoded it to, or read it back from (:func:`noted_json`): a digest of an object's
    content then hashes that JSON instead of encoding the object again. The caller
    vouches that no object parsed inside the block is changed before the block ends;
    outside it nothing is noted, since a caller may change an object's data."""
    token = _NOTED.set({})
    try:
        yield
    finally:
        _NOTED.reset(token)


def noted_json(data: Any) -> str | None:
    """``data``'s JSON, when a parse inside :func:`noting_json` encoded ``data`` to it
    or built ``data`` from it; else None. It is what :func:`renderer.store.cache.encode`
    writes, unless a cache entry was altered and spaced otherwise: a JSON text of
    ``data`` all the same (its digest then only misses the encoding's)."""
    noted = _NOTED.get()
    entry = noted.get(id(data)) if noted is not None else None
    return entry[1] if entry is not None and entry[0] is data else None


class DocumentPeer(Protocol):
    """Another process parsing the same documents at the same time (a render and the
    child it forked to judge its version's verdict render the same CRDs): each hands
    over every document it parses, so that the two parse each shared document once
    between them, one from the first, the other from the last."""

    #: Parse from the last document to the first.
    reverse: bool

    def take(self) -> Iterable[tuple[str, str]]:
        """The (digest, JSON) documents the peer handed over since asked last; never
        waits."""
        ...

    def give(self, key: str, encoded: str) -> None:
        """Hand a document (its digest and :data:`_DOCUMENTS` JSON) over; never waits."""
        ...


#: The process parsing beside this one, if any (:func:`share_documents`).
_PEER: DocumentPeer | None = None


def share_documents(peer: DocumentPeer | None) -> None:
    """Parse documents together with ``peer`` from now on (None: alone again)."""
    global _PEER
    _PEER = peer


def _parse_shared(
    peer: DocumentPeer, texts: list[str], missing: dict[str, int], file: str
) -> dict[str, _Chunk]:
    """:func:`_parse_chunks` of the ``missing`` documents one by one, in the peer's
    opposite order, each skipped when the peer has handed it over meanwhile; what is
    parsed here is handed over in turn. A document handed over is what parsing its
    text here gives (the same code on the same text, in a process forked from this
    one), so it is kept as if parsed here."""
    fresh: dict[str, _Chunk] = {}
    order = list(zip(missing, texts, strict=True))
    if peer.reverse:
        order.reverse()
    for key, text in order:
        for known, encoded in peer.take():
            if known not in _DOCUMENTS:
                _DOCUMENTS[known] = encoded
        if key in _DOCUMENTS:
            continue
        [fresh[key]] = _parse_chunks([text], [key], file)
        peer.give(key, fresh[key][1])
    return fresh


def _parse_chunks(chunks: list[str], keys: list[str], file: str) -> list[_Chunk]:
    """Parse documents (texts between ``---`` lines) in one load: joined as a stream,
    each after its own ``---``; one whose text does not end a line goes last (joining
    must not change how a final scalar ends). Each chunk's documents, as (first line,
    JSON data) pairs, are encoded once (each document on its own, then joined) and kept
    in :data:`_DOCUMENTS`; returned with that JSON, and each document's, where they
    hold no object twice (else None: read them back from the JSON, which copies)."""
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
    built = [True] * len(order)
    from renderer.k8s import load

    for start, doc, json_like in load.load_marked("".join(parts), file):
        if doc is None:
            continue
        slot = bisect.bisect_right(firsts, start) - 1
        rel = start - firsts[slot] + 1
        rows[slot].append([rel, doc if json_like else to_json_like(doc, file, rel)])
        built[slot] = built[slot] and json_like
    out: list[_Chunk] = [(None, "", None)] * len(chunks)
    for slot, i in enumerate(order):
        texts = [cache.encode(doc) for _, doc in rows[slot]]
        encoded = _DOCUMENTS[keys[i]] = _joined(rows[slot], texts)
        # built straight from events, no value is shared (no aliases): usable as it is
        out[i] = (rows[slot] if built[slot] else None, encoded, texts)
    return out


def _parse(text: str, file: str) -> tuple[list[K8sObject], str | None]:
    """The objects of ``text``, and its parse as :func:`_valid_parse` says, as JSON
    (None when texts are not kept, or the documents are not JSON)."""
    split = _split(text, file)
    if split is not None:
        return _objects(file, split[0]), split[1]
    seen: list[list[Any]] = []
    objects = _objects(file, _noted(_json_documents(text, file), seen))
    if not _KEEP_TEXTS:
        return objects, None
    try:
        return objects, cache.encode([[1, seen]])
    except (TypeError, ValueError):
        return objects, None


def _noted(
    documents: Iterable[tuple[int, Any]], seen: list[list[Any]]
) -> Iterator[tuple[int, Any]]:
    """``documents``, each noted in ``seen`` as ``[line, document]`` as it is reached."""
    for start, doc in documents:
        seen.append([start, doc])
        yield start, doc


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
