"""The schema verb: the published JSON Schemas, each self-contained for a caller."""

from __future__ import annotations

from typing import Any

from renderer.data import schemas


def schema(name: str) -> dict[str, Any]:
    """Published JSON Schema ``name`` (``check-report``, see :func:`schema_names`) with
    its references to the other schemas inlined: ``jsonschema.validate(report,
    api.schema("check-report"))`` needs no registry and no schema files. An unknown
    name is an InputError naming the nearest."""
    return schemas.self_contained(name)


def schema_names() -> dict[str, str]:
    """The published schemas' names (``schema NAME`` takes them) and titles."""
    return schemas.schema_names()
