"""Load the project's JSON Schemas and validate data against them at run time."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jsonschema

from .errors import InputError
from .resources import schema_path

RENDER_CONTEXT = "render-context.schema.json"
CAPABILITY_REPORT = "capability-report.schema.json"


@cache
def load_schema(name: str) -> dict[str, Any]:
    with open(schema_path(name), encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


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
    return key, yaml_spelling(error.message)


def best_error(name: str, data: Any) -> jsonschema.ValidationError | None:
    """The most relevant schema error of ``data``, or None when it is valid.

    Deterministic: errors are sorted by path and message before ``best_match``.
    """
    errors = sorted(validator(name).iter_errors(data), key=lambda e: (_path(e), e.message))
    return jsonschema.exceptions.best_match(errors) if errors else None


def best_error_in(schema: dict[str, Any], data: Any) -> jsonschema.ValidationError | None:
    """Like :func:`best_error` for a sub-schema (one property of a published schema)."""
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
