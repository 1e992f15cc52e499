"""A compiled check that proves an object valid against a Kubernetes strict schema.

jsonschema's validator walks the schema anew for every object (a ``descend`` and a
validator copy per node, a registry lookup per ``$ref``), and importing it together with
kubernetes-validate costs a sizeable part of a short run. Most rendered objects are
valid, so :func:`compile_schema` turns a kind's schema, once, into nested Python
closures that answer one question: is this object certainly valid? Parts of the
schema are compiled when an object first reaches them.

The check is conservative. It answers True only where jsonschema's Draft 2020-12
validator (no format checker, as kubernetes-validate builds it) would report no error,
and False where it would, or where it is not sure (a type it does not mirror, an enum
of non-strings). A schema with any keyword outside the small set these schema files
use raises :class:`Unsupported`. On False or Unsupported the caller validates with
jsonschema, which then decides the verdict and words the findings: verdicts are
jsonschema's in every case, this only skips the work for objects that pass.

``_definitions.json`` (1.5-1.8 MB per Kubernetes version) is not parsed whole:
:class:`Definitions` indexes its top-level ``$defs`` entries in the text and parses
only those a schema reaches, and :func:`references` finds the definitions a schema
reaches in its text, so that equal schemas of several Kubernetes versions are known
equal (and compiled once) without parsing them.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import re
from collections.abc import Callable
from typing import Any, Protocol

Check = Callable[[Any], bool]

#: The only ``$ref`` forms followed: into the shared definitions file, by name.
_SCHEMA_REF = "/api/_definitions.json#/$defs/"
_DEFS_REF = "#/$defs/"
_DEFS_ID = "https://kubernetes.io/api/_definitions.json"
_ROOT_ID = "https://kubernetes.io/"
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
#: Layout of the definitions file (json.dumps with indent=2): one entry per line at
#: depth two. JSON strings cannot hold a raw newline, so these only match structure.
_HEAD = b'{\n  "$defs": {\n'
_ENTRY = b'\n    "'
#: A line at depth two, with the name when it starts a plain '"name": ' entry.
_ENTRY_LINE = re.compile(rb'\n    "(?:([^"\\\n]*)": )?')
_DEFS_END = b"\n  }"
#: In JSON text of any spacing: a keyword that names or moves what a ``$ref`` reaches,
#: with a string value. Within a string a quote is escaped, so this cannot match text
#: inside a description.
_KEYWORD = re.compile(
    rb'"\$(ref|id|anchor|dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor)"'
    rb'\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"'
)
#: A reference by name from a definition (either form :class:`_Compiler` follows).
_PLAIN_REF = re.compile(rb'"\$ref": "(?:/api/_definitions\.json)?#/\$defs/([A-Za-z0-9._-]+)"')
#: An escaped ASCII character, which could spell such a keyword unseen.
_ASCII_ESCAPE = re.compile(rb"\\u00[0-7]")


class Unsupported(Exception):
    """The schema or file uses something this check does not mirror exactly."""


class Definitions:
    """The ``$defs`` of a ``_definitions.json`` file, parsed one entry at a time.

    Raises :class:`Unsupported` when the text is not laid out as expected; the caller
    then reads the file whole the usual way.

    ``like``, another version's definitions (most entries of a release are those of the
    one before, byte for byte), makes indexing cheaper without changing it: where an
    entry of ``like`` with the line after it recurs at the place this file has reached,
    the bytes compared stand for the scan (:func:`_index_like`); anything else is
    scanned. An entry's text equal to ``like``'s is then the same ``bytes`` object
    (:meth:`text`) and parses to the same node.
    """

    def __init__(self, raw: bytes, like: Definitions | None = None) -> None:
        same: list[str] = []
        found = None
        if like is not None:  # the bytes taken from ``like`` are ASCII: the rest is asked
            place = _place(raw)
            if place is not None:
                first, end = place
                if raw[end:].isascii():
                    found = _index_like(raw, first, end, like, same)
        if found is None:
            if not raw.isascii():  # read as the library reads it, whatever the locale
                raise Unsupported("definitions are not ASCII")
            place = _place(raw)
            if place is None:
                raise Unsupported("definitions: unexpected layout")
            first, end = place
            entries = _index(raw, first, end)
        else:
            entries = found
        # the entries are kept as places in the text, not copied (most are never read)
        spans: dict[str, tuple[int, int]] = {}
        for name, _, start, stop in entries:
            spans[name] = (start, stop)  # a repeated name: the last wins, as in json
        self._raw = raw
        self._spans = spans
        #: Every entry in file order: (name, start of its line, start and end of its value).
        self._entries = entries
        try:
            head = json.loads(b"{" + raw[end + len(_DEFS_END) + 1 :])
        except ValueError:
            raise Unsupported("definitions: unexpected layout") from None
        if not isinstance(head, dict) or "$defs" in head:
            raise Unsupported("definitions: unexpected layout")
        self.head: dict[str, Any] = head
        #: The text of the file's other top-level members (what :attr:`head` holds).
        self.head_text = raw[end + len(_DEFS_END) + 1 :]
        self._nodes: dict[str, Any] = {}
        self._texts: dict[str, bytes] = {}
        #: Entries whose text is that of the same name in another file (no name repeated
        #: in either): the file read first that holds it.
        self._same: dict[str, Definitions] = {}
        self._where: dict[str, int] | None = None
        if like is not None and len(spans) == len(entries) and like._unique():
            self._same = {name: like._same.get(name, like) for name in same}

    def _unique(self) -> bool:
        return len(self._spans) == len(self._entries)

    def _order(self) -> dict[str, int]:
        """Where each name's entry is in :attr:`_entries` (the last, when repeated)."""
        if self._where is None:
            self._where = {e[0]: i for i, e in enumerate(self._entries)}
        return self._where

    def names(self) -> list[str]:
        return list(self._spans)

    def text(self, name: str) -> bytes | None:
        """An entry's text (its value), or None when there is no such entry."""
        found = self._texts.get(name)
        if found is None:
            same = self._same.get(name)
            if same is not None:
                found = same.text(name)
            else:
                span = self._spans.get(name)
                if span is None:
                    return None
                found = self._raw[span[0] : span[1]]
            if found is not None:
                self._texts[name] = found
        return found

    def node(self, name: str) -> Any:
        """The parsed entry; KeyError when there is none."""
        if name not in self._nodes:
            same = self._same.get(name)
            if same is not None:
                self._nodes[name] = same.node(name)
                return self._nodes[name]
            text = self.text(name)
            if text is None:
                raise KeyError(name)
            try:
                self._nodes[name] = json.loads(text)
            except ValueError:
                raise Unsupported(f"definitions: entry {name!r} does not parse") from None
        return self._nodes[name]

    def entry(self, name: str) -> tuple[str, tuple[str, ...]] | None:
        """The SHA-256 of an entry's text and the names it refers to (see
        :func:`references`); None when there is no such entry or a reference is of
        another form."""
        text = self.text(name)
        if text is None:
            return None
        refs = references(text, False)
        if refs is None:
            return None
        return hashlib.sha256(text).hexdigest(), refs


def _place(raw: bytes) -> tuple[int, int] | None:
    """Where ``$defs``' entries are: from the newline before the first to the end of the
    last; None when the file is not laid out so.

    $defs ends at the first line at depth one after its last entry (an entry's value
    lies deeper). A line at depth two past that end (in a later member) follows a "{"
    or "[", never the "," asked of every entry but the last.
    """
    if not raw.startswith(_HEAD):
        return None
    first = len(_HEAD) - 1  # the newline before the first entry
    last = raw.rfind(_ENTRY, first)
    end = raw.find(_DEFS_END, last + 1 if last >= 0 else first)
    if end < 0 or raw[end + len(_DEFS_END) : end + len(_DEFS_END) + 1] != b",":
        return None
    return first, end


#: One entry of the definitions: its name, where its line starts (the newline), and
#: where its value starts and ends (the "," after it, or the end of ``$defs``).
Entry = tuple[str, int, int, int]


def _index(raw: bytes, first: int, end: int) -> list[Entry]:
    """The entries of ``raw[first:end]``, by one pass of the regular expression over the
    text: every line at depth two is a match, its name None when it is not a plain
    '"name": ' entry."""
    entries: list[Entry] = []
    name: str | None = None  # the entry before, whose value ends where a line starts
    line = start = first
    for m in _ENTRY_LINE.finditer(raw, first, end):
        at = m.start()
        if name is not None:
            if raw[at - 1] != 44:  # ","
                raise Unsupported("definitions: unexpected layout")
            entries.append((name, line, start, at - 1))
        elif at != first:
            raise Unsupported("definitions: unexpected layout")
        found = m.group(1)
        if found is None:
            raise Unsupported("definitions: unexpected entry name")
        name, line, start = found.decode("ascii"), at, m.end()
    if name is not None:
        entries.append((name, line, start, end))
    return entries


def _index_like(
    raw: bytes, first: int, end: int, like: Definitions, same: list[str]
) -> list[Entry] | None:
    """:func:`_index` of ``raw``, exactly, from another file's entries; None when its
    layout calls for the whole scan (which then decides, and raises as it does).

    An entry's line and value up to the next line at depth two (its "," included) that
    are ``like``'s bytes hold no such line either, so where those bytes recur and a line
    at depth two follows, the scan would have found that entry and that next line: the
    comparison (a memcmp) replaces scanning them. A "," cannot end a line-start match, so
    no line at depth two straddles the compared bytes. Other entries are scanned one at
    a time, and asked to be ASCII (``like``'s bytes are); the names of those taken from
    ``like`` are added to ``same``.
    """
    if not raw.startswith(_ENTRY, first):
        return None
    base = like._entries
    view = memoryview(like._raw)
    order = like._order()
    count = len(base)
    entries: list[Entry] = []
    pos, j = first, 0
    while True:  # a line at depth two starts at pos
        if j < count:
            name, line, start, stop = base[j]
            if j + 1 < count:
                size = stop + 1 - line  # through the ","
                after = pos + size
                if (
                    after < end
                    and raw.startswith(view[line : stop + 1], pos)
                    and raw.startswith(_ENTRY, after)
                ):
                    entries.append((name, pos, pos + start - line, after - 1))
                    same.append(name)
                    pos, j = after, j + 1
                    continue
            elif pos + stop - line == end and raw.startswith(view[line:stop], pos):
                entries.append((name, pos, pos + start - line, end))
                same.append(name)
                return entries
        m = _ENTRY_LINE.match(raw, pos, end)
        if m is None or m.group(1) is None:
            return None
        nxt = _ENTRY_LINE.search(raw, m.end(), end)
        at = end if nxt is None else nxt.start()
        if not raw[pos:at].isascii() or (nxt is not None and raw[at - 1] != 44):  # ","
            return None
        name = m.group(1).decode("ascii")
        if nxt is None:
            entries.append((name, pos, m.end(), end))
            return entries
        entries.append((name, pos, m.end(), at - 1))
        following = nxt.group(1)  # the next entry's name, to look for in ``like``
        j = count if following is None else order.get(following.decode("ascii", "replace"), count)
        pos = at


def references(
    text: bytes, root: bool, start: int = 0, stop: int | None = None
) -> tuple[str, ...] | None:
    """The definition names the ``$ref``s in the JSON text ``text[start:stop]`` reach,
    read from the text without parsing it; ``root``: a kind's own file (whose ``$id``
    is allowed). None when a reference is not one :class:`_Compiler` follows by name, an
    ``$id`` or anchor could move one, or an escape could hide one: then the text's
    closure is not known from its bytes.
    """
    prefixes = (_SCHEMA_REF,) if root else (_SCHEMA_REF, _DEFS_REF)
    end = len(text) if stop is None else stop
    if text.find(b"\\u00", start, end) >= 0 and _ASCII_ESCAPE.search(text, start, end):
        return None
    if not root:  # most definitions: every '"$' starts a plain reference by name
        plain = _PLAIN_REF.findall(text, start, end)
        if len(plain) == text.count(b'"$', start, end):
            return tuple(n.decode("ascii") for n in plain)
    names: list[str] = []
    pos = text.find(b'"$', start, end)
    while pos >= 0:
        m = _KEYWORD.match(text, pos, end)
        if m is None:  # another member ("$schema", a property named "$ref") or text
            pos = text.find(b'"$', pos + 1, end)
            continue
        keyword = m.group(1)
        pos = text.find(b'"$', m.end(), end)
        if keyword == b"id" and root:
            continue
        if keyword != b"ref":
            return None
        ref = m.group(2).decode("ascii", "replace")
        name = next((ref[len(p) :] for p in prefixes if ref.startswith(p)), None)
        if name is None or not _NAME.match(name):
            return None
        names.append(name)
    return tuple(names)


def _is_type(name: str) -> Check:
    """jsonschema's Draft 2020-12 type checks, exactly (both ways)."""
    if name == "object":
        return lambda x: isinstance(x, dict)
    if name == "array":
        return lambda x: isinstance(x, list)
    if name == "string":
        return lambda x: isinstance(x, str)
    if name == "boolean":
        return lambda x: isinstance(x, bool)
    if name == "null":
        return lambda x: x is None
    if name == "integer":
        return lambda x: (
            not isinstance(x, bool)
            and (isinstance(x, int) or (isinstance(x, float) and x.is_integer()))
        )
    if name == "number":
        return lambda x: not isinstance(x, bool) and isinstance(x, numbers.Number)
    raise Unsupported(f"type {name!r}")


def _types(value: Any) -> Check:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise Unsupported("type")
    checks = [_is_type(n) for n in names]
    if len(checks) == 1:
        return checks[0]
    if len(names) == 2 and "null" in names:  # the nullable fields of strict schemas
        other = names[0] if names[1] == "null" else names[1]
        cls = _PLAIN_TYPES.get(other)
        if cls is not None:
            return lambda x: x is None or isinstance(x, cls)
        check = checks[names.index(other)]
        return lambda x: x is None or check(x)
    return lambda x: any(c(x) for c in checks)


#: Types whose check is one isinstance (exactly as :func:`_is_type` says).
_PLAIN_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str, "boolean": bool}


def _yes(_: Any) -> bool:
    return True


def _unsure(_: Any) -> bool:
    return False


#: Keywords that never produce an error here: annotations, and ``format``, which
#: asserts nothing without a format checker.
def _ignored(key: str) -> bool:
    return key in ("description", "format") or key.startswith("x-kubernetes-")


class CheckTable(Protocol):
    """Compiled definitions kept beyond one compile (a :class:`renderer.store.memo.Memo`)."""

    def get(self, key: str) -> Check | None: ...

    def __setitem__(self, key: str, value: Check) -> None: ...


class _Compiler:
    def __init__(
        self,
        defs: Definitions,
        shared: CheckTable | None = None,
        key: Callable[[str], str | None] | None = None,
    ) -> None:
        self.defs = defs
        self.checks: dict[str, Check] = {}
        self.shared = shared
        self.key = key

    def ref(self, ref: Any, root: bool) -> Check:
        """A reference from the kind's own file (``root``) or from the definitions."""
        if not isinstance(ref, str):
            raise Unsupported("$ref")
        prefixes = (_SCHEMA_REF,) if root else (_SCHEMA_REF, _DEFS_REF)
        name = next((ref[len(p) :] for p in prefixes if ref.startswith(p)), None)
        if name is None or not _NAME.match(name):  # nothing to unescape or resolve further
            raise Unsupported(f"$ref {ref!r}")
        checks = self.checks
        known = checks.get(name)
        if known is not None:  # compiled already (a definition that reaches itself)
            return known

        def check(x: Any) -> bool:
            compiled = checks.get(name)
            if compiled is None:
                compiled = checks[name] = self.definition(name, ref)
            return compiled(x)

        return check

    def definition(self, name: str, ref: str) -> Check:
        """A definition's check: one another compile made from the same text (the
        definition and all it reaches, as ``key`` names it), or compiled here."""
        key = self.key(name) if self.key is not None and self.shared is not None else None
        if key is not None and self.shared is not None:
            found = self.shared.get(key)
            if found is not None:
                return found
        try:
            node = self.defs.node(name)
        except KeyError:
            raise Unsupported(f"$ref {ref!r} resolves to nothing") from None
        compiled = self.node(node, root=False, top=False)
        if key is not None and self.shared is not None:
            self.shared[key] = compiled
        return compiled

    def node(self, schema: Any, root: bool, top: bool) -> Check:
        """A schema node of the kind's file (``root``) or of the definitions; ``top`` is
        the kind's schema itself, the only place ``$id`` and ``$schema`` may be."""
        if schema is True:
            return _yes
        if schema is False:
            return _unsure
        if not isinstance(schema, dict):
            raise Unsupported("schema is not an object")
        type_ok: Check | None = None
        props: dict[Any, Any] | None = None
        extra: Any = None
        closed = False
        required: tuple[Any, ...] = ()
        items: Any = None
        enum: frozenset[str] | None = None
        also: list[Check] = []
        for key, value in schema.items():
            if _ignored(key) or (top and key in ("$schema", "$id")):
                continue
            if key == "type":
                type_ok = _types(value)
            elif key == "properties":
                if not isinstance(value, dict):
                    raise Unsupported("properties")
                props = value
            elif key == "additionalProperties":
                if value is False:
                    closed = True
                elif value is not True:
                    extra = value
            elif key == "required":
                if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
                    raise Unsupported("required")
                required = tuple(value)
            elif key == "items":
                items = value
            elif key == "enum":
                if not isinstance(value, list) or not all(isinstance(e, str) for e in value):
                    raise Unsupported("enum")
                enum = frozenset(value)
            elif key == "$ref":
                also.append(self.ref(value, root))
            elif key == "oneOf":
                also.append(_one_of(value))
            else:
                raise Unsupported(f"keyword {key!r}")
        if top and not str(schema.get("$id", "")).startswith(_ROOT_ID):
            raise Unsupported("$id")
        return _combine(
            type_ok,
            props or {},
            closed,
            extra,
            required,
            items,
            enum,
            also,
            lambda sub: self.node(sub, root, False),
        )


def _combine(
    type_ok: Check | None,
    schemas: dict[Any, Any],
    closed: bool,
    extra_schema: Any,
    required: tuple[Any, ...],
    items_schema: Any,
    enum: frozenset[str] | None,
    also: list[Check],
    compile_: Callable[[Any], Check],
) -> Check:
    """One node's check from its keywords' checks: a leaf's own check when that is all
    there is (most nodes), else one closure testing type, enum, fields, required and
    items, then ``$ref``/``oneOf``.

    A property's, the additional properties' and the items' subschemas are compiled
    (``compile_``) when an object first reaches them: jsonschema only visits the parts
    an object reaches, so the rest never matters, and most are never reached.
    """
    if (
        not schemas
        and not closed
        and extra_schema is None
        and not required
        and items_schema is None
    ):
        if not also and enum is None and type_ok is not None:
            return type_ok  # a leaf: most nodes
        if len(also) == 1 and enum is None and type_ok is None:
            return also[0]  # a bare reference (a field naming a definition)
        if not also and enum is not None and type_ok is None:
            return lambda x: isinstance(x, str) and x in enum
    after: Check | None = also[0] if len(also) == 1 else None
    if len(also) > 1:
        after = lambda x: all(a(x) for a in also)  # noqa: E731

    fields: dict[Any, Check] = {}  # the properties compiled so far
    extra: Check | None = None
    items: Check | None = None

    def check(x: Any) -> bool:
        nonlocal extra, items
        if type_ok is not None and not type_ok(x):
            return False
        if enum is not None and not (isinstance(x, str) and x in enum):
            return False
        if isinstance(x, dict):
            for k, v in x.items():
                sub = fields.get(k)
                if sub is None:
                    if k in schemas:
                        sub = fields[k] = compile_(schemas[k])
                    elif closed:
                        return False
                    elif extra_schema is None:
                        continue
                    else:
                        if extra is None:
                            extra = compile_(extra_schema)
                        sub = extra
                if not sub(v):
                    return False
            for r in required:
                if r not in x:
                    return False
        elif items_schema is not None and isinstance(x, list):
            if items is None:
                items = compile_(items_schema)
            for e in x:
                if not items(e):
                    return False
        return after is None or after(x)

    return check


def _one_of(value: Any) -> Check:
    """``oneOf`` of plain type alternatives (int-or-string), where the type checks are
    exact both ways, so "exactly one" is decided here."""
    if not isinstance(value, list) or not value:
        raise Unsupported("oneOf")
    alternatives = []
    for sub in value:
        if not isinstance(sub, dict) or "type" not in sub:
            raise Unsupported("oneOf")
        if any(not _ignored(k) and k != "type" for k in sub):
            raise Unsupported("oneOf")
        alternatives.append(_types(sub["type"]))
    return lambda x: sum(1 for a in alternatives if a(x)) == 1


def compile_schema(
    schema: Any,
    defs: Definitions,
    shared: CheckTable | None = None,
    key: Callable[[str], str | None] | None = None,
) -> Check:
    """The check for a kind's schema, compiled as objects reach its parts.

    With ``shared`` and ``key``, a definition's check is taken from ``shared`` under
    ``key(name)`` (a digest of the definition and every definition it reaches: None,
    not shared) and kept there once compiled, so other kinds and Kubernetes versions
    with the same text reuse it.

    Raises :class:`Unsupported` for a top-level schema not mirrored exactly; the check
    itself raises it for such a part when an object reaches it (read it as "not sure").
    """
    if not isinstance(schema, dict):
        raise Unsupported("schema is not an object")
    if defs.head.get("$id") != _DEFS_ID:
        raise Unsupported("definitions $id")
    return _Compiler(defs, shared, key).node(schema, root=True, top=True)
