"""CustomResourceDefinitions as schemas: what the API server checks a custom resource
against, read from the CRDs a caller gives (a render's own, a whole tree's, files).

Each served version of a CRD becomes a JSON Schema (Draft 2020-12) of its kind, which
is compiled (:mod:`renderer.data.fastschema`) and validated with jsonschema as
:mod:`renderer.k8s.schema` validates Kubernetes' own kinds, its ObjectMeta from that
Kubernetes version's definitions. :mod:`renderer.k8s.schema` loads this module only
when some object is of a kind a CRD given defines: Calico's renders never do.
What is mirrored of the API server (``apiextensions-apiserver``: the structural schema,
pruning, defaulting, the custom resource strategy), in the order it runs on a create:

- **Unknown fields are errors** wherever the API server would prune them (as
  ``kubectl --validate=strict`` and ``fieldValidation=Strict`` report them): every node
  of the schema is closed unless it says ``x-kubernetes-preserve-unknown-fields: true``
  or has ``additionalProperties``; only that node is open, the schemas it specifies
  below are closed again. A CRD with ``spec.preserveUnknownFields`` (the default of
  ``apiextensions.k8s.io/v1beta1``) prunes nothing. The value validations (``allOf``,
  ``anyOf``, ``oneOf``, ``not``) close nothing.
- **Nulls**: a null where the schema is not ``nullable`` and has no default is dropped
  from its map before validation (``nullable: true`` keeps and allows it).
- **Defaults** fill a missing field (or a non-nullable null) before validation, so a
  required field with a default is never missing.
- **Status**: with a ``status`` subresource a create drops ``.status`` unread.
- ``x-kubernetes-int-or-string``: an integer or a string.
- ``x-kubernetes-embedded-resource`` (and the resource's root): ``apiVersion`` and
  ``kind`` are required strings, ``metadata`` is Kubernetes' ObjectMeta.
- ``x-kubernetes-list-type`` ``set`` and ``map`` (with ``x-kubernetes-list-map-keys``):
  no duplicate item, no two items with the same keys (:func:`list_findings`).
- OpenAPI v3's boolean ``exclusiveMinimum``/``exclusiveMaximum`` as Draft 2020-12
  spells them.

Not mirrored, so never reported: ``format`` (the API server checks a dozen string
formats with Go's parsers), ``x-kubernetes-validations`` (CEL rules), the scale
subresource's paths and ObjectMeta's own rules (name syntax). The kind's CRD must serve
the object's version.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a valid object never needs it
    import jsonschema

from renderer.data.fastschema import Check, Compiler, certainly_valid
from renderer.finding import Finding
from renderer.k8s import schema as kubeschema
from renderer.k8s.objects import key_path
from renderer.k8s.parse import K8sObject
from renderer.store.memo import Memo

KIND = kubeschema.CRD_KIND
API_VERSIONS = kubeschema.CRD_API_VERSIONS
#: Kubernetes' ObjectMeta in kubernetes-validate's definitions, as a CR schema's
#: ``$id`` (``https://kubernetes.io/crd/...``) resolves it.
OBJECT_META = "/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: OpenAPI v3 keywords that decide nothing here, or that the translation spells anew.
_SKIPPED = frozenset(
    {"description", "title", "example", "externalDocs", "default", "nullable", "format", "id"}
    | {"$schema", "definitions", "exclusiveMinimum", "exclusiveMaximum"}
)
#: Keywords whose meaning is JSON Schema's, copied as they are.
_COPIED = frozenset(
    {"type", "enum", "required", "pattern", "multipleOf", "uniqueItems", "minimum", "maximum"}
    | {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)


class BadSchema(Exception):
    """A CRD's schema that cannot be read as a structural schema (the API server would
    refuse the CRD); its custom resources are errors saying so."""


@dataclass(frozen=True, slots=True)
class ServedVersion:
    """One version of one CRD: what validates a custom resource of its kind there.

    ``digest`` is the CRD's own content (its JSON), so whatever the CRD changes moves
    every cached finding it decided; ``where`` is the CRD's ``file:line`` ("" when it
    was given as data)."""

    group: str
    kind: str
    version: str
    served: bool
    digest: str
    name: str
    where: str
    #: The version's ``openAPIV3Schema`` (None: the CRD gives none, anything goes).
    schema: Any
    #: ``spec.preserveUnknownFields``: nothing is pruned, so no field is unknown.
    preserve: bool
    #: A ``status`` subresource: a create drops ``.status`` before validation.
    status: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _digest(data: Any) -> str:
    text = json.dumps(data, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def is_crd(data: Mapping[str, Any]) -> bool:
    return data.get("kind") == KIND and data.get("apiVersion") in API_VERSIONS


def served_versions(
    data: Mapping[str, Any], digest: str = "", where: str = ""
) -> list[ServedVersion]:
    """The versions one CRD object defines (none when it does not name a group, a kind
    and a version: the Kubernetes schema check reports such a CRD)."""
    if not is_crd(data):
        return []
    spec = _dict(data.get("spec"))
    group, kind = _text(spec.get("group")), _text(_dict(spec.get("names")).get("kind"))
    if not group or not kind:
        return []
    legacy = data.get("apiVersion") == API_VERSIONS[1]
    preserve = spec.get("preserveUnknownFields")
    preserve = legacy if not isinstance(preserve, bool) else preserve
    # v1beta1: one schema and subresources for every version, unless a version has its own
    top_schema = _dict(spec.get("validation")).get("openAPIV3Schema") if legacy else None
    top_status = "status" in _dict(spec.get("subresources")) if legacy else False
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        only = _text(spec.get("version")) if legacy else ""
        versions = [{"name": only, "served": True}] if only else []
    name = _text(_dict(data.get("metadata")).get("name"))
    digest = digest or _digest(data)
    out = []
    for v in versions:
        v = _dict(v)
        version = _text(v.get("name"))
        if not version:
            continue
        own = _dict(v.get("schema")).get("openAPIV3Schema")
        subresources = v.get("subresources")
        status = "status" in subresources if isinstance(subresources, dict) else top_status
        out.append(
            ServedVersion(
                group,
                kind,
                version,
                v.get("served") is True,
                digest,
                name,
                where,
                own if own is not None else top_schema,
                preserve,
                status,
            )
        )
    return out


class CrdSet:
    """The CRDs a validator knows, by group and kind, in the order given: a kind's
    custom resources are checked against each CRD version serving theirs, and valid
    when one of them finds nothing.

    ``then`` layers sets: a render's own CRDs decide their kinds alone (they are what
    the cluster gets with it); another set only fills the kinds they do not define.
    """

    __slots__ = ("_by_kind", "_digests")

    def __init__(self, versions: Iterable[ServedVersion] = ()) -> None:
        by_kind: dict[tuple[str, str], list[ServedVersion]] = {}
        seen: set[tuple[str, str]] = set()
        for v in versions:
            if (v.digest, v.version) in seen:  # one CRD given twice
                continue
            seen.add((v.digest, v.version))
            by_kind.setdefault((v.group, v.kind), []).append(v)
        self._by_kind = {k: tuple(vs) for k, vs in by_kind.items()}
        self._digests: dict[tuple[str, str], str] = {}

    def __len__(self) -> int:
        return len({v.digest for vs in self._by_kind.values() for v in vs})

    def __bool__(self) -> bool:
        return bool(self._by_kind)

    def __iter__(self) -> Iterator[ServedVersion]:
        for vs in self._by_kind.values():
            yield from vs

    def kinds(self) -> frozenset[tuple[str, str]]:
        """(group, kind) of every kind some CRD here defines."""
        return frozenset(self._by_kind)

    def defines(self, group: str, kind: str) -> bool:
        return (group, kind) in self._by_kind

    def versions(self, group: str, kind: str) -> tuple[ServedVersion, ...]:
        return self._by_kind.get((group, kind), ())

    def serving(self, group: str, version: str, kind: str) -> tuple[ServedVersion, ...]:
        """The served versions named ``version`` of the kind's CRDs, in order."""
        return tuple(v for v in self.versions(group, kind) if v.version == version and v.served)

    def digest(self, group: str, kind: str) -> str:
        """What decides a custom resource of the kind: its CRDs' contents in order
        ("" when no CRD here defines it)."""
        key = (group, kind)
        found = self._digests.get(key)
        if found is None:
            entries = self._by_kind.get(key, ())
            found = _digest([v.digest for v in entries]) if entries else ""
            self._digests[key] = found
        return found

    def then(self, other: CrdSet) -> CrdSet:
        """This set, and ``other``'s CRDs of the kinds this set does not define."""
        if not other:
            return self
        if not self:
            return other
        mine = self.kinds()
        return CrdSet([*self, *(v for v in other if (v.group, v.kind) not in mine)])

    def only(self, kinds: Iterable[tuple[str, str]]) -> CrdSet:
        """The CRDs of ``kinds``."""
        wanted = set(kinds)
        return CrdSet(v for v in self if (v.group, v.kind) in wanted)


def crds_of(
    objects: Iterable[K8sObject | Mapping[str, Any]], digests: Iterable[str] | None = None
) -> CrdSet:
    """The CRDs among ``objects`` (rendered objects, or their data), in their order;
    ``digests`` are the objects' own keys when the caller has them."""
    keys = iter(digests) if digests is not None else None
    out: list[ServedVersion] = []
    for obj in objects:
        digest = next(keys) if keys is not None else ""
        data = obj.data if isinstance(obj, K8sObject) else obj
        if not is_crd(data):
            continue
        where = obj.where if isinstance(obj, K8sObject) else ""
        out += served_versions(data, digest, where)
    return CrdSet(out)


def may_define(text: str, kinds: Iterable[tuple[str, str]] | None = None) -> bool:
    """Whether a text may hold a CRD (of one of ``kinds``): a search of the words, so a
    file need only be rendered when it does."""
    if KIND not in text:
        return False
    return kinds is None or any(g in text and k in text for g, k in kinds)


# --- the schema a version validates with ------------------------------------------------


def json_schema(version: ServedVersion) -> dict[str, Any]:
    """The Draft 2020-12 schema of a custom resource of ``version``: its
    ``openAPIV3Schema`` read as the API server reads it (see the module), its root an
    embedded resource. :class:`BadSchema` when the schema cannot be read so."""
    closing = not version.preserve
    try:
        if version.schema is None:
            root: dict[str, Any] = {"type": "object"}
            closing = False
        else:
            root = _node(version.schema, closing=closing)
        root = _embedded(root, version.schema if isinstance(version.schema, dict) else {})
    except RecursionError:
        raise BadSchema("nested too deep") from None
    if version.status:  # a create drops it unread (see admitted)
        root.setdefault("properties", {}).pop("status", None)
    return {
        "$schema": DRAFT,
        "$id": f"https://kubernetes.io/crd/{version.digest}/{version.version}",
        **root,
    }


def _node(schema: Any, *, closing: bool) -> dict[str, Any]:
    """One node of a structural schema as JSON Schema; ``closing``: unknown fields of
    an object here are errors unless the node keeps them (pruning's reach)."""
    if not isinstance(schema, dict):
        raise BadSchema(f"a schema is an object, not {type(schema).__name__}")
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SKIPPED or key.startswith("x-kubernetes-"):
            continue
        if key in _COPIED:
            checked = _keyword(key, value)
            if checked is not None:
                out[key] = checked
        elif key == "properties":
            out[key] = {k: _node(v, closing=closing) for k, v in _dict_of(value, key).items()}
        elif key == "additionalProperties":
            out[key] = value if isinstance(value, bool) else _node(value, closing=closing)
        elif key == "items":
            if isinstance(value, list):  # a tuple of schemas (not structural)
                out["prefixItems"] = [_node(v, closing=closing) for v in value]
            else:
                out[key] = _node(value, closing=closing)
        elif key in ("allOf", "anyOf", "oneOf"):
            if not isinstance(value, list):
                raise BadSchema(f"{key} is a list of schemas")
            out[key] = [_node(v, closing=False) for v in value]
        elif key == "not":
            out[key] = _node(value, closing=False)
        else:
            raise BadSchema(f"{key!r} is not a keyword of a structural schema")
    _bounds(schema, out)
    if schema.get("x-kubernetes-int-or-string") is True:
        out["type"] = ["integer", "string"]
    if schema.get("x-kubernetes-embedded-resource") is True:
        out = _embedded(out, schema)
    if schema.get("nullable") is True:
        _nullable(out)
    keeps = schema.get("x-kubernetes-preserve-unknown-fields") is True
    if closing and not keeps and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


#: The types a structural schema may name.
_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean"})
_COUNTS = frozenset(
    {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)


def _keyword(key: str, value: Any) -> Any:
    """A copied keyword's value as JSON Schema needs it (its type in a CRD's
    JSONSchemaProps); a pattern Python cannot compile is left out (None): never a
    finding the API server would not make."""
    if key == "type":
        ok = value in _TYPES
    elif key in ("enum", "required"):
        ok = isinstance(value, list) and (key == "enum" or all(isinstance(r, str) for r in value))
    elif key == "pattern":
        if not isinstance(value, str):
            raise BadSchema("pattern is a string")
        try:
            re.compile(value)
        except re.error:
            return None
        return value
    elif key == "uniqueItems":
        ok = isinstance(value, bool)
    elif key in _COUNTS:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    else:  # minimum, maximum, multipleOf
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and (key != "multipleOf" or value > 0)
    if not ok:
        raise BadSchema(f"{key}: {value!r} is not a valid value")
    return value


def _dict_of(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadSchema(f"{what} is a map of schemas")
    return value


def _bounds(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """OpenAPI v3's boolean ``exclusiveMinimum``/``exclusiveMaximum`` (a modifier of
    ``minimum``/``maximum``) as Draft 2020-12's numbers."""
    for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if schema.get(flag) is True and bound in out:
            out[flag] = out.pop(bound)


def _nullable(out: dict[str, Any]) -> None:
    types = out.get("type")
    if isinstance(types, str):
        out["type"] = [types, "null"]
    elif isinstance(types, list) and "null" not in types:
        out["type"] = [*types, "null"]
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]


def _embedded(out: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """An embedded resource's node (the root is one): ``apiVersion`` and ``kind``
    required non-empty strings, ``metadata`` Kubernetes' ObjectMeta (with what the
    schema says of it, never closed: ObjectMeta closes it)."""
    props = dict(out.get("properties", {}))
    for key in ("apiVersion", "kind"):
        own = props.get(key)
        props[key] = {"type": "string", "minLength": 1, **({"allOf": [own]} if own else {})}
    declared = _dict(_dict(schema.get("properties")).get("metadata"))
    meta = _node(declared, closing=False) if declared else {}
    meta.pop("type", None)  # ObjectMeta's own
    props["metadata"] = {"$ref": OBJECT_META, **meta}
    required = [r for r in out.get("required", []) if r not in ("apiVersion", "kind")]
    return {**out, "properties": props, "required": ["apiVersion", "kind", *required]}


# --- the object the API server validates ------------------------------------------------


def admitted(data: dict[str, Any], version: ServedVersion) -> dict[str, Any]:
    """A custom resource as the API server validates it on a create: nulls the schema
    does not allow dropped from their maps (unless the CRD prunes nothing), defaults
    filled in, ``.status`` dropped with a status subresource. ``data`` is not changed."""
    schema = version.schema if isinstance(version.schema, dict) else None
    out = data
    if schema is not None:
        out = _admit(data, schema, prune=not version.preserve)
    if version.status and "status" in out:
        out = {k: v for k, v in out.items() if k != "status"}
    return out if isinstance(out, dict) else data


def _sub(schema: dict[str, Any], key: str) -> dict[str, Any] | None:
    props = schema.get("properties")
    if isinstance(props, dict) and key in props:
        found = props[key]
    else:
        found = schema.get("additionalProperties")
    return found if isinstance(found, dict) else None


def _non_nullable_null(value: Any, schema: dict[str, Any] | None) -> bool:
    return value is None and schema is not None and schema.get("nullable") is not True


def _admit(value: Any, schema: dict[str, Any], *, prune: bool) -> Any:
    """The API server's null pruning and defaulting of one value (a copy where they
    change it)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            sub = _sub(schema, k)
            if prune and _non_nullable_null(v, sub) and _default(sub) is None:
                continue
            out[k] = v
        props = schema.get("properties")
        for k, prop in props.items() if isinstance(props, dict) else ():
            default = _default(prop)
            if default is not None and (k not in out or _non_nullable_null(out[k], prop)):
                out[k] = copy.deepcopy(default)
        for k, v in out.items():
            sub = _sub(schema, k)
            if sub is not None:
                if _non_nullable_null(v, sub) and _default(sub) is not None:
                    v = copy.deepcopy(_default(sub))
                out[k] = _admit(v, sub, prune=prune)
        return out
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        default = _default(items)
        return [
            _admit(
                copy.deepcopy(default)
                if default is not None and _non_nullable_null(v, items)
                else v,
                items,
                prune=prune,
            )
            for v in value
        ]
    return value


def _default(schema: Any) -> Any:
    return schema.get("default") if isinstance(schema, dict) else None


# --- what JSON Schema cannot say --------------------------------------------------------

#: (field path, message) of one problem.
Problem = tuple[str, str]


def list_findings(data: Any, version: ServedVersion) -> list[Problem]:
    """``x-kubernetes-list-type`` ``set`` items that repeat and ``map`` items whose
    keys repeat (each repetition after the first, as the API server reports them), and
    a ``map`` item that is not an object."""
    schema = version.schema if isinstance(version.schema, dict) else None
    out: list[Problem] = []
    if schema is not None and isinstance(data, dict):
        _lists_in(data, schema, [], out)
    return out


def _lists_in(
    value: Any, schema: dict[str, Any], path: list[str | int], out: list[Problem]
) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            sub = _sub(schema, k)
            if sub is not None:
                _lists_in(v, sub, [*path, k], out)
    elif isinstance(value, list):
        kind = schema.get("x-kubernetes-list-type")
        if kind == "set":
            out += _set_duplicates(value, path)
        elif kind == "map":
            out += _map_duplicates(value, schema, path)
        items = schema.get("items")
        if isinstance(items, dict):
            for i, v in enumerate(value):
                _lists_in(v, items, [*path, i], out)


def _identity(value: Any) -> str:
    """Items equal as the API server compares them: scalars by Go's equality (1 and
    1.0 apart from "1"), compound ones by their JSON."""
    if isinstance(value, dict | list):
        return "j" + json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    if isinstance(value, bool) or value is None:
        return f"b{value}"
    if isinstance(value, int | float):
        return (
            f"n{value!r}"
            if isinstance(value, float) and not value.is_integer()
            else f"n{int(value)}"
        )
    return f"s{value}"


def _value_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _repeated(items: list[Any], key: Any) -> list[int]:
    """The index of each item whose key was seen once before (a third is not reported
    again, as the API server reports them)."""
    seen: dict[str, int] = {}
    out = []
    for i, item in enumerate(items):
        ident = _identity(key(item))
        seen[ident] = seen.get(ident, 0) + 1
        if seen[ident] == 2:
            out.append(i)
    return out


def _set_duplicates(items: list[Any], path: list[str | int]) -> list[Problem]:
    return [
        (key_path([*path, i]), f"duplicate value {_value_text(items[i])}")
        for i in _repeated(items, lambda item: item)
    ]


def _map_duplicates(
    items: list[Any], schema: dict[str, Any], path: list[str | int]
) -> list[Problem]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [(key_path([*path, i]), "must be an object for an array of list-type map")]
    keys = schema.get("x-kubernetes-list-map-keys")
    names = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []

    def entry_keys(item: Any) -> dict[str, Any]:
        found = item if isinstance(item, dict) else {}
        return {k: found[k] for k in names if k in found}

    out = []
    for i in _repeated(items, entry_keys):
        given = entry_keys(items[i])
        what = ", ".join(f"{k}={_value_text(v)}" for k, v in given.items())
        out.append(
            (
                key_path([*path, i]),
                f"duplicate entry with {what}"
                if given
                else "duplicate entry without " + (", ".join(names) or "keys"),
            )
        )
    return out


# --- a custom resource checked on one Kubernetes version ------------------------------


@dataclass(frozen=True)
class _CustomSchema:
    """A CRD version's schema (:func:`renderer.k8s.crd.json_schema`) on one Kubernetes
    version, whose definitions give its ObjectMeta: the JSON, its compiled check and
    jsonschema's validator, made when a check first needs them."""

    version: ServedVersion
    definitions: kubeschema.Definitions

    @cached_property
    def _built(self) -> tuple[dict[str, Any] | None, str]:
        what = f"the schema of {self.version.kind} {self.version.api_version}"
        where = f" (CRD {self.version.name}" + (
            f" at {self.version.where})" if self.version.where else ")"
        )
        try:
            document = json_schema(self.version)
        except BadSchema as exc:
            return None, f"{what} cannot be used{where}: {exc}"
        if self.definitions.problem:
            return None, kubeschema.unreadable("ObjectMeta", self.definitions.problem)
        return document, ""

    @property
    def document(self) -> dict[str, Any] | None:
        return self._built[0]

    @property
    def problem(self) -> str:
        return self._built[1]

    @cached_property
    def check(self) -> Check:
        """The compiled check: a compiler of its own, so what it holds goes with it."""
        definitions = self.definitions.document
        uri = definitions.get("$id") if definitions is not None else None
        compiler = Compiler(lambda found: definitions if found == uri else None, formats=False)
        return compiler.compile(self.document)

    @cached_property
    def validator(self) -> jsonschema.protocols.Validator:
        import jsonschema  # here: a valid object never needs it
        from referencing import Resource

        document = self.document if self.document is not None else {}
        registry = Resource.from_contents(document) @ self.definitions.registry
        return jsonschema.validators.Draft202012Validator(document, registry=registry)


#: CRD versions' schemas per Kubernetes version: (kube version, CRD digest, version).
_CUSTOM: Memo[tuple[str, str, str], _CustomSchema] = Memo("k8s.crd.schemas", 1024)


def _custom_schema(kube_version: str, version: ServedVersion) -> _CustomSchema:
    def read() -> _CustomSchema:
        return _CustomSchema(version, kubeschema.definitions(kube_version))

    return _CUSTOM.setdefault((kube_version, version.digest, version.version), read)


def _custom_problems(
    data: dict[str, Any], kube_version: str, version: ServedVersion
) -> list[tuple[str, str]]:
    """(path, message) of each problem of a custom resource against one CRD version:
    the object as the API server admits it (:func:`renderer.k8s.crd.admitted`) given
    first to the compiled check, then to jsonschema, and its list-type invariants."""
    schema = _custom_schema(kube_version, version)
    if schema.problem:
        return [("", schema.problem)]
    instance = admitted(data, version)
    lists = list_findings(instance, version)
    if not lists and certainly_valid(schema.check, instance):
        return []
    return sorted([*kubeschema.problems(schema.validator, instance), *lists])


def custom_findings(
    data: dict[str, Any], kube_version: str, crds: CrdSet, kind: str, api_version: str
) -> list[tuple[str, str, str]]:
    """(severity, path, message) of a custom resource whose kind ``crds`` defines: none
    when a CRD version serving its apiVersion finds nothing, else the first one's."""
    group, _, version = api_version.rpartition("/")
    serving = crds.serving(group, version, kind)
    if not serving:
        known = sorted({v.version for v in crds.versions(group, kind) if v.served})
        return [
            (
                kubeschema.ERROR,
                "apiVersion",
                f"no CustomResourceDefinition serves {kind} in {api_version} "
                f"(served: {', '.join(known) or 'none'})",
            )
        ]
    first: list[tuple[str, str]] | None = None
    for v in serving:
        found = _custom_problems(data, kube_version, v)
        if not found:
            return []
        first = first if first is not None else found
    return [(kubeschema.ERROR, path, message) for path, message in first or []]


@dataclass(frozen=True, slots=True)
class Unchecked:
    """Objects no schema checked (custom resources of kinds no CRD given defines): how
    many, and their kinds (``Kind apiVersion``, sorted)."""

    objects: int
    kinds: tuple[str, ...]


def unchecked(findings: Iterable[Finding]) -> Unchecked:
    """The objects ``findings`` say no schema checked, counted once each whatever the
    Kubernetes versions (an object is its file, kind, namespace and name)."""
    seen: set[tuple[str, str, str, str, str]] = set()
    kinds: set[str] = set()
    for f in findings:
        if f.rule != kubeschema.NOT_CHECKED_RULE or f.object is None:
            continue
        o = f.object
        seen.add((f.file, o.kind, o.api_version, o.namespace, o.name))
        kinds.add(f"{o.kind} {o.api_version}")
    return Unchecked(len(seen), tuple(sorted(kinds)))
