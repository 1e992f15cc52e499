"""Keys BKE's objects do not define: a misspelled ``clusterconfig:`` or ``addon:`` in a
BKECluster is dropped by the API server, so the cluster silently gets no Calico addon.

Every BKECluster, BKEConfig and BKENode document of a file is compared with the field
names of BKE's CRDs, kept as our own schema (``schemas/bke-fields.schema.json``): a key
a closed object does not list is reported with its file, line and the nearest field
("did you mean"). Maps (addon params, ``customExtra``, ``extraArgs``) and ``metadata``
are open. The check is a pure walk of the loaded documents; the caller decides whether
an unknown key is a warning or, with ``--strict``, bad input.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renderer.bke.cluster import documents
from renderer.data import schemas
from renderer.k8s.objects import key_path
from renderer.k8s.yamlio import locate_in, positions

PathItem = str | int

SCHEMA = "bke-fields.schema.json"


@dataclass(frozen=True)
class UnknownKey:
    """A key the object's kind does not define."""

    file: str
    line: int | None
    kind: str
    path: str
    suggestion: str | None = None

    @property
    def key(self) -> str:
        return self.path

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        near = f" (did you mean {self.suggestion}?)" if self.suggestion else ""
        return (
            f"{where}: {self.path}: unknown key{near}: {self.kind} defines no such field, "
            "so BKE drops it"
        )


def _definitions() -> dict[str, Any]:
    defs: dict[str, Any] = schemas.load_schema(SCHEMA)["$defs"]
    return defs


def kinds() -> tuple[str, ...]:
    """The kinds whose keys are checked."""
    return tuple(sorted(_definitions()))


def _nearest(key: str, known: Sequence[str]) -> str | None:
    folded = {k.lower(): k for k in known}
    if key.lower() in folded:
        return folded[key.lower()]
    import difflib  # only when a key is unknown: a clean config never loads it

    near = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return near[0] if near else None


def _walk(
    value: Any, schema: dict[str, Any], path: list[PathItem]
) -> Iterator[tuple[list[PathItem], str | None]]:
    """(path, nearest known key) of every key ``schema`` does not define in ``value``."""
    if isinstance(value, dict) and "properties" in schema:
        props: dict[str, Any] = schema["properties"]
        for key, sub in value.items():
            name = str(key)
            if name in props:
                yield from _walk(sub, props[name], [*path, name])
            elif schema.get("additionalProperties") is False:
                yield [*path, name], _nearest(name, list(props))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from _walk(item, schema["items"], [*path, i])


def unknown_keys(
    documents: Sequence[tuple[int, list[PathItem], dict[str, Any]]], text: str, file: str
) -> list[UnknownKey]:
    """Unknown keys of the BKE objects among ``documents`` (index, key path prefix,
    object; Lists flattened) of ``text``."""
    defs = _definitions()
    found: list[tuple[int, list[PathItem], str, str | None]] = []
    for index, prefix, doc in documents:
        kind = doc.get("kind")
        if not isinstance(kind, str) or kind not in defs:
            continue
        for path, near in _walk(doc, defs[kind], []):
            found.append((index, [*prefix, *path], kind, near))
    if not found:
        return []
    found_at = positions(text)  # parsed again only when a key is unknown
    return [
        UnknownKey(file, locate_in(found_at, index, path), kind, key_path(path), near)
        for index, path, kind, near in found
    ]


def file_unknown_keys(path: str | Path) -> list[UnknownKey]:
    """:func:`unknown_keys` of the file at ``path`` (read as the loaders read it)."""
    text, docs = documents(path)
    return unknown_keys(docs, text, str(path))
