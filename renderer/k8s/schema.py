"""Strict Kubernetes schema validation of rendered objects.

Verdicts are those of ``kubernetes_validate.validate(obj, version, strict=True)``: the
same schema files read the same way, the same registry and the same Draft 2020-12
validator. Each file is read once per process (a version's ``_definitions.json`` is 1.5-1.8
MB), and an object is first given to the compiled check of its kind's schema
(:mod:`renderer.data.fastschema`), which may only say "certainly valid"; anything else is
validated by jsonschema, which decides and words the findings. An object's findings on
a version are kept in the result cache (:mod:`renderer.store.cache`) under the object's
JSON and the bytes of the schema files read (:func:`schema_digest`).

Custom resources are checked against the CustomResourceDefinitions a caller gives
(:mod:`renderer.k8s.crd`: each served version's schema as the API server reads it),
with the same compiler and jsonschema, their ObjectMeta against the Kubernetes version's
definitions; their cached findings are keyed by the CRDs' own content as well. An object
of a built-in API group with no schema for a Kubernetes version (a removed API such as
``policy/v1beta1`` PodDisruptionBudget on 1.25+) is an error, unless a CRD defines it;
a custom resource of a kind no CRD given defines is reported as not schema-checked.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import locale
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from renderer.data.fastschema import Check, Compiler, certainly_valid
from renderer.data.schemas import yaml_spelling
from renderer.errors import InputError
from renderer.finding import SCHEMA, Finding, ObjectRef
from renderer.k8s.gcpause import gc_paused
from renderer.k8s.objects import key_path
from renderer.k8s.parse import K8sObject
from renderer.store import cache as result_cache
from renderer.store.memo import Memo

if TYPE_CHECKING:  # imported where used: a valid object needs neither
    import jsonschema
    from referencing import Registry

    # imported where used: objects no CRD defines (Calico's renders) need no CRD read
    from renderer.k8s.crd import CrdSet

DEFAULT_COUNT = 4
ERROR = "error"
NOT_CHECKED = "not-checked"
_API_FILE = re.compile(r"^([^./]*)(?:\.[^/]*)?/")
#: What a kind and an apiVersion may look like before either goes near a schema file name.
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
_API_VERSION = re.compile(r"^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?/)?v[0-9a-z]+$")
_SCHEMA_DIR = re.compile(r"^v([^-]*).*")


@cache  # no arguments: one value per process
def _all_versions() -> tuple[str, ...]:
    """kubernetes-validate's ``all_versions()``, read from its schema directory names
    without importing it (none when it is not installed)."""
    try:
        names = os.listdir(os.path.join(_schema_root() or "", "kubernetes-json-schema"))
        found = [_SCHEMA_DIR.sub(r"\1", n) for n in names if _SCHEMA_DIR.match(n)]
        return tuple(sorted(found, key=lambda v: tuple(int(p) for p in v.split("."))))
    except (OSError, ValueError):
        return ()


def _major_minor(version: str) -> str:
    return re.sub(r"^(\d+\.\d+).*", r"\1", version)


@cache  # no arguments: one value per process
def shipped_versions() -> tuple[str, ...]:
    """``X.Y`` of every Kubernetes version kubernetes-validate ships schemas for, oldest first."""
    return tuple(dict.fromkeys(_major_minor(v) for v in _all_versions()))


def default_kube_versions(count: int = DEFAULT_COUNT) -> tuple[str, ...]:
    """The newest ``count`` shipped minors: recent clusters, computed from the library."""
    return shipped_versions()[-count:]


def resolve_kube_versions(requested: Iterable[str] = ()) -> tuple[str, ...]:
    """Requested ``X.Y`` versions (``v`` prefix allowed) or the default; unknown is exit 2."""
    wanted = [v[1:] if v.startswith("v") else v for v in requested]
    if not wanted:
        return default_kube_versions()
    shipped = shipped_versions()
    for v in wanted:
        if v not in shipped:
            raise InputError(
                f"Kubernetes {v!r} has no bundled schemas; shipped: {', '.join(shipped)}",
                key="kube_version",
                argument="kube_version",
            )
    return tuple(sorted(set(wanted), key=lambda v: tuple(int(p) for p in v.split("."))))


def api_group(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def is_builtin_group(group: str) -> bool:
    """Kubernetes' own groups are the core group, dotless names and ``*.k8s.io``."""
    return group == "" or "." not in group or group.endswith(".k8s.io")


#: A CustomResourceDefinition, as the API versions that define one name it.
CRD_KIND = "CustomResourceDefinition"
CRD_API_VERSIONS = ("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1")

#: The rule id of a schema error (its stage is ``renderer.finding.SCHEMA``).
INVALID = "schema-invalid"
#: The rule id of a custom resource no schema checks (an info finding).
NOT_CHECKED_RULE = "schema-not-checked"


def schema_finding(
    kube_version: str,
    severity: str,
    kind: str,
    api_version: str,
    namespace: str,
    name: str,
    path: str,
    message: str,
) -> Finding:
    """A schema problem (or a skipped custom resource) of one object on one Kubernetes
    version."""
    return Finding(
        INVALID if severity == ERROR else NOT_CHECKED_RULE,
        ERROR if severity == ERROR else "info",
        message,
        stage=SCHEMA,
        object=ObjectRef(kind, name, namespace, api_version),
        field=path,
        kube_versions=(kube_version,),
    )


@cache  # no arguments: one value per process
def _schema_dirs() -> dict[str, str]:
    """``X.Y`` -> the newest shipped ``X.Y.Z``'s strict directory (asked for per file)."""
    return {_major_minor(v): f"v{v}-local-strict" for v in _all_versions()}


def schema_dir(kube_version: str) -> str:
    """The strict schema directory the library uses for ``X.Y``."""
    try:
        return _schema_dirs()[kube_version]
    except KeyError:
        raise IndexError(f"no schemas for Kubernetes {kube_version!r}") from None


def schema_file(kube_version: str, kind: str, api_version: str) -> str:
    """The library's file name for a kind: ``rbac.authorization.k8s.io/v1`` -> ``rbac-v1``."""
    api = _API_FILE.sub(r"\1-", api_version)
    return f"kubernetes-json-schema/{schema_dir(kube_version)}/{kind.lower()}-{api}.json"


#: Kubernetes versions whose ``_definitions.json`` is held, parsed (kubernetes-validate
#: ships a dozen-odd minors, each file 1.5-1.8 MB), and kinds whose schema is held (Calico
#: uses a few dozen kinds on a few versions; the rest is room for other input).
_PER_VERSION = 16
_PER_KIND = 1024
#: What :mod:`json` reads a schema file as: the library opens it in text mode.
_ENCODING = locale.getpreferredencoding(False)


class SchemaUnavailable(Exception):
    """A schema exists by name but could not be read; check_object turns it into a finding."""


def _read(path: str) -> tuple[str, bytes]:
    """A schema file's digest and bytes, read once: the digest keys cached findings and
    the same bytes, parsed when a check first needs them (:func:`_parse`), decide them.
    FileNotFoundError passes; other trouble is :class:`SchemaUnavailable`."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise SchemaUnavailable(_why(exc)) from None
    return hashlib.sha256(raw).hexdigest(), raw


def _parse(raw: bytes) -> dict[str, Any]:
    """A schema file's JSON, read as the library reads it (text in the locale's
    encoding); anything that is not a JSON Schema document is :class:`SchemaUnavailable`."""
    try:
        with gc_paused():  # a definitions file is some 200,000 acyclic objects
            found = json.loads(raw.decode(_ENCODING))
    except ValueError as exc:  # undecodable, or not JSON
        raise SchemaUnavailable(_why(exc)) from None
    if not isinstance(found, dict) or "$schema" not in found:  # the library's registry refuses it
        raise SchemaUnavailable("not a JSON Schema document: no $schema")
    return found


def _why(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@cache  # no arguments: one value per process
def _schema_root() -> str | None:
    spec = importlib.util.find_spec("kubernetes_validate")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return locations[0] if locations else None


def _schema_path(name: str) -> str:
    return os.path.join(_schema_root() or "", name)


@dataclass(frozen=True)
class Definitions:
    """A Kubernetes version's ``_definitions.json`` as read once: its digest and bytes
    (parsed when a check first needs them), or why it could not be read."""

    digest: str
    raw: bytes | None = None
    unread: str = ""

    @cached_property
    def _parsed(self) -> tuple[dict[str, Any] | None, str]:
        if self.raw is None:
            return None, self.unread
        try:
            return _parse(self.raw), ""
        except SchemaUnavailable as exc:
            return None, str(exc)

    @property
    def document(self) -> dict[str, Any] | None:
        return self._parsed[0]

    @property
    def problem(self) -> str:
        """Why the definitions cannot serve a check ("" when they can)."""
        return self._parsed[1]

    @cached_property
    def compiler(self) -> Compiler:
        """The compiler of the kinds' schemas, which refer to these definitions."""
        document = self.document
        uri = document.get("$id") if document is not None else None
        return Compiler(lambda found: document if found == uri else None, formats=False)

    @cached_property
    def registry(self) -> Registry[Any]:
        """These definitions as jsonschema resolves references in them."""
        from referencing import Registry, Resource

        return Resource.from_contents(self.document) @ Registry()


def _read_definitions(kube_version: str) -> Definitions:
    try:
        name = f"kubernetes-json-schema/{schema_dir(kube_version)}/_definitions.json"
        return Definitions(*_read(_schema_path(name)))
    except IndexError:  # a version the library does not ship
        return Definitions("no schemas", unread=f"no schemas for Kubernetes {kube_version}")
    except FileNotFoundError:
        return Definitions("absent", unread="no _definitions.json")
    except SchemaUnavailable as exc:
        return Definitions("unreadable", unread=str(exc))


@dataclass(frozen=True)
class _KindSchema:
    """A kind's schema on one Kubernetes version as read once (no bytes: the version
    ships no schema for it) and the definitions read with it: its digest covers both
    files; its JSON, compiled check and validator are of that reading, made when a
    check first needs them."""

    name: str
    digest: str
    raw: bytes | None
    unread: str
    definitions: Definitions

    @cached_property
    def _parsed(self) -> tuple[dict[str, Any] | None, str]:
        if self.raw is None:
            problem = self.unread
            schema = None
        else:
            try:
                schema, problem = _parse(self.raw), ""
            except SchemaUnavailable as exc:
                schema, problem = None, str(exc)
            if schema is not None and self.definitions.problem:
                problem = self.definitions.problem
        return schema, unreadable(self.name, problem) if problem else ""

    @property
    def schema(self) -> dict[str, Any] | None:
        return self._parsed[0]

    @property
    def problem(self) -> str:
        """Why this kind cannot be checked ("" when it can, or has no schema)."""
        return self._parsed[1]

    @cached_property
    def check(self) -> Check:
        """The compiled check (:mod:`renderer.data.fastschema`) of this schema."""
        return self.definitions.compiler.compile(self.schema)

    @cached_property
    def validator(self) -> jsonschema.protocols.Validator:
        """jsonschema's validator, as kubernetes-validate builds it; a ``$schema`` it
        does not know is :class:`SchemaUnavailable`."""
        import jsonschema  # here: a valid object never needs it
        from referencing import Resource
        from referencing.exceptions import CannotDetermineSpecification
        from referencing.jsonschema import UnknownDialect

        schema = self.schema if self.schema is not None else {}  # asked only of a schema
        try:
            registry = Resource.from_contents(schema) @ self.definitions.registry
        except (CannotDetermineSpecification, UnknownDialect) as exc:
            raise SchemaUnavailable(unreadable(self.name, _why(exc))) from None
        return jsonschema.validators.Draft202012Validator(schema, registry=registry)


def unreadable(name: str, why: str) -> str:
    return f"the schema for {name} could not be read ({why})"


def _read_kind(kube_version: str, kind: str, api_version: str) -> _KindSchema:
    definitions = _DEFINITIONS.setdefault(kube_version, lambda: _read_definitions(kube_version))
    name = f"{kind} {api_version}"
    raw: bytes | None = None
    unread = ""
    try:
        path = _schema_path(schema_file(kube_version, kind, api_version))
    except IndexError:
        path = ""
    try:
        own, raw = _read(path)
    except FileNotFoundError:  # the library's rule: no file in its directory, no schema
        own = "absent"
        if not os.path.isdir(os.path.dirname(path)):
            unread = f"no schemas for Kubernetes {kube_version}"
    except SchemaUnavailable as exc:
        own, unread = "unreadable", str(exc)
    return _KindSchema(name, f"{definitions.digest}:{own}", raw, unread, definitions)


#: Read definitions (kube version -> them) and kinds' schemas ((kube version, kind,
#: apiVersion) -> it); a kind's schema holds the definitions it was read with.
_DEFINITIONS: Memo[str, Definitions] = Memo("k8s.schema.definitions", _PER_VERSION)
_KINDS: Memo[tuple[str, str, str], _KindSchema] = Memo("k8s.schema.kinds", _PER_KIND)


def definitions(kube_version: str) -> Definitions:
    """A Kubernetes version's definitions as read once per process (its ObjectMeta is a
    custom resource's)."""
    return _DEFINITIONS.setdefault(kube_version, lambda: _read_definitions(kube_version))


def _kind(kube_version: str, kind: str, api_version: str) -> _KindSchema:
    """A kind's schema; ``kind`` and ``apiVersion`` name a file, so callers first ask
    that they look like a kind and an apiVersion."""
    key = (kube_version, kind, api_version)
    return _KINDS.setdefault(key, lambda: _read_kind(*key))


def _named(kind: str, api_version: str) -> bool:
    return bool(_KIND.match(kind) and _API_VERSION.match(api_version))


def schema_digest(kube_version: str, kind: str, api_version: str) -> str:
    """A digest of the bytes of every schema file an object of ``kind`` is checked
    with on ``kube_version``: its kind's file and the version's ``_definitions.json``,
    as read for the check. An edited or replaced schema file moves every cached
    finding that read it."""
    if not _named(kind, api_version):
        return "invalid name"
    return _kind(kube_version, kind, api_version).digest


def needs_crd(kind: str, api_version: str, kube_versions: Sequence[str]) -> bool:
    """Whether only a CRD can check an object of ``kind`` on some of ``kube_versions``:
    a version ships no schema for it, and its group can be a CRD's (it has a dot)."""
    if not _named(kind, api_version) or "." not in api_group(api_version):
        return False
    for v in kube_versions:
        found = _kind(v, kind, api_version)
        if found.raw is None and not found.unread:
            return True
    return False


def defined_kinds(objects: Iterable[K8sObject | Mapping[str, Any]]) -> frozenset[tuple[str, str]]:
    """(group, kind) of every kind the CustomResourceDefinitions among ``objects``
    define, their content left unread."""
    out = set()
    for obj in objects:
        data = obj.data if isinstance(obj, K8sObject) else obj
        if data.get("kind") == CRD_KIND and data.get("apiVersion") in CRD_API_VERSIONS:
            spec = data.get("spec")
            spec = spec if isinstance(spec, dict) else {}
            names = spec.get("names")
            group = spec.get("group")
            kind = names.get("kind") if isinstance(names, dict) else None
            if isinstance(group, str) and group and isinstance(kind, str) and kind:
                out.add((group, kind))
    return frozenset(out)


def custom_kinds(
    objects: Iterable[K8sObject], kube_versions: Sequence[str]
) -> frozenset[tuple[str, str]]:
    """(group, kind) of the objects no Kubernetes schema checks on some of
    ``kube_versions``: those a CRD must define (:func:`needs_crd`)."""
    return frozenset(
        (api_group(o.api_version), o.kind)
        for o in objects
        if needs_crd(o.kind, o.api_version, kube_versions)
    )


#: What checks an object (:func:`schema_source`).
KUBERNETES, CRD, NONE = "kubernetes", "crd", "none"


def schema_source(
    kind: str, api_version: str, kube_version: str, crds: CrdSet | None = None
) -> str:
    """What checks an object of ``kind`` on ``kube_version``: ``kubernetes`` (a schema
    kubernetes-validate ships), ``crd`` (a CRD of ``crds`` defines the kind) or ``none``
    (not checked, or an API Kubernetes does not serve)."""
    if _named(kind, api_version) and _kind(kube_version, kind, api_version).raw is not None:
        return KUBERNETES
    if crds is not None and crds.defines(api_group(api_version), kind):
        return CRD
    return NONE


def validator_for(
    kube_version: str, kind: str, api_version: str
) -> jsonschema.protocols.Validator | None:
    """jsonschema's validator for a kind, as kubernetes-validate builds it (Draft
    2020-12, the kind's schema and the definitions in one registry), or None when the
    version ships no schema for it.

    ``kind`` and ``apiVersion`` name a file, so they must look like a kind and an
    apiVersion (see :func:`check_object`); a schema that cannot be read is
    :class:`SchemaUnavailable`.
    """
    if not _named(kind, api_version):
        raise SchemaUnavailable(f"not a valid kind/apiVersion: {kind!r} {api_version!r}")
    found = _kind(kube_version, kind, api_version)
    if found.problem:
        raise SchemaUnavailable(found.problem)
    return None if found.schema is None else found.validator


def problems(validator: jsonschema.protocols.Validator, data: Any) -> list[tuple[str, str]]:
    """(path, message) of each error jsonschema finds; an unknown field is named in
    its path, one finding each."""
    out: list[tuple[str, str]] = []
    for e in validator.iter_errors(data):
        unknown = _unknown_fields(e)
        if unknown:
            base = _path(e)
            out.extend((f"{base}.{k}" if base else k, f"unknown field {k!r}") for k in unknown)
        else:
            out.append((_path(e), yaml_spelling(e.message)))
    return out


def _path(error: jsonschema.ValidationError) -> str:
    return key_path(error.absolute_path)


def _unknown_fields(error: jsonschema.ValidationError) -> list[str]:
    """The field names a strict ``additionalProperties: false`` rejected, so paths name them."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    schema = error.schema if isinstance(error.schema, dict) else {}
    props = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return sorted(
        str(k)
        for k in error.instance
        if k not in props and not any(re.search(p, str(k)) for p in patterns)
    )


def canonical_hash(data: Any) -> str:
    """A hash equal for equal objects whatever their key order."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def object_key(data: Any) -> str:
    """The key of an object's verdicts: a digest of its JSON, in its own key order.

    Two objects with one key are equal (their JSON is the same text, and JSON decodes
    one way); equal objects written in another key order only miss each other's
    verdicts. The JSON is what :func:`renderer.store.cache.encode` writes, so the one
    a parse made of the object (:func:`renderer.k8s.parse.noted_json`) is hashed as it
    is, not encoded again. Data that is not JSON (a caller's own types, written as
    their type and text) is keyed apart from all JSON.
    """
    try:
        text = json.dumps(data, separators=(",", ":"))
    except TypeError:
        text = json.dumps(data, separators=(",", ":"), default=_typed)
        return "py:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _typed(value: Any) -> str:
    return f"{type(value).__module__}.{type(value).__qualname__}:{value}"


def _text(value: Any) -> str:
    """A field as text; absent and null are empty."""
    return "" if value is None else str(value)


def _strip(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return (
        _text(obj.get("kind")),
        _text(obj.get("apiVersion")),
        _text(meta.get("namespace")),
        _text(meta.get("name")),
    )


def check_object(
    data: dict[str, Any], kube_version: str, crds: CrdSet | None = None
) -> list[Finding]:
    """Uncached check of one object on one Kubernetes version (no file/line); a custom
    resource against the CRDs of ``crds`` that define its kind."""
    kind, api_version, namespace, name = _strip(data)

    def finding(severity: str, path: str, message: str) -> Finding:
        return schema_finding(
            kube_version, severity, kind, api_version, namespace, name, path, message
        )

    if not kind or not api_version:
        missing = "kind" if not kind else "apiVersion"
        return [finding(ERROR, missing, f"{missing} is required")]
    if not _KIND.match(kind):
        return [finding(ERROR, "kind", f"{kind!r} is not a valid kind")]
    if not _API_VERSION.match(api_version):
        return [finding(ERROR, "apiVersion", f"{api_version!r} is not a valid apiVersion")]
    found = _kind(kube_version, kind, api_version)
    if not found.problem and found.schema is not None and certainly_valid(found.check, data):
        return []
    try:
        validator = validator_for(kube_version, kind, api_version)
    except SchemaUnavailable as exc:
        return [finding(ERROR, "", str(exc))]
    if validator is None:
        group = api_group(api_version)
        if crds is not None and crds.defines(group, kind):
            from renderer.k8s.crd import custom_findings  # here: only a CRD's kind needs it

            rows = custom_findings(data, kube_version, crds, kind, api_version)
            return [finding(*row) for row in rows]
        if is_builtin_group(group):
            return [
                finding(
                    ERROR,
                    "apiVersion",
                    f"Kubernetes serves no {kind} in {api_version} (removed or unknown API)",
                )
            ]
        return [
            finding(
                NOT_CHECKED,
                "",
                f"custom resource of {group or api_version}: not schema-checked",
            )
        ]
    out = [finding(ERROR, path, message) for path, message in problems(validator, data)]
    return sorted(out, key=lambda f: (f.field, f.message))


#: A finding without its object and Kubernetes version: (severity, path, message).
Row = list[str]


def _valid_rows(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(r, list)
        and len(r) == 3
        and r[0] in (ERROR, NOT_CHECKED)
        and all(isinstance(x, str) for x in r)
        for r in value
    )


def _crds_digest(data: dict[str, Any], crds: CrdSet | None) -> str:
    """The digest of the CRDs of ``crds`` that define the object's kind ("" for none)."""
    if not crds:
        return ""
    return crds.digest(api_group(_text(data.get("apiVersion"))), _text(data.get("kind")))


def decided_by(kube_version: str, data: dict[str, Any], crds: CrdSet | None = None) -> str:
    """A digest of everything an object's findings on ``kube_version`` depend on
    besides the object: the schema files of its kind (:func:`schema_digest`) and the
    content of the CRDs of ``crds`` that define its kind."""
    kind, api_version = _text(data.get("kind")), _text(data.get("apiVersion"))
    base = schema_digest(kube_version, kind, api_version)
    own = _crds_digest(data, crds)
    return f"{base}:crds:{own}" if own else base


def verdict_rows(
    data: dict[str, Any], digest: str, kube_versions: Sequence[str], crds: CrdSet | None = None
) -> list[Row]:
    """An object's findings on every version (rows tagged with their version first),
    each version's kept in the result cache under the object, its schema files and the
    CRDs of its kind."""
    out: list[Row] = []
    for v in kube_versions:
        key = result_cache.key("schema", v, decided_by(v, data, crds), digest)
        rows = result_cache.get("schema", key, _valid_rows)
        if rows is None:
            rows = [[f.severity, f.field, f.message] for f in check_object(data, v, crds)]
            result_cache.put("schema", key, rows)
        out.extend([v, *row] for row in rows)
    return out


def verdict_rows_many(
    items: Mapping[str, dict[str, Any]],
    kube_versions: Sequence[str],
    crds: CrdSet | None = None,
) -> dict[str, list[Row]]:
    """:func:`verdict_rows` of a set of objects (by digest), kept as one entry for the
    whole set: a render's objects are one read or one write, not one per object and
    version. The key holds every object's digest and the digest of what checks it
    (:func:`decided_by`: the schema files, a custom resource's CRDs); on a miss, an
    object's own entry (a check keeps those) still answers, and only the set's entry is
    written."""
    digests = sorted(items)
    parts: list[str] = ["schemas", *kube_versions]
    for d in digests:
        parts.append(d)
        parts += [decided_by(v, items[d], crds) for v in kube_versions]
    key = result_cache.key(*parts)

    def valid(value: Any) -> bool:
        return (
            isinstance(value, dict)
            and sorted(value) == digests
            and all(
                isinstance(rows, list)
                and all(isinstance(r, list) and len(r) == 4 and r[0] in kube_versions for r in rows)
                and _valid_rows([r[1:] for r in rows])
                for rows in value.values()
            )
        )

    stored = result_cache.get("schemas", key, valid)
    if stored is None:
        stored = {d: _object_rows(items[d], d, kube_versions, crds) for d in digests}
        result_cache.put("schemas", key, stored)
    return {d: [list(r) for r in stored[d]] for d in digests}


def _object_rows(
    data: dict[str, Any], digest: str, kube_versions: Sequence[str], crds: CrdSet | None
) -> list[Row]:
    """:func:`verdict_rows` that reads an object's own entries but writes none."""
    out: list[Row] = []
    for v in kube_versions:
        key = result_cache.key("schema", v, decided_by(v, data, crds), digest)
        rows = result_cache.get("schema", key, _valid_rows)
        if rows is None:
            rows = [[f.severity, f.field, f.message] for f in check_object(data, v, crds)]
        out.extend([v, *row] for row in rows)
    return out


#: Objects a validator keeps findings for (a caller may hold one validator for a long
#: time; the result cache still serves what it lets go).
RESULTS_PER_VALIDATOR = 4096


class SchemaValidator:
    """Validate objects against several Kubernetes versions; thread-safe, cached per object.

    Each distinct object (by its JSON, :func:`object_key`) is checked once per Kubernetes
    version, and its findings are kept in the result cache (:func:`verdict_rows`).
    Custom resources are checked against ``crds`` (a :class:`~renderer.k8s.crd.CrdSet`,
    or objects to take the CRDs of: a whole tree's, so that one addon's CRD checks the
    resources another renders); :meth:`validate_all` puts the CRDs among its own objects
    first (what a cluster gets with them).
    """

    def __init__(
        self,
        kube_versions: Sequence[str] | None = None,
        *,
        crds: CrdSet | Iterable[K8sObject | Mapping[str, Any]] | None = None,
        keep: int = RESULTS_PER_VALIDATOR,
    ) -> None:
        self.kube_versions = resolve_kube_versions(kube_versions or ())
        self.crds: CrdSet | None = None
        if crds is not None:
            from renderer.k8s.crd import CrdSet, crds_of  # here: objects no CRD defines need none

            self.crds = crds if isinstance(crds, CrdSet) else crds_of(crds)
        #: Objects whose findings this validator keeps (oldest let go first).
        self.keep = keep
        self._results: dict[str, tuple[Finding, ...]] = {}
        self._lock = threading.Lock()

    def validate(self, obj: K8sObject | dict[str, Any]) -> list[Finding]:
        """Findings for ``obj`` on every configured version, located when it is a K8sObject."""
        data = obj.data if isinstance(obj, K8sObject) else obj
        return self._located(obj, self._findings(data, object_key(data), self.crds))

    def validate_all(self, objects: Iterable[K8sObject]) -> list[Finding]:
        """Findings for many objects, sorted by Kubernetes version, file and line; the
        objects this validator has not seen are looked up (and kept) together
        (:func:`verdict_rows_many`). The CRDs among ``objects`` decide the kinds they
        define; this validator's fill the others."""
        items = [(o, object_key(o.data)) for o in objects]
        crds = self.crds
        own = defined_kinds(o for o, _ in items)
        if any((api_group(o.api_version), o.kind) in own for o, _ in items):
            from renderer.k8s.crd import crds_of  # here: a render none of whose objects
            # its own CRDs define (Calico's) reads none of them

            found = crds_of([o for o, _ in items], [d for _, d in items])
            crds = found.then(crds) if crds is not None else found
        with self._lock:
            missing = {
                d: o.data
                for o, d in items
                if self._result_key(o.data, d, crds) not in self._results
            }
        if missing:
            for digest, rows in verdict_rows_many(missing, self.kube_versions, crds).items():
                data = missing[digest]
                self._keep(self._result_key(data, digest, crds), data, rows)
        out = [f for o, d in items for f in self._located(o, self._findings(o.data, d, crds))]
        return sorted(out, key=schema_sort_key)

    @staticmethod
    def _result_key(data: dict[str, Any], digest: str, crds: CrdSet | None) -> str:
        """What this validator keeps an object's findings under: the object, and the
        CRDs of its kind."""
        own = _crds_digest(data, crds)
        return f"{digest}:{own}" if own else digest

    def _findings(
        self, data: dict[str, Any], digest: str, crds: CrdSet | None
    ) -> tuple[Finding, ...]:
        """The findings of the object with ``digest``: kept by this validator, else from
        :func:`verdict_rows`."""
        key = self._result_key(data, digest, crds)
        with self._lock:
            cached = self._results.get(key)
        if cached is None:
            rows = verdict_rows(data, digest, self.kube_versions, crds)
            cached = self._keep(key, data, rows)
        return cached

    def _keep(self, key: str, data: dict[str, Any], rows: list[Row]) -> tuple[Finding, ...]:
        """The findings of ``rows``, remembered under ``key``."""
        kind, api_version, namespace, name = _strip(data)
        found = tuple(
            schema_finding(v, severity, kind, api_version, namespace, name, path, message)
            for v, severity, path, message in rows
        )
        with self._lock:
            self._results[key] = found
            if len(self._results) > self.keep:  # oldest first
                del self._results[next(iter(self._results))]
        return found

    @staticmethod
    def _located(obj: K8sObject | dict[str, Any], found: tuple[Finding, ...]) -> list[Finding]:
        if isinstance(obj, K8sObject):
            return [replace(f, file=obj.file, line=obj.field_line(f.field)) for f in found]
        return list(found)


def schema_sort_key(f: Finding) -> tuple[tuple[int, ...], str, int, str, str]:
    # a finding of every version (a scalar's YAML 1.1 reading) sorts before them
    version = tuple(int(p) for p in f.kube_versions[0].split(".")) if f.kube_versions else ()
    return (version, f.file, f.line, f.field, f.message)


def errors(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == ERROR]


def strict_unchecked(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` with every object no schema checked an error (``--strict``)."""
    return [replace(f, severity=ERROR) if f.rule == NOT_CHECKED_RULE else f for f in findings]
