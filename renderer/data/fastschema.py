"""The one compiler of JSON Schemas into Python checks that may only say "certainly valid".

jsonschema walks a schema anew for every instance, and most of what this tool validates
is valid, so a schema is compiled, once, into nested closures that answer as jsonschema's
Draft 2020-12 validator would: True valid, False invalid. Where a schema uses something
not mirrored exactly, the check raises :class:`Unsupported` when an instance first
reaches that part; :func:`certainly_valid` reads that as "not sure" and the caller asks
jsonschema, which decides every other verdict and words every finding. Parts of a schema
are compiled when an instance first reaches them: Kubernetes' definitions are large and
an object reaches little of them.

Both schema sets use it: Kubernetes' strict schemas (:mod:`renderer.k8s.schema`, formats
not asserted, as kubernetes-validate builds its validator) and our own input schemas
(:mod:`renderer.data.schemas`, whose validators assert formats, so a format is "not
sure"). It lives in :mod:`renderer.data`, the lowest layer both may import.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Sized
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

Check = Callable[[Any], bool]

#: The only dialect mirrored; a document naming another is not sure.
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
#: Keywords that never produce an error (annotations, and ``$defs``, which only holds
#: schemas for references to reach).
_ANNOTATIONS = frozenset(
    {"$comment", "$defs", "title", "description", "default", "examples", "deprecated"}
    | {"readOnly", "writeOnly"}
)


class Unsupported(Exception):
    """A part of a schema not mirrored exactly, or a reference that cannot be followed."""


def certainly_valid(check: Check, instance: Any) -> bool:
    """True only where jsonschema would report no error; False where it would, or where
    the check is not sure (an instance nested too deep is not sure either)."""
    try:
        return check(instance)
    except (Unsupported, RecursionError):
        return False


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


#: Types whose check is one isinstance (exactly as :func:`_is_type` says).
_PLAIN_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str, "boolean": bool}


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


def _yes(_: Any) -> bool:
    return True


def _no(_: Any) -> bool:
    return False


def _not_sure(_: Any) -> bool:
    raise Unsupported("a part reached that is not mirrored")


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise Unsupported(what)
    return value


def _bound(value: Any, what: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise Unsupported(what)
    return value


def _pattern(value: Any) -> Check:
    """jsonschema's ``pattern``: ``re.search`` on strings; other types pass."""
    try:
        found = re.compile(value).search if isinstance(value, str) else None
    except re.error:
        found = None
    if found is None:
        raise Unsupported("pattern")
    return lambda x: not isinstance(x, str) or found(x) is not None


class _Document:
    """A schema document: its URI (the base of its references), its root, and the
    checks of the places references reach in it, by JSON pointer (and those being
    compiled)."""

    __slots__ = ("checks", "compiling", "root", "uri")

    def __init__(self, uri: str, root: Any) -> None:
        self.uri = uri
        self.root = root
        self.checks: dict[str, Check] = {}
        self.compiling: set[str] = set()


def _uri(document: Any, given: str) -> str:
    """A document's URI: its ``$id`` against the URI it was given, as referencing says."""
    own = document.get("$id") if isinstance(document, dict) else None
    return urldefrag(urljoin(given, own) if isinstance(own, str) else given)[0]


@lru_cache(maxsize=4096)  # a definitions file names the same few hundred places
def _resolve(base: str, ref: str) -> tuple[str, str]:
    """The document and the fragment a reference names, as referencing resolves it."""
    target, fragment = urldefrag(urljoin(base, ref))
    return target, fragment


def _pointer(root: Any, fragment: str) -> Any:
    """The node a JSON-pointer fragment names (referencing's reading: unquoted, then
    split); a place inside an embedded resource (a subschema with its own ``$id``,
    which moves the base) or a list item is not followed."""
    if not fragment:
        return root
    if not fragment.startswith("/"):
        raise Unsupported(f"anchor {fragment!r}")
    node = root
    for segment in unquote(fragment).split("/")[1:]:
        key = segment.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or key not in node:
            raise Unsupported(f"pointer {fragment!r}")
        node = node[key]
        if isinstance(node, dict) and "$id" in node:
            raise Unsupported(f"pointer {fragment!r} into an embedded resource")
    return node


def _nothing(_: str) -> Any:
    return None


class Compiler:
    """Compiles schemas that may refer to each other and to the documents ``find``
    gives (a URI without fragment -> a parsed schema document, or None), sharing what
    it compiled of those among all it compiles; ``formats``: ``format`` asserts (the
    validator has a format checker), so a reached ``format`` is not sure; otherwise it
    is an annotation."""

    def __init__(self, find: Callable[[str], Any] = _nothing, *, formats: bool) -> None:
        self._find = find
        self._formats = formats
        self._documents: dict[str, _Document | None] = {}

    def compile(self, document: Any, uri: str = "") -> Check:
        """The check of a whole schema document (named by its ``$id``, else ``uri``);
        a part not mirrored raises :class:`Unsupported` when an instance reaches it."""
        where = _uri(document, uri)
        place = self._documents.setdefault(where, _Document(where, document))
        if place is None or place.root is not document:  # another document of that name
            place = _Document(where, document)
        try:
            return self._node(document, place, top=True)
        except (Unsupported, RecursionError):
            return _not_sure

    def _document(self, uri: str) -> _Document | None:
        """The document ``find`` gives for ``uri``; None (references into it are not
        sure) when there is none or it names another dialect."""
        if uri not in self._documents:
            root = self._find(uri)
            if isinstance(root, dict) and root.get("$schema", DRAFT_2020_12) != DRAFT_2020_12:
                root = None
            self._documents[uri] = None if root is None else _Document(uri, root)
        return self._documents[uri]

    def _ref(self, ref: Any, where: _Document) -> Check:
        """A ``$ref``: the check of the place it names, compiled once per place; a
        reference back into a place being compiled (a definition reaching itself) looks
        its check up when an instance reaches it."""
        if not isinstance(ref, str):
            raise Unsupported("$ref")
        target, fragment = _resolve(where.uri, ref)
        place = where if target == where.uri else self._document(target)
        if place is None:
            return _not_sure  # no such document: not sure, when an instance reaches it
        checks = place.checks
        known = checks.get(fragment)
        if known is not None:
            return known
        if fragment in place.compiling:
            return lambda x: checks.get(fragment, _not_sure)(x)
        place.compiling.add(fragment)
        try:
            node = _pointer(place.root, fragment)
            compiled = self._node(node, place, top=node is place.root)
        except Unsupported:
            compiled = _not_sure
        finally:
            place.compiling.discard(fragment)
        checks[fragment] = compiled
        return compiled

    def _all(self, value: Any, where: _Document) -> list[Check]:
        if not isinstance(value, list) or not value:
            raise Unsupported("a list of schemas")
        return [self._node(sub, where, top=False) for sub in value]

    def _node(self, schema: Any, where: _Document, top: bool) -> Check:
        """A schema node's check; ``top``: a document's root, the only place ``$id`` and
        ``$schema`` may be (and ``$schema`` only this dialect)."""
        if schema is True:
            return _yes
        if schema is False:
            return _no
        if not isinstance(schema, dict):
            raise Unsupported("a schema is an object or a boolean")
        type_ok: Check | None = None
        props: dict[Any, Any] | None = None
        extra: Any = None
        closed = False
        required: tuple[str, ...] = ()
        items: Any = None
        enum: frozenset[str] | None = None
        also: list[Check] = []
        for key, value in schema.items():
            if key in _ANNOTATIONS or key.startswith("x-kubernetes-"):
                continue
            if key in ("$id", "$schema") and top:
                if key == "$schema" and value != DRAFT_2020_12:
                    raise Unsupported(f"$schema {value!r}")
            elif key == "type":
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
                if value is not True:
                    items = value
            elif key in ("enum", "const"):
                allowed = value if key == "enum" else [value]
                if not isinstance(allowed, list):
                    raise Unsupported(key)
                if all(isinstance(e, str) for e in allowed):  # most: one set lookup
                    enum = frozenset(allowed) if enum is None else enum & frozenset(allowed)
                else:
                    also.append(_one_of_values(allowed))
            elif key == "$ref":
                also.append(self._ref(value, where))
            elif key in ("allOf", "anyOf", "oneOf"):
                also.append(_of(key, self._all(value, where)))
            elif key == "not":
                also.append(_negated(self._node(value, where, top=False)))
            elif key == "if":
                also.append(
                    _conditional(
                        self._node(value, where, top=False),
                        self._node(schema.get("then", True), where, top=False),
                        self._node(schema.get("else", True), where, top=False),
                    )
                )
            elif key in ("then", "else"):
                continue  # read with "if"; alone they assert nothing
            elif key == "pattern":
                also.append(_pattern(value))
            elif key in _SIZED:
                cls, least = _SIZED[key]
                also.append(_size(cls, _count(value, key), least=least))
            elif key == "uniqueItems":
                if value is True:
                    also.append(_unique)
                elif value is not False:
                    raise Unsupported(key)
            elif key in ("minimum", "maximum"):
                also.append(_limit(_bound(value, key), low=key == "minimum"))
            elif key == "format":
                if self._formats:
                    also.append(_not_sure)
            else:
                raise Unsupported(f"keyword {key!r}")
        return _combine(
            type_ok,
            props or {},
            closed,
            extra,
            required,
            items,
            enum,
            also,
            lambda sub: self._node(sub, where, top=False),
        )


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Number)


#: Keywords bounding a size: the type they apply to, and whether the bound is the least.
_SIZED: dict[str, tuple[type[Sized], bool]] = {
    "minLength": (str, True),  # code points, as ``len`` counts them
    "maxLength": (str, False),
    "minItems": (list, True),
    "maxItems": (list, False),
    "minProperties": (dict, True),
    "maxProperties": (dict, False),
}


def _size(cls: type[Sized], bound: int, *, least: bool) -> Check:
    if least:
        return lambda x: not isinstance(x, cls) or len(x) >= bound
    return lambda x: not isinstance(x, cls) or len(x) <= bound


def _unique(x: Any) -> bool:
    """``uniqueItems`` of an array of strings (jsonschema's equality is ``==`` there)."""
    if not isinstance(x, list):
        return True
    if not all(isinstance(e, str) for e in x):
        raise Unsupported("uniqueItems of other values")
    return len(set(x)) == len(x)


def _equal_to(value: Any) -> Check:
    """jsonschema's ``equal`` against one scalar: strings only equal strings, booleans
    only booleans, numbers any number of the same value (1 equals 1.0)."""
    if isinstance(value, str):
        return lambda x: isinstance(x, str) and x == value
    if value is None or isinstance(value, bool):
        return lambda x: x is value
    if isinstance(value, int | float) and value == value:  # not NaN
        return lambda x: _is_number(x) and x == value
    raise Unsupported("enum or const of arrays or objects")


def _one_of_values(values: list[Any]) -> Check:
    """``enum`` (or ``const``) of values not all strings."""
    checks = [_equal_to(v) for v in values]
    return lambda x: any(c(x) for c in checks)


def _limit(bound: float, *, low: bool) -> Check:
    """``minimum`` and ``maximum``, failing exactly where jsonschema's ``<``/``>`` does."""
    if low:
        return lambda x: not _is_number(x) or not x < bound
    return lambda x: not _is_number(x) or not x > bound


def _of(key: str, checks: list[Check]) -> Check:
    """``allOf``, ``anyOf``, ``oneOf`` of exact checks (each True or False or raising)."""
    if key == "allOf":
        return lambda x: all(c(x) for c in checks)
    if key == "anyOf":
        return lambda x: any(c(x) for c in checks)
    return lambda x: sum(1 for c in checks if c(x)) == 1


def _negated(inner: Check) -> Check:
    return lambda x: not inner(x)


def _conditional(cond: Check, then: Check, otherwise: Check) -> Check:
    return lambda x: then(x) if cond(x) else otherwise(x)


def _combine(
    type_ok: Check | None,
    schemas: dict[Any, Any],
    closed: bool,
    extra_schema: Any,
    required: tuple[str, ...],
    items_schema: Any,
    enum: frozenset[str] | None,
    also: list[Check],
    compile_: Callable[[Any], Check],
) -> Check:
    """One node's check from its keywords': a leaf's own check when that is all there is
    (most nodes), else one closure testing type, enum, fields, required and items, then
    the rest (``$ref``, combinators, bounds).

    A property's, the additional properties' and the items' subschemas are compiled
    (``compile_``) when an instance first reaches them: jsonschema only visits the parts
    an instance reaches, so the rest never matters, and most are never reached.
    """
    if not schemas and not closed and extra_schema is None and not required:
        if items_schema is None and enum is None:
            if not also:
                return type_ok if type_ok is not None else _yes  # a leaf: most nodes
            if len(also) == 1 and type_ok is None:
                return also[0]  # a bare reference (a field naming a definition)
        if items_schema is None and not also and enum is not None and type_ok is None:
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
