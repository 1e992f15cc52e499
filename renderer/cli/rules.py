"""``calico-render rules``: every rule id, its stage and severity, and whether a reviewed
exception may name it (the list an exceptions file is checked against)."""

from __future__ import annotations

from renderer import api
from renderer.cli.app import cli
from renderer.cli.common import write_document
from renderer.cli.options import format_option
from renderer.output.rules import RulesDocument


@cli.command(
    help="List every rule id a finding can carry: its stage, severity and whether a "
    "reviewed exception (.calico-render.yaml) may skip or downgrade it."
)
@format_option(RulesDocument)
def rules(fmt: str) -> None:
    write_document(fmt, RulesDocument(api.rules()))
