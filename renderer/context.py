"""Build the render context from defaults, a values file, ``--set`` and ``--repo``.

The context is validated against ``schemas/render-context.schema.json`` before
rendering, so a bad value stops with exit 2 naming the key, not deep inside a template.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import schemas
from .errors import InputError
from .policy import TYPHA_KEYS
from .yamlio import load_mapping_file, locate, read_text


def schema_defaults() -> dict[str, Any]:
    """The ``default`` of every top-level property of the render-context schema."""
    props = schemas.load_schema(schemas.RENDER_CONTEXT)["properties"]
    return {k: v["default"] for k, v in props.items() if "default" in v}


def parse_set(item: str) -> tuple[list[str], str]:
    """``KEY=VALUE`` or ``A.B=VALUE`` (nested). Values stay strings, as the controller's."""
    key, sep, value = item.partition("=")
    parts = key.split(".")
    if not sep or not key or any(not p for p in parts):
        raise InputError(f"expected KEY=VALUE, got {item!r}", key="--set")
    return parts, value


def set_path(ctx: dict[str, Any], parts: list[str], value: Any) -> None:
    node = ctx
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = value


def check_values_file(values: Mapping[str, Any], file: str) -> None:
    """Check each key of a values file against its property in the context schema, so a
    bad value names the file and line (the merged context no longer knows its source).
    Keys the policy sets (allowTypha, typhaReplicas) are replaced anyway and skipped."""
    schema = schemas.load_schema(schemas.RENDER_CONTEXT)
    for key in sorted(values):
        if key in TYPHA_KEYS:
            continue
        if key not in schema["properties"]:
            found = schemas.free_key_error(schemas.RENDER_CONTEXT, key, values[key])
            if found is not None:
                located = locate(read_text(file), 0, found[0]) if file != "-" else None
                raise InputError(
                    found[1], file=file, line=located, key=".".join(map(str, found[0]))
                )
            continue
        sub = schema["properties"][key]
        # the key's own rules and the tree-wide YAML-safety rule, refs resolvable
        checked = {"$defs": schema["$defs"], "allOf": [sub, {"$ref": "#/$defs/yamlSafe"}]}
        error = schemas.best_error_in(checked, values[key])
        if error is None:
            continue
        path = [key, *error.absolute_path]
        sub_key, message = schemas.describe(error)
        raise InputError(
            message,
            file=file,
            line=locate(read_text(file), 0, path) if file != "-" else None,
            key=f"{key}.{sub_key}" if sub_key else key,
        )


def user_values(values_file: str | Path | None = None, sets: Iterable[str] = ()) -> dict[str, Any]:
    """What the user asked for: values file first, then ``--set`` in order."""
    ctx: dict[str, Any] = {}
    if values_file is not None:
        values = load_mapping_file(values_file)
        check_values_file(values, str(values_file))
        ctx.update(copy.deepcopy(values))
    for item in sets:
        parts, value = parse_set(item)
        set_path(ctx, parts, value)
    return ctx


def build_context(
    user: Mapping[str, Any],
    *,
    typha: Mapping[str, str] | None = None,
    repo: str | None = None,
    defaults: bool = True,
) -> dict[str, Any]:
    """Layer defaults < user values < ``repo`` < Typha policy, then validate."""
    ctx: dict[str, Any] = schema_defaults() if defaults else {}
    ctx.update(copy.deepcopy(dict(user)))
    if repo is not None:
        ctx["repo"] = repo
    if typha is not None:
        ctx.update(typha)
    schemas.check_context(schemas.RENDER_CONTEXT, ctx, file="render context")
    return ctx
