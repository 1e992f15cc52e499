"""Build the render context from defaults, a values file, ``--set`` and ``--repo``.

The defaults are those of a render without a config (:func:`default_context`: BKE's
controller defaults plus bkeadm's calico params, see :mod:`renderer.bke.context`). The
context is validated against ``schemas/render-context.schema.json`` before rendering,
so a bad value stops with exit 2 naming the key, not deep inside a template.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from renderer.bke import TYPHA_KEYS
from renderer.bke import context as bke
from renderer.data import schemas
from renderer.errors import InputError
from renderer.k8s.gcpause import gc_paused
from renderer.k8s.yamlio import load_mapping_file, locate
from renderer.store.read import read_text


def default_context() -> dict[str, Any]:
    """The context of a render without a config and without user values (Typha keys
    excluded: the policy sets them)."""
    ctx: dict[str, Any] = {k: e.value for k, e in bke.controller_defaults().items()}
    ctx.update((k, v) for k, v in bke.BKEADM_CALICO_PARAMS if k not in TYPHA_KEYS)
    ctx["repo"] = ""
    return dict(sorted(ctx.items()))


def parse_set(item: str) -> tuple[list[str], str]:
    """``KEY=VALUE`` or ``A.B=VALUE`` (nested). Values stay strings, as the controller's."""
    key, sep, value = item.partition("=")
    parts = key.split(".")
    if not sep or not key or any(not p for p in parts):
        raise InputError(f"expected KEY=VALUE, got {item!r}", key="set", argument="set")
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


def key_error(key: str, value: Any) -> tuple[list[str | int], str] | None:
    """(path, message) when ``value`` breaks the context schema's rule for ``key`` (its
    own property, else the rule for free keys), else None: a wrong type, never a
    value's characters (the controller renders them; injections are findings)."""
    schema = schemas.load_schema(schemas.RENDER_CONTEXT)
    if key not in schema["properties"]:
        return schemas.free_key_error(schemas.RENDER_CONTEXT, key, value)
    error = schemas.best_error_in(schema["properties"][key], value)
    if error is None:
        return None
    sub_key, message = schemas.describe(error)
    return [key, *([sub_key] if sub_key else [])], message


def check_values_file(values: Mapping[str, Any], file: str) -> None:
    """Check each key of a values file against its property in the context schema, so a
    bad value names the file and line (the merged context no longer knows its source).
    Keys the policy sets (allowTypha, typhaReplicas) are replaced anyway and skipped.
    A string under a key without its own property passes here without a call: the
    schema's rule for free keys takes any string (200,000 keys, 200,000 calls)."""
    schema = schemas.load_schema(schemas.RENDER_CONTEXT)
    props = schema["properties"]
    free_strings = schemas.takes_any_string(schema["additionalProperties"])
    # the keys that pass without a call are left out before sorting: 200,000 keys were
    # sorted to find the first bad one among none
    rest = [
        key
        for key, value in values.items()
        if not (free_strings and isinstance(value, str) and key not in props)
    ]
    for key in sorted(rest):
        if key in TYPHA_KEYS:
            continue
        value = values[key]
        found = key_error(key, value)
        if found is not None:
            path, message = found
            line = locate(read_text(file), 0, path) if file != "-" else None
            raise InputError(message, file=file, line=line, key=".".join(map(str, path)))


def load_values(values_file: str | Path, warnings: list[str] | None = None) -> dict[str, Any]:
    """A values file; a key given twice keeps its last value (as Go's decoders keep it),
    with a warning in ``warnings`` naming both lines."""
    found: list[tuple[str, int, int]] = []
    values = load_mapping_file(values_file, found)
    for key, first, last in found:
        if warnings is not None:
            warnings.append(
                f"{values_file}:{last}: key {key!r} is given twice (lines {first} and {last}): "
                "the last value wins, as the controller's decoder keeps it"
            )
    return values


def user_values(
    values_file: str | Path | None = None,
    sets: Iterable[str] = (),
    *,
    key_rules: bool = True,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    """What the user asked for: values file first, then ``--set`` in order. Without
    ``key_rules`` (``template``: exactly the given context) a values file is not held
    to what each key of BKE's context may hold."""
    ctx: dict[str, Any] = {}
    if values_file is not None:
        values = load_values(values_file, warnings)
        if key_rules:
            check_values_file(values, str(values_file))
        ctx.update(_copy_values(values))
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
    ctx: dict[str, Any] = default_context() if defaults else {}
    ctx.update(copy.deepcopy(dict(user)))
    if repo is not None:
        ctx["repo"] = repo
    if typha is not None:
        ctx.update(typha)
    check_context(ctx, file="render context")
    return ctx


def check_context(ctx: dict[str, Any], *, file: str) -> None:
    """The render-context schema check (bad input, exit 2, naming the key)."""
    schemas.check_context(schemas.RENDER_CONTEXT, ctx, file=file)


class UserValues(NamedTuple):  # far cheaper to define than a frozen dataclass
    """A values file and ``KEY=VALUE`` settings, read and checked once.

    ``given`` is what the user asked for by key (a setting ``A.B=V`` nests, the values
    file first), which says where a value came from; ``params`` and ``nested`` are the
    same values as the context takes them: addon params (a key ``F.K`` is per file, as
    the controller treats a config's params) and the values file's maps, which go to
    every file as they are (a template such as ``{{ .ClusterCidr.Ipv6 }}`` needs one).
    """

    given: dict[str, Any]
    params: tuple[Any, ...]
    nested: dict[str, Any]


def read_user_values(
    values_file: str | Path | None = None,
    sets: Sequence[str] = (),
    warnings: list[str] | None = None,
) -> UserValues:
    """Read ``values_file`` once (``-``: stdin) and check it and ``sets``; warnings
    about the values file go to ``warnings``."""
    with gc_paused():  # a param and an entry per key, no cycles
        return _read_user_values(values_file, sets, warnings)


def _read_user_values(
    values_file: str | Path | None, sets: Sequence[str], warnings: list[str] | None
) -> UserValues:
    values: dict[str, Any] = {}
    if values_file is not None:
        values = load_values(values_file, warnings)
        check_values_file(values, str(values_file))
    given = _copy_values(values)
    for item in sets:
        parts, value = parse_set(item)
        set_path(given, parts, value)
    params, nested = _params(values_file, values, sets)
    return UserValues(given, params, nested)


def _params(
    values_file: str | Path | None, values: Mapping[str, Any], sets: Iterable[str]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    params: list[bke.Param] = []
    nested: dict[str, bke.Entry] = {}
    if values_file is not None:
        param, user = bke.Param, bke.USER
        for key, value in values.items():
            # most values are strings: judged by their class, not by isinstance on an ABC
            if value.__class__ is str:
                params.append(param(key, value, user, f"--values {key}"))
            elif isinstance(value, Mapping | list):
                nested[key] = bke.Entry(copy.deepcopy(value), user, f"--values {values_file}")
            else:
                params.append(param(key, _param_str(value), user, f"--values {key}"))
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {item!r}", key="set", argument="set")
        # checked here, naming the setting, not only in each file's context; a param that
        # reaches no file is still refused rather than carried into a warning
        name = key.split(".", 1)[1] if "." in key else key  # F.K sets K of file F
        found = None if name in TYPHA_KEYS else key_error(name, value)
        if found is not None:
            raise InputError(found[1], key=f"set {key}", argument="set", value=value)
        params.append(bke.Param(key, value, bke.USER, f"--set {key}"))
    return tuple(params), nested


def _copy_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """``copy.deepcopy(dict(values))`` with the scalars taken as they are (immutable):
    a values file of 200,000 keys took deepcopy's walk 400,000 calls. Containers share
    one memo, so values that were one object (YAML anchors) stay one."""
    memo: dict[int, Any] = {}
    out = dict(values)
    for k, v in values.items():
        if v.__class__ not in _SCALARS and isinstance(v, dict | list):
            out[k] = copy.deepcopy(v, memo)
    return out


#: Classes a values file's scalars have (judged by class first: 200,000 isinstance calls
#: on a union cost a quarter of a second).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _param_str(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
