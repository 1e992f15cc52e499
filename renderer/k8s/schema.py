"""Strict Kubernetes schema validation of rendered objects, with caches.

Verdicts are those of ``kubernetes_validate.validate(obj, version, strict=True)``: the
same schema files, the same registry and the same Draft 2020-12 validator. That function
re-reads multi-megabyte schema files on every call, so here schemas, the definitions
registry and compiled validators are cached per Kubernetes version, and results per
distinct object (:func:`object_key`, a digest of its JSON), which keeps repeated checks fast.

An object of a built-in API group with no schema for a Kubernetes version (a removed
API such as ``policy/v1beta1`` PodDisruptionBudget on 1.25+) is an error; custom
resources are reported as not schema-checked.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from renderer.errors import InputError
from renderer.store import cache as result_cache
from renderer.store.memo import Memo

if TYPE_CHECKING:  # imported where used: the CLI reads this module's defaults at start-up
    import jsonschema
    from referencing import Registry

    from renderer.finding import Finding
    from renderer.k8s.fastschema import Check, Definitions
    from renderer.k8s.parse import K8sObject

DEFAULT_COUNT = 4
ERROR = "error"
NOT_CHECKED = "not-checked"
_API_FILE = re.compile(r"^([^./]*)(?:\.[^/]*)?/")
#: What a kind and an apiVersion may look like before either goes near a schema file name.
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
_API_VERSION = re.compile(r"^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?/)?v[0-9a-z]+$")
_SCHEMA_DIR = re.compile(r"^v([^-]*).*")


def _kv() -> ModuleType:
    """kubernetes-validate, imported when a schema is first read (a cached verdict needs
    neither it nor jsonschema's validators)."""
    import kubernetes_validate.utils

    module: ModuleType = kubernetes_validate.utils
    return module


def __getattr__(name: str) -> Any:
    if name == "kv":  # the library module, for callers and tests that patch it
        return _kv()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _read_errors() -> tuple[type[Exception], ...]:
    """What reading a schema can raise besides FileNotFoundError (no schema for that kind)."""
    kv = _kv()
    return (kv.VersionNotSupportedError, kv.InvalidSchemaError, OSError, ValueError)


@cache  # no arguments: one value per process
def _all_versions() -> tuple[str, ...]:
    """kubernetes-validate's ``all_versions()``, read from its schema directory names
    without importing it; the library itself decides when a name is not plain X.Y.Z."""
    spec = importlib.util.find_spec("kubernetes_validate")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    try:
        names = os.listdir(os.path.join(locations[0], "kubernetes-json-schema"))
        found = [_SCHEMA_DIR.sub(r"\1", n) for n in names if _SCHEMA_DIR.match(n)]
        return tuple(sorted(found, key=lambda v: tuple(int(p) for p in v.split("."))))
    except (IndexError, OSError, ValueError):
        return tuple(_kv().all_versions())


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
    from renderer.finding import SCHEMA, Finding, ObjectRef

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


_LOCK = threading.RLock()
#: Bounds of the memos below. Per Kubernetes version: kubernetes-validate ships a
#: dozen-odd minors, each definitions file several megabytes once read. Per kind and
#: version: Calico uses a few dozen kinds; the rest is room for other input.
_PER_VERSION = 16
_PER_KIND = 1024
#: The definitions registry of a version (kube version -> registry).
_REGISTRIES: Memo[str, Registry[Any]] = Memo("k8s.schema.registries", _PER_VERSION)
#: The definitions document a registry was built from (kube version -> JSON).
_DEFINITIONS: Memo[str, dict[str, Any]] = Memo("k8s.schema.definitions", _PER_VERSION)
#: jsonschema validators ((kube version, kind, apiVersion) -> validator, None: no schema).
_VALIDATORS: Memo[tuple[str, str, str], jsonschema.protocols.Validator | None] = Memo(
    "k8s.schema.validators", _PER_KIND
)


def _registry(kube_version: str) -> Registry[Any]:
    from referencing import Registry, Resource

    with _LOCK:
        reg = _REGISTRIES.get(kube_version)
        if reg is None or kube_version not in _DEFINITIONS:
            defs = _kv().schema_contents(
                f"kubernetes-json-schema/{schema_dir(kube_version)}/_definitions.json",
                kube_version,
            )
            reg = Resource.from_contents(defs) @ Registry()
            _REGISTRIES[kube_version] = reg
            _DEFINITIONS[kube_version] = defs if isinstance(defs, dict) else {}
        return reg


class SchemaUnavailable(Exception):
    """A schema exists by name but could not be read; check_object turns it into a finding."""


def validator_for(
    kube_version: str, kind: str, api_version: str
) -> jsonschema.protocols.Validator | None:
    """The cached validator for a kind, or None when the version ships no schema for it.

    ``kind`` and ``apiVersion`` name a file, so they must look like a kind and an
    apiVersion (see :func:`check_object`); anything else reading the schema raises is
    :class:`SchemaUnavailable`, never a library exception.
    """
    if not _KIND.match(kind) or not _API_VERSION.match(api_version):
        raise SchemaUnavailable(f"not a valid kind/apiVersion: {kind!r} {api_version!r}")
    key = (kube_version, kind, api_version)
    with _LOCK:
        if key in _VALIDATORS:
            return _VALIDATORS[key]
        import jsonschema
        from referencing import Resource

        kv = _kv()
        try:
            schema = kv.schema_contents(schema_file(kube_version, kind, api_version), kube_version)
            registry = Resource.from_contents(schema) @ _registry(kube_version)
        except FileNotFoundError:
            _VALIDATORS[key] = None
            return None
        except _read_errors() as exc:
            what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise SchemaUnavailable(
                f"the schema for {kind} {api_version} could not be read ({what})"
            ) from None
        validator: jsonschema.protocols.Validator = jsonschema.validators.Draft202012Validator(
            schema, registry=registry
        )
        _VALIDATORS[key] = validator
        return validator


# --- the fast path: a compiled check proves valid objects valid (renderer.k8s.fastschema) ----


class _Fast:
    """A kind's compiled check on one Kubernetes version (a plain class: a dataclass
    costs its creation at import on every run)."""

    __slots__ = ("check",)

    def __init__(self, check: Callable[[Any], bool]) -> None:
        self.check = check

    def passes(self, data: Any) -> bool:
        try:
            return self.check(data)
        except Exception:  # deep nesting and the like: let jsonschema decide
            return False


#: The version ships no schema file for the kind (its directory exists).
_ABSENT = object()
#: Compiled checks ((kube version, kind, apiVersion) -> check, _ABSENT or None).
_FAST: Memo[tuple[str, str, str], _Fast | object | None] = Memo("k8s.schema.fast", _PER_KIND)
#: Compiled checks by schema closure (:func:`closure_digest` -> check or None): the
#: Kubernetes versions whose schemas for a kind are the same share one.
_FAST_SHARED: Memo[str, _Fast | None] = Memo("k8s.schema.fast_shared", _PER_KIND)
#: Compiled checks of single definitions by :func:`_reach` digest, shared by every kind
#: and version that reaches the same text (most of a release's definitions are those of
#: the one before).
_FAST_DEFINITIONS: Memo[str, Check] = Memo("k8s.schema.fast_definitions", 64 * _PER_VERSION)
#: Compiled definitions of a version (None: not compilable, use jsonschema).
_FAST_DEFS: Memo[str, Definitions | None] = Memo("k8s.schema.fast_defs", _PER_VERSION)
#: The version whose definitions guided the indexing of a version's (kube version ->
#: kube version; see :class:`renderer.k8s.fastschema.Definitions`).
_BEFORE: Memo[str, str] = Memo("k8s.schema.definitions_before", _PER_VERSION)


def read_schema_file(path: str) -> bytes:
    """The bytes of one of kubernetes-validate's schema files (the compiled check reads
    them itself, so that it reads what the library would)."""
    with open(path, "rb") as fh:
        return fh.read()


@cache  # no arguments: one value per process
def _schema_root() -> str | None:
    spec = importlib.util.find_spec("kubernetes_validate")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return locations[0] if locations else None


def _ascii(path: str) -> bytes | None:
    """A schema file's bytes when plain ASCII (decoded alike whatever the locale, as the
    library reads it); FileNotFoundError passes, other trouble is None."""
    try:
        raw = read_schema_file(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError):
        return None
    return raw if raw.isascii() else None


def _fast_defs(kube_version: str, root: str) -> Definitions | None:
    if kube_version in _FAST_DEFS:
        return _FAST_DEFS[kube_version]
    from renderer.k8s.fastschema import Definitions, Unsupported

    path = os.path.join(
        root, "kubernetes-json-schema", schema_dir(kube_version), "_definitions.json"
    )
    # the version read last, as a guide: most of a release's definitions are those of
    # the one before, byte for byte (the index is the same whichever is given)
    before = next((v for v in reversed(list(_FAST_DEFS)) if _FAST_DEFS.get(v)), None)
    like = None if before is None else _FAST_DEFS.get(before)
    try:
        defs: Definitions | None = Definitions(read_schema_file(path), like)  # asks ASCII
    except (OSError, ValueError, Unsupported):
        defs = None
    if before is not None and defs is not None:
        _BEFORE[kube_version] = before
    _FAST_DEFS[kube_version] = defs
    return defs


def _fast(kube_version: str, kind: str, api_version: str) -> _Fast | object | None:
    """The compiled check for a kind, :data:`_ABSENT`, or None: use jsonschema.

    Reads the same files as kubernetes-validate, without importing it or jsonschema.
    A check is compiled once per schema closure (:func:`closure_digest`) and shared by
    the versions with that closure.
    """
    if not _KIND.match(kind) or not _API_VERSION.match(api_version):
        return None
    key = (kube_version, kind, api_version)
    with _LOCK:
        if key in _FAST:
            return _FAST[key]
        closure = closure_digest(kube_version, kind, api_version)
        found: _Fast | object | None
        if closure is not None and closure in _FAST_SHARED:
            found = _FAST_SHARED[closure]
        else:
            found = _compile_fast(kube_version, kind, api_version)
            if closure is not None and (found is None or isinstance(found, _Fast)):
                _FAST_SHARED[closure] = found
        _FAST[key] = found
        return found


def _kind_path(kube_version: str, kind: str, api_version: str) -> str | None:
    root = _schema_root()
    if root is None:
        return None
    return os.path.join(root, schema_file(kube_version, kind, api_version))


def _compile_fast(kube_version: str, kind: str, api_version: str) -> _Fast | object | None:
    import renderer.k8s.fastschema as fastschema  # see _closure

    root = _schema_root()
    path = _kind_path(kube_version, kind, api_version)
    if root is None or path is None:
        return None
    try:
        raw = _ascii(path)
    except FileNotFoundError:
        # the library's rule: a missing file in an existing directory is "no schema"
        return _ABSENT if os.path.exists(os.path.dirname(path)) else None
    defs = _fast_defs(kube_version, root)
    if raw is None or defs is None:
        return None
    try:
        check = fastschema.compile_schema(
            json.loads(raw), defs, _FAST_DEFINITIONS, lambda name: _reach(kube_version, name)
        )
    except (fastschema.Unsupported, ValueError, RecursionError):
        return None
    return _Fast(check)


def _path(error: jsonschema.ValidationError) -> str:
    from renderer.k8s.objects import key_path

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


def check_object(data: dict[str, Any], kube_version: str) -> list[Finding]:
    """Uncached check of one object on one Kubernetes version (no file/line)."""
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
    group = api_group(api_version)
    fast = _fast(kube_version, kind, api_version)
    validator: jsonschema.protocols.Validator | None = None
    if fast is not _ABSENT:
        if isinstance(fast, _Fast) and fast.passes(data):
            return []
        try:
            validator = validator_for(kube_version, kind, api_version)
        except SchemaUnavailable as exc:
            return [finding(ERROR, "", str(exc))]
    if validator is None:
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
                NOT_CHECKED, "", f"custom resource of {group or api_version}: not schema-checked"
            )
        ]
    from renderer.data.schemas import yaml_spelling  # here: jsonschema loads only when validating

    out: list[Finding] = []
    for e in validator.iter_errors(data):
        unknown = _unknown_fields(e)
        if unknown:
            base = _path(e)
            out.extend(
                finding(ERROR, f"{base}.{k}" if base else k, f"unknown field {k!r}")
                for k in unknown
            )
        else:
            out.append(finding(ERROR, _path(e), yaml_spelling(e.message)))
    return sorted(out, key=lambda f: (f.field, f.message))


# --- verdicts shared across Kubernetes versions and runs ---------------------------------

#: A finding without its object and Kubernetes version: (severity, path, message).
Row = list[str]
#: Schema closure digests ((kube version, kind, apiVersion) -> digest or None).
_CLOSURES: Memo[tuple[str, str, str], str | None] = Memo("k8s.schema.closures", _PER_KIND)
#: One definition's text number and references by its text (:meth:`Definitions.text`
#: -> entry): a version holds some 750 definitions, most of them the same text as the
#: version before, so each text is read for references once. Equal texts are one key,
#: and a number is never given twice (a text let go and met again gets a new one: the
#: versions holding it then share less, never wrongly), so within a process the number
#: stands for the text where a digest would.
_TEXT_NUMBERS = itertools.count()
_DEF_DIGESTS: Memo[bytes, tuple[str, tuple[str, ...]] | None] = Memo(
    "k8s.schema.definition_digests", 1024 * _PER_VERSION
)
#: Component digests by what they are made of ((the members' names and text numbers,
#: the digests of the components they reach) -> digest), and closure digests of kinds
#: ((the kind's schema text, the definitions' other members, the digests of what it
#: reaches) -> digest). A digest is a number given once, so within a process equal
#: digests are equal closures, as with :data:`_TEXT_NUMBERS` (and as cheap as a lookup).
_DIGEST_NUMBERS = itertools.count()
_COMPONENTS: Memo[tuple[tuple[str, ...], tuple[str, ...]], str] = Memo(
    "k8s.schema.components", 1024 * _PER_VERSION
)
_KIND_CLOSURES: Memo[tuple[bytes, bytes, tuple[str, ...]], str] = Memo(
    "k8s.schema.kind_closures", _PER_KIND
)


def _number(table: Memo[Any, str], key: Any) -> str:
    """The digest ``table`` gives ``key``: a new number the first time (or once let go:
    then less is shared, never wrongly)."""
    found = table.get(key)
    if found is None:
        found = table[key] = f"@{next(_DIGEST_NUMBERS)}"
    return found


#: Definitions' component digests (kube version -> name -> digest; "": not plain), one
#: table per version.
_REACH: Memo[str, dict[str, str]] = Memo("k8s.schema.definition_closures", _PER_VERSION)
#: Findings jsonschema gave an object under a schema closure ((closure, object digest)
#: -> rows), shared by the versions with that closure whose schema the library reads;
#: a release holds a few hundred objects.
_SHARED: Memo[tuple[str, str], list[Row]] = Memo("k8s.schema.shared_verdicts", 8192)
#: Objects the compiled check of a schema closure proved valid ((closure, object
#: digest) -> True): valid on every version with that closure.
_PASSED: Memo[tuple[str, str], bool] = Memo("k8s.schema.passed", 8192)


def closure_digest(kube_version: str, kind: str, api_version: str) -> str | None:
    """A digest of a kind's schema file and every definition it reaches, or None.

    Two Kubernetes versions with equal digests validate every object alike (the same
    schema text, the same definitions text, the same validator class), so a kind's
    check is compiled, and an object validated, once per distinct closure. It is
    computed from the files' bytes (:func:`renderer.k8s.fastschema.references`), with
    neither JSON parsing nor jsonschema, and holds only within this process (it names
    definition texts by number). None (no schema, an unreadable one, a
    reference of another form) means no sharing: that version is checked on its own.
    """
    if not _KIND.match(kind) or not _API_VERSION.match(api_version):
        return None
    key = (kube_version, kind, api_version)
    with _LOCK:
        if key in _CLOSURES:
            return _CLOSURES[key]
        result = _closure(kube_version, kind, api_version)
        _CLOSURES[key] = result
        return result


def _closure(kube_version: str, kind: str, api_version: str) -> str | None:
    # a module's own name: "from" a module that is not a package asks it for __path__,
    # an AttributeError worded and dropped on every call
    import renderer.k8s.fastschema as fastschema

    root = _schema_root()
    path = _kind_path(kube_version, kind, api_version)
    if root is None or path is None:
        return None
    try:
        raw = _ascii(path)
    except FileNotFoundError:
        return None
    defs = _fast_defs(kube_version, root) if raw is not None else None
    found = fastschema.references(raw, True) if raw is not None and defs is not None else None
    if defs is None or raw is None or found is None:
        return None
    _as_before(kube_version, defs, found)
    if not _components(kube_version, defs, found):
        return None
    keys = {_reach(kube_version, name) for name in found}
    if None in keys:
        return None
    return _number(_KIND_CLOSURES, (raw, defs.head_text, tuple(sorted(k for k in keys if k))))


def _entry(defs: Definitions, name: str) -> tuple[str, tuple[str, ...]] | None:
    """A definition's text, named by a number (the same text, the same number), and the
    names it refers to; None when there is none or a reference is not plain."""
    key = defs.text(name)
    if key is None:
        return None
    entry = _DEF_DIGESTS.get(key)
    if entry is None:  # not read yet, or not plain (then read again: rare)
        import renderer.k8s.fastschema as fastschema  # see _closure

        refs = fastschema.references(key, False)
        entry = None if refs is None else (f"#{next(_TEXT_NUMBERS)}", refs)
        _DEF_DIGESTS[key] = entry
    return entry


def _reach_table(kube_version: str) -> dict[str, str]:
    table = _REACH.get(kube_version)
    if table is None:
        table = _REACH[kube_version] = {}
    return table


def _as_before(kube_version: str, defs: Definitions, roots: Iterable[str]) -> None:
    """Give the definitions ``roots`` reach the component digests they have on the
    version ``defs`` were indexed by (:data:`_BEFORE`) where everything they reach is
    the same text there: the same closure, so the same digest :func:`_components`
    would give, without its work (a release changes a few definitions, not most).

    A text is the same when it is the same object (:meth:`Definitions.text` gives the
    text of an entry taken from the other file as that file's). A walk that meets a
    definition it is still inside (a cycle) stops: a definition is given a digest only
    once all it reaches is known to be the same, and :func:`_components` does the rest.
    """
    before = _BEFORE.get(kube_version)
    old_defs = None if before is None else _FAST_DEFS.get(before)
    old = None if before is None else _REACH.get(before)
    if old_defs is None or not old:
        return
    table = _reach_table(kube_version)
    same: dict[str, bool] = {}  # decided: whether all it reaches is the same text
    for root in roots:
        if root in table or root in same:
            continue
        # a walk of this version's references: (name, next reference, references,
        # whether all seen so far is the same text)
        work: list[tuple[str, int, tuple[str, ...], bool]] = []
        refs: tuple[str, ...] = ()
        name, i, ok = root, 0, True
        while True:
            if i == 0:  # entering name
                entry = _entry(defs, name)
                refs = () if entry is None else entry[1]
                ok = bool(entry and old.get(name)) and defs.text(name) is old_defs.text(name)
            while i < len(refs):
                ref = refs[i]
                i += 1
                known = table.get(ref)
                if known is not None:  # digested here: the same closure if the same digest
                    ok = ok and known == old.get(ref)
                elif ref in same:  # decided not the same (the same ones are in table)
                    ok = False
                elif ref == name or any(ref == w[0] for w in work):
                    return  # a cycle: left to _components
                else:
                    work.append((name, i, refs, ok))
                    name, i, refs = ref, 0, ()
                    break
            else:
                same[name] = ok
                if ok:
                    table[name] = old[name]
                if not work:
                    break
                name, i, refs, above = work.pop()
                ok = above and ok
                continue


def _components(kube_version: str, defs: Definitions, roots: Iterable[str]) -> bool:
    """Give every definition ``roots`` reach its component digest in :data:`_REACH`,
    False when one is not plain (see :meth:`renderer.k8s.fastschema.Definitions.entry`).

    A component is a set of definitions that reach each other (Tarjan's algorithm); its
    digest covers its members' names and text numbers (:func:`_entry`) and the digests
    of the components they refer to, so
    a definition's digest on two versions is equal only when it and everything it
    reaches are the same text. Components digested before are taken as they are.
    """
    entries: dict[str, tuple[str, tuple[str, ...]]] = {}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    done: set[str] = set()  # digested here
    table = _reach_table(kube_version)
    known = table.get  # digested here or before

    for root in roots:
        if root in index or known(root):
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            name, i = work[-1]
            if i == 0:
                entry = _entry(defs, name)
                if entry is None:
                    return False
                entries[name] = entry
                index[name] = low[name] = len(index)
                stack.append(name)
            refs = entries[name][1]
            if i < len(refs):
                work[-1] = (name, i + 1)
                ref = refs[i]
                if ref in index:
                    if ref not in done:  # on the stack: in this component or above it
                        low[name] = min(low[name], index[ref])
                    continue
                digest = known(ref)
                if digest is None:
                    work.append((ref, 0))
                elif not digest:
                    return False
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[name])
            if low[name] == index[name]:
                members = [stack.pop()]
                while members[-1] != name:
                    members.append(stack.pop())
                inside = set(members)
                below = {known(r) for m in members for r in entries[m][1] if r not in inside}
                if None in below:  # not digested: another thread's work, under way
                    return False
                component = _number(
                    _COMPONENTS,
                    (
                        tuple(f"{m}\n{entries[m][0]}" for m in sorted(members)),
                        tuple(sorted(str(d) for d in below)),
                    ),
                )
                done.update(members)
                for m in members:
                    table[m] = component
    return True


def _reach(kube_version: str, name: str) -> str | None:
    """What one definition's compiled check depends on: its name and component digest
    (:func:`_components`); None: not shared."""
    table = _reach_table(kube_version)
    found = table.get(name)
    if found is None:
        defs = _FAST_DEFS.get(kube_version)
        if defs is None or not _components(kube_version, defs, (name,)):
            table[name] = found = ""
        else:
            found = table.get(name)
    return f"{name}\n{found}" if found else None


def _library_reads(kube_version: str, kind: str, api_version: str) -> bool:
    """kubernetes-validate reads the kind's schema on this version: jsonschema's
    findings there are those of any version with the same closure."""
    try:
        return validator_for(kube_version, kind, api_version) is not None
    except SchemaUnavailable:
        return False


def _valid_rows(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(r, list)
        and len(r) == 3
        and r[0] in (ERROR, NOT_CHECKED)
        and all(isinstance(x, str) for x in r)
        for r in value
    )


def _rows(data: dict[str, Any], digest: str, kube_version: str) -> list[Row]:
    """An object's findings on one Kubernetes version: from another version with the
    same schema closure, or checked."""
    kind, api_version = _text(data.get("kind")), _text(data.get("apiVersion"))
    closure = closure_digest(kube_version, kind, api_version)
    if closure is not None:
        with _LOCK:
            if _PASSED.get((closure, digest)):
                return []
            shared = _SHARED.get((closure, digest))
        if shared is not None and _library_reads(kube_version, kind, api_version):
            return list(shared)
        fast = _fast(kube_version, kind, api_version)
        if isinstance(fast, _Fast) and fast.passes(data):
            with _LOCK:
                _PASSED[(closure, digest)] = True
            return []
    rows = [[f.severity, f.field, f.message] for f in check_object(data, kube_version)]
    if closure is not None and _library_reads(kube_version, kind, api_version):
        with _LOCK:
            _SHARED[(closure, digest)] = list(rows)
    return rows


#: Digests of the schema files a kind is checked with ((kube version, kind, apiVersion)
#: -> digest), read once per process: the bytes, never their stat, key the cache.
_SCHEMA_DIGESTS: Memo[tuple[str, str, str], str] = Memo("k8s.schema.digests", _PER_KIND)
_DEFINITIONS_DIGESTS: Memo[str, str] = Memo("k8s.schema.definitions_digests", _PER_VERSION)


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(read_schema_file(path)).hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"unreadable {exc.errno}"


def schema_digest(kube_version: str, kind: str, api_version: str) -> str:
    """A digest of the bytes of every schema file an object of ``kind`` is checked
    with on ``kube_version``: its kind's file and the version's ``_definitions.json``.
    An edited or replaced schema file moves every cached verdict that read it."""
    key = (kube_version, kind, api_version)
    found = _SCHEMA_DIGESTS.get(key)
    if found is not None:
        return found
    root = _schema_root() or ""
    try:
        folder = os.path.join(root, "kubernetes-json-schema", schema_dir(kube_version))
    except IndexError:
        return "no schemas"
    defs = _DEFINITIONS_DIGESTS.get(kube_version)
    if defs is None:
        defs = _DEFINITIONS_DIGESTS[kube_version] = _file_digest(
            os.path.join(folder, "_definitions.json")
        )
    own = "invalid name"
    if _KIND.match(kind) and _API_VERSION.match(api_version):
        own = _file_digest(os.path.join(root, schema_file(kube_version, kind, api_version)))
    found = _SCHEMA_DIGESTS[key] = f"{defs}:{own}"
    return found


def verdict_rows(data: dict[str, Any], digest: str, kube_versions: Sequence[str]) -> list[Row]:
    """An object's findings on every version (rows tagged with their version first),
    each version's kept in the result cache under the object and its schema files."""
    kind, api_version = _text(data.get("kind")), _text(data.get("apiVersion"))
    out: list[Row] = []
    for v in kube_versions:
        key = result_cache.key("schema", v, schema_digest(v, kind, api_version), digest)
        rows = result_cache.get("schema", key, _valid_rows)
        if rows is None:
            rows = _rows(data, digest, v)
            result_cache.put("schema", key, rows)
        out.extend([v, *row] for row in rows)
    return out


#: Objects a validator keeps findings for (a caller may hold one validator for a long
#: time; the persistent cache and the memos above still serve what it lets go).
RESULTS_PER_VALIDATOR = 4096


class SchemaValidator:
    """Validate objects against several Kubernetes versions; thread-safe, cached per object.

    Each distinct object (by its JSON, :func:`object_key`) is checked once per distinct schema
    closure, and its verdicts are kept in the persistent cache (:mod:`renderer.store.cache`).
    """

    def __init__(
        self, kube_versions: Sequence[str] | None = None, *, keep: int = RESULTS_PER_VALIDATOR
    ) -> None:
        self.kube_versions = resolve_kube_versions(kube_versions or ())
        #: Objects whose findings this validator keeps (oldest let go first).
        self.keep = keep
        self._results: dict[str, tuple[Finding, ...]] = {}
        self._lock = threading.Lock()

    def validate(self, obj: K8sObject | dict[str, Any]) -> list[Finding]:
        """Findings for ``obj`` on every configured version, located when it is a K8sObject."""
        from renderer.k8s.parse import K8sObject

        data = obj.data if isinstance(obj, K8sObject) else obj
        return self._located(obj, self._findings(data, object_key(data)))

    def validate_all(self, objects: Iterable[K8sObject]) -> list[Finding]:
        """Findings for many objects, sorted by Kubernetes version, file and line; the
        objects this validator has not seen are looked up (and kept) together
        (:func:`verdict_rows_many`)."""
        items = [(o, object_key(o.data)) for o in objects]
        out = [f for o, d in items for f in self._located(o, self._findings(o.data, d))]
        return sorted(out, key=schema_sort_key)

    def _findings(self, data: dict[str, Any], digest: str) -> tuple[Finding, ...]:
        """The findings of the object with ``digest``: kept by this validator, else from
        :func:`verdict_rows`."""
        with self._lock:
            cached = self._results.get(digest)
        if cached is None:
            cached = self._keep(digest, data, verdict_rows(data, digest, self.kube_versions))
        return cached

    def _keep(self, digest: str, data: dict[str, Any], rows: list[Row]) -> tuple[Finding, ...]:
        """The findings of ``rows``, remembered for the object with ``digest``."""
        kind, api_version, namespace, name = _strip(data)
        found = tuple(
            schema_finding(v, severity, kind, api_version, namespace, name, path, message)
            for v, severity, path, message in rows
        )
        with self._lock:
            self._results[digest] = found
            if len(self._results) > self.keep:  # oldest first
                del self._results[next(iter(self._results))]
        return found

    @staticmethod
    def _located(obj: K8sObject | dict[str, Any], found: tuple[Finding, ...]) -> list[Finding]:
        import renderer.k8s.parse as parse  # see _closure

        if isinstance(obj, parse.K8sObject):
            return [replace(f, file=obj.file, line=obj.field_line(f.field)) for f in found]
        return list(found)


def schema_sort_key(f: Finding) -> tuple[tuple[int, ...], str, int, str, str]:
    version = tuple(int(p) for p in f.kube_versions[0].split("."))
    return (version, f.file, f.line, f.field, f.message)


def errors(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == ERROR]
