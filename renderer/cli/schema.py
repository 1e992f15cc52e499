"""``calico-render schema [NAME]``: a published JSON Schema, self-contained (its
references to the other schemas inlined), or the list of their names."""

from __future__ import annotations

import json

import click

from renderer import api
from renderer.cli.app import cli, emit


@cli.command(
    help="Print a published JSON Schema with its references inlined; without NAME, list "
    "them. NAME is a report's (check-report) or an input's (exceptions): the printed "
    "schema is self-contained, so any validator takes it as it is.",
    short_help="Print a published JSON Schema, self-contained, or list them.",
)
@click.argument("name", required=False)
def schema(name: str | None) -> None:
    if name is None:
        names = api.schema_names()
        width = max(map(len, names))
        emit("".join(f"{n:<{width}}  {title}\n" for n, title in names.items()))
        return
    emit(json.dumps(api.schema(name), indent=2) + "\n")
