"""Differences between two objects' data (JSON-like values), at the paths a reader
finds them: ``spec.template.spec.containers[calico-node].env[FELIX_X].value``.

Two comparisons, for two questions. :func:`diff` is the semantic one fidelity asks
("what of upstream's object does ours miss, change or add?"): mappings by key, lists
of mappings by the field that names their items, other lists as multisets, a process's
``command`` and ``args`` exactly. :func:`diff_values` is the exact one goldens ask
("which leaf changed since review?"): every leaf, lists of named items by name, other
lists by position. Neither knows a kind or an addon.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: A path into a value: mapping keys and list indexes.
Parts = tuple[str | int, ...]

# --- the semantic diff (fidelity) -------------------------------------------------------


@dataclass(frozen=True)
class Diff:
    """One difference at ``path``: ``missing`` (upstream only), ``extra`` (ours only)
    or ``changed``."""

    path: str
    change: str
    upstream: Any = None
    ours: Any = None


#: Fields that identify an item of a list of mappings, tried in order.
_LIST_KEYS = ("name", "mountPath", "containerPort", "type")


#: Lists whose order and every item matter (a process's argv): any difference is a change.
_ORDERED = frozenset({"command", "args"})


def _list_key(a: list[Any], b: list[Any]) -> str | None:
    for key in _LIST_KEYS:
        ok = True
        for items in (a, b):
            values = [i.get(key) if isinstance(i, dict) else None for i in items]
            if any(v is None or isinstance(v, (dict, list)) for v in values):
                ok = False
                break
            if len(set(map(str, values))) != len(values):
                ok = False
                break
        if ok:
            return key
    return None


def canon(value: Any) -> str:
    """``value`` as compact JSON with sorted keys: equal values, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def diff(upstream: Any, ours: Any, path: str = "") -> Iterator[Diff]:
    """Every difference of ``ours`` from ``upstream``. Mappings by key (a null value is
    absent); lists of mappings by their identifying field (``[name]``); other lists as
    multisets (order ignored; only additions: extra; anything else: changed, whole lists
    shown), but ``command`` and ``args`` exactly."""
    if isinstance(upstream, dict) and isinstance(ours, dict):
        for k, v in upstream.items():
            if v is None:
                continue
            if ours.get(k) is None:
                yield Diff(_join(path, k), "missing", v, None)
            else:
                yield from diff(v, ours[k], _join(path, k))
        for k, v in ours.items():
            if v is not None and upstream.get(k) is None:
                yield Diff(_join(path, k), "extra", None, v)
        return
    if isinstance(upstream, list) and isinstance(ours, list):
        if upstream == ours:
            return
        key = _list_key(upstream, ours) if upstream and ours else None
        if key is not None:
            mine = {str(i[key]): i for i in ours}
            theirs = {str(i[key]): i for i in upstream}
            for name, item in theirs.items():
                where = f"{path}[{name}]"
                if name in mine:
                    yield from diff(item, mine[name], where)
                else:
                    yield Diff(where, "missing", item, None)
            for name, item in mine.items():
                if name not in theirs:
                    yield Diff(f"{path}[{name}]", "extra", None, item)
            return
        up_c, our_c = Counter(map(canon, upstream)), Counter(map(canon, ours))
        ordered = path.rsplit(".", 1)[-1] in _ORDERED
        if not ordered and up_c == our_c:
            return  # the same items in another order
        if not ordered and not up_c - our_c:
            extra = [json.loads(x) for x in (our_c - up_c).elements()]
            yield Diff(path, "extra", None, extra)
        else:
            yield Diff(path, "changed", upstream, ours)
        return
    if upstream != ours or type(upstream) is not type(ours):
        yield Diff(path, "changed", upstream, ours)


#: A step of a semantic diff's path: a key, or ``[x]`` naming a list item.
_STEP = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def path_parts(data: Any, path: str) -> Parts:
    """The keys and list indexes in ``data`` of the deepest part of ``path`` (a
    :func:`diff` path, items named ``[calico-node]`` by their identifying field) that
    ``data`` has: what locates the field in a rendered object."""
    parts: list[str | int] = []
    node = data
    for key, item in _STEP.findall(path):
        if key and isinstance(node, dict) and key in node:
            parts.append(key)
            node = node[key]
        elif not key and isinstance(node, list):
            index = next(
                (
                    i
                    for i, x in enumerate(node)
                    if isinstance(x, dict) and any(str(x.get(k)) == item for k in _LIST_KEYS)
                ),
                None,
            )
            if index is None:
                break
            parts.append(index)
            node = node[index]
        else:
            break
    return tuple(parts)


_LIMIT = 160


def show(value: Any) -> str:
    """A value as compact JSON, cut to a readable length."""
    text = canon(value)
    return text if len(text) <= _LIMIT else text[: _LIMIT - 3] + "..."


# --- the exact diff (goldens) -----------------------------------------------------------

#: The longest value a golden change shows (JSON, cut with "...").
MAX_VALUE = 120


@dataclass(frozen=True)
class Leaf:
    """One leaf difference of the exact diff: the path as reports print it, the old and
    new values shown (None: absent on that side), and ``at``, the deepest part of the
    path the new value has (the parts to locate the field in the new render by; list
    items by their index there)."""

    path: str
    old: str | None
    new: str | None
    at: Parts = ()


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def _key(path: str, name: str) -> str:
    """``path.name``, or ``path["a.b/c"]`` when the key is not a plain identifier."""
    if name.replace("_", "a").replace("-", "a").isalnum():
        return f"{path}.{name}" if path else name
    return f"{path}[{json.dumps(name)}]"


def _named(items: list[Any]) -> dict[str, Any] | None:
    """Items keyed by ``name`` when every item is a mapping with a unique string name."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    by_name = {i["name"]: i for i in items}
    return by_name if len(by_name) == len(items) else None


def leaf_changes(old: Any, new: Any, path: str = "", at: Parts = ()) -> list[Leaf]:
    """Every leaf difference of ``new`` from ``old``; lists of named items by name, other
    lists by position."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[Leaf] = []
        for k in sorted(set(old) | set(new), key=str):
            sub = _key(path, str(k))
            if k not in new:
                out.append(Leaf(sub, _show(old[k]), None, at))
            elif k not in old:
                out.append(Leaf(sub, None, _show(new[k]), (*at, str(k))))
            else:
                out.extend(leaf_changes(old[k], new[k], sub, (*at, str(k))))
        return out
    if isinstance(old, list) and isinstance(new, list):
        named_old, named_new = _named(old), _named(new)
        if named_old is not None and named_new is not None:
            index = {name: i for i, name in enumerate(named_new)}
            out = []
            for name in sorted(set(named_old) | set(named_new)):
                sub = f"{path}[name={name}]"
                if name not in named_new:
                    out.append(Leaf(sub, _show(named_old[name]), None, at))
                elif name not in named_old:
                    out.append(Leaf(sub, None, _show(named_new[name]), (*at, index[name])))
                else:
                    item = (*at, index[name])
                    out.extend(leaf_changes(named_old[name], named_new[name], sub, item))
            return out
        out = []
        for i in range(max(len(old), len(new))):
            sub = f"{path}[{i}]"
            if i >= len(new):
                out.append(Leaf(sub, _show(old[i]), None, at))
            elif i >= len(old):
                out.append(Leaf(sub, None, _show(new[i]), (*at, i)))
            else:
                out.extend(leaf_changes(old[i], new[i], sub, (*at, i)))
        return out
    if old == new and type(old) is type(new):
        return []
    return [Leaf(path, _show(old), _show(new), at)]


def diff_values(old: Any, new: Any, path: str = "") -> list[tuple[str, str | None, str | None]]:
    """(dotted path, old, new) for every leaf difference (:func:`leaf_changes`)."""
    return [(leaf.path, leaf.old, leaf.new) for leaf in leaf_changes(old, new, path)]


__all__ = [
    "Diff",
    "Leaf",
    "Parts",
    "canon",
    "diff",
    "diff_values",
    "leaf_changes",
    "path_parts",
    "show",
]
