"""Load the project's JSON Schemas and validate data against them at run time, and give
each one self-contained (its references to the others inlined) to callers.

Each file's ``$id`` is its own file name, relative: a validator that loads a schema
from the directory resolves ``finding.schema.json#/$defs/toolVersion`` to the file
beside it, and :func:`registry` keys the schemas by the same names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from renderer.data.bundled import schema_path
from renderer.data.fastschema import Check, Compiler, certainly_valid
from renderer.errors import InputError

if TYPE_CHECKING:  # imported when first used: a command printing text never loads it
    import jsonschema
    from referencing import Registry

#: Schemas more than one module names: the library checks its output against them and
#: the documents of :mod:`renderer.output` declare them.
RENDER_CONTEXT = "render-context.schema.json"
CAPABILITY_REPORT = "capability-report.schema.json"
PLAN = "plan.schema.json"
ADVISE_REPORT = "advise-report.schema.json"
#: The one finding shape every report refers to.
FINDING = "finding.schema.json"
EXPLAIN_CONTEXT = "explain-context.schema.json"
IMAGE_LOCK = "image-lock.schema.json"
IMAGES_REGISTRY = "images-registry.schema.json"


@cache
def load_schema(name: str) -> dict[str, Any]:
    with open(schema_path(name), encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


@cache
def registry() -> Registry:
    """Our schemas by their ``$id`` (their file names), so one may refer to another
    (every report schema refers to :data:`FINDING`)."""
    from referencing import Registry, Resource

    resources = []
    for name in schema_files():
        schema = load_schema(name)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


SUFFIX = ".schema.json"


@cache
def schema_files() -> tuple[str, ...]:
    """The file names of our schemas, sorted."""
    return tuple(sorted(p.name for p in schema_path(FINDING).parent.glob("*" + SUFFIX)))


def schema_names() -> dict[str, str]:
    """Each schema's name (its file name without ``.schema.json``) and title."""
    names = {n[: -len(SUFFIX)]: str(load_schema(n).get("title", "")) for n in schema_files()}
    return dict(sorted(names.items()))


def schema_file(name: str) -> str:
    """The file of schema ``name`` (``check-report`` or ``check-report.schema.json``);
    an unknown name is an InputError naming the nearest known one."""
    file = name if name.endswith(SUFFIX) else name + SUFFIX
    if file in schema_files():
        return file
    import difflib  # for this error only: a render must not load it

    known = list(schema_names())
    near = difflib.get_close_matches(name.removesuffix(SUFFIX), known, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]}? " if near else ""
    raise InputError(
        f"no schema named {name!r}; {hint}known: {', '.join(known)}",
        argument="name",
        value=name,
    )


def self_contained(name: str) -> dict[str, Any]:
    """Schema ``name`` with every reference to another of our schemas inlined: each
    target is copied once into ``$defs`` (``finding.schema.json#/$defs/summary`` as
    ``finding.$defs.summary``, a whole file by its name) and referred to locally, so
    ``jsonschema.validate(report, schema)`` needs no registry and no files."""
    root = schema_file(name)
    added: dict[str, Any] = {}

    def local(ref: str, doc: str) -> str:
        target, _, fragment = ref.partition("#")
        file = target or doc
        if file == root:
            return "#" + fragment
        tokens = [_unescape(t) for t in fragment.split("/") if t]
        key = ".".join([file[: -len(SUFFIX)], *tokens])
        if key not in added:
            added[key] = True  # a reference back to it while it is copied finds it
            added[key] = walk(_pointer(load_schema(file), tokens, ref), file, top=not tokens)
        return "#/$defs/" + _escape(key)

    def walk(node: Any, doc: str, top: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(item, doc) for item in node]
        if not isinstance(node, dict):
            return node
        return {
            k: local(v, doc) if k == "$ref" and isinstance(v, str) else walk(v, doc)
            for k, v in node.items()
            if not (top and k in ("$id", "$schema"))
        }

    out: dict[str, Any] = walk(load_schema(root), root)  # a copy: walk builds anew
    if added:
        out["$defs"] = {**out.get("$defs", {}), **added}
    return out


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _pointer(schema: Any, tokens: list[str], ref: str) -> Any:
    """The part of ``schema`` a JSON pointer names; a pointer to nothing is our bug."""
    node = schema
    for token in tokens:
        if isinstance(node, list) and token.isdigit():
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            raise AssertionError(f"schema reference {ref!r} names nothing")
    return node


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    import jsonschema

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER, registry=registry())


def _path(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path)


_PY_WORDS = {"True": "true", "False": "false", "None": "null"}
_QUOTED_OR_WORD = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\b(?:True|False|None)\b")


def yaml_spelling(message: str) -> str:
    """``message`` with Python's ``True``/``False``/``None`` spelled as YAML and JSON do
    (``true``, ``false``, ``null``), outside quoted strings: users wrote YAML."""
    return _QUOTED_OR_WORD.sub(lambda m: _PY_WORDS.get(m.group(0), m.group(0)), message)


def yaml_repr(value: object) -> str:
    """A value as a message quotes it: strings quoted, ``true``/``null`` as in YAML."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return yaml_spelling(repr(value))


def describe(error: jsonschema.ValidationError) -> tuple[str, str]:
    """(key path, short message) for one schema error, phrased for the user."""
    key = _path(error)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "enum":
        allowed = ", ".join(json.dumps(v) for v in schema.get("enum", []))
        return key, f"{yaml_repr(error.instance)} is not allowed; allowed: {allowed}"
    if error.validator == "pattern":
        hint = schema.get("description", "")
        return key, f"{yaml_repr(error.instance)} is not valid" + (
            f": {hint.rstrip('.')}" if hint else ""
        )
    if error.validator == "required" and isinstance(error.message, str):
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        why = schema.get("description")
        return (f"{key}.{missing}" if key else missing), f"is required ({why})" if why else (
            "is required"
        )
    if error.validator == "not" and schema.get("description"):
        return key, f"{yaml_repr(error.instance)} is not allowed: {schema['description']}"
    if error.validator == "type" and schema.get("description"):
        wanted = " or ".join(json.dumps(t) for t in _listed(schema.get("type")))
        return key, (
            f"{yaml_repr(error.instance)} is not of type {wanted}: {schema['description']}"
        )
    return key, yaml_spelling(error.message)


def _listed(types: Any) -> list[Any]:
    return types if isinstance(types, list) else [types]


def best_error(name: str, data: Any) -> jsonschema.ValidationError | None:
    """The most relevant schema error of ``data``, or None when it is valid.

    Deterministic: errors are sorted by path and message before ``best_match``.
    """
    import jsonschema

    errors = sorted(validator(name).iter_errors(data), key=lambda e: (_path(e), e.message))
    return jsonschema.exceptions.best_match(errors) if errors else None


def best_error_in(schema: dict[str, Any], data: Any) -> jsonschema.ValidationError | None:
    """Like :func:`best_error` for a sub-schema (one property of a published schema)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    errors = sorted(cls(schema).iter_errors(data), key=lambda e: (_path(e), e.message))
    return jsonschema.exceptions.best_match(errors) if errors else None


def check(name: str, data: Any, *, file: str | None = None) -> None:
    """Raise InputError naming the most relevant offending key."""
    best = best_error(name, data)
    if best is not None:
        key, message = describe(best)
        raise InputError(message, file=file, key=key or None)


def validate_output(name: str, data: Any) -> None:
    """Assert our own output meets its published schema; a failure is our bug."""
    errors = list(validator(name).iter_errors(data))
    if errors:
        raise AssertionError(f"output does not match {name}: {errors[0].message}")


# --- the render context: linear in the number of keys ----------------------------------


def takes_any_string(sub: Any) -> bool:
    """True when schema ``sub`` only restricts the type and allows a string: any
    string passes it (see :func:`free_key_error`)."""
    if not isinstance(sub, dict) or not set(sub) <= {"description", "type"}:
        return False
    types = sub.get("type")
    return "string" in ({types} if isinstance(types, str) else set(types or ()))


def _trivially_passes(sub: Any, value: Any) -> bool:
    """True when ``sub`` only restricts the type and a string of an allowed type is
    given: no need to build a validator for it."""
    return isinstance(value, str) and takes_any_string(sub)


def strings(value: Any) -> Iterator[tuple[list[str | int], str]]:
    """Every string of ``value`` (nested values and map keys) with its path."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            yield path, node
        elif isinstance(node, dict):
            for key, item in node.items():
                if isinstance(key, str):
                    yield path, key
                stack.append((item, [*path, key]))
        elif isinstance(node, list):
            stack.extend((item, [*path, i]) for i, item in enumerate(node))


def free_key_error(name: str, key: str, value: Any) -> tuple[list[str | int], str] | None:
    """(path, message) when ``value`` of a key without its own property breaks schema
    ``name``, else None. A plain string passes without a validator, so a context of
    400,000 keys does not build 400,000 validators."""
    schema = load_schema(name)
    sub = schema["additionalProperties"]
    if _trivially_passes(sub, value):
        return None
    error = best_error_in(sub, value)
    if error is None:
        return None
    return [key, *error.absolute_path], describe(error)[1]


def check_context(name: str, data: dict[str, Any], *, file: str | None = None) -> None:
    """:func:`check` for a context: the keys with their own property (and the rules
    across them) by the full schema, every other key by :func:`free_key_error`.
    Same verdicts, linear time. A context :func:`certainly_valid_as` judges valid skips
    jsonschema (and loading it); anything else, and every error, is jsonschema's."""
    if certainly_valid_as(name, data):
        return
    props = load_schema(name)["properties"]
    check(name, {k: v for k, v in data.items() if k in props}, file=file)
    for key in sorted(k for k in data if k not in props):
        found = free_key_error(name, key, data[key])
        if found is not None:
            path, message = found
            raise InputError(message, file=file, key=".".join(str(p) for p in path))


# --- the compiled check (renderer.data.fastschema) -------------------------------------


@cache  # no arguments: one value per process
def _by_uri() -> dict[str, dict[str, Any]]:
    """Our schemas by their ``$id``, as :func:`registry` keys them."""
    return {load_schema(n)["$id"]: load_schema(n) for n in schema_files()}


@cache  # no arguments: one value per process
def _compiler() -> Compiler:
    """The compiler of our schemas, which may refer to each other (read only when one
    does); their validators assert formats, so a format is "not sure" there."""
    return Compiler(lambda uri: _by_uri().get(uri), formats=True)


@cache
def _compiled(name: str) -> Check:
    return _compiler().compile(load_schema(name))


def certainly_valid_as(name: str, data: Any) -> bool:
    """True only when ``data`` certainly meets our schema ``name``: jsonschema would
    report no error. False means invalid or not known: the caller asks jsonschema, which
    words every error. Checking 20,000 BKENodes this way takes a fraction of a second;
    jsonschema took seconds."""
    return certainly_valid(_compiled(name), data)
