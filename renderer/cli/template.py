"""``calico-render template``: one template file with exactly the given context."""

from __future__ import annotations

import click

from renderer import api
from renderer.cli.app import cli
from renderer.cli.common import emit, warn
from renderer.cli.options import PathType, render_timeout_option, set_option, values_option


@cli.command(help="Render one template FILE with exactly the given context: no policy, no checks.")
@click.argument("file", type=PathType(dir_okay=False, allow_dash=True))
@values_option
@set_option
@render_timeout_option
@click.option(
    "--name",
    "template_name",
    default="calico",  # the addon name, as the controller names each file's template
    show_default=True,
    help="Template name, as {{define}}/{{template}} see it (the controller uses the addon name).",
)
@click.option(
    "--dialect",
    type=click.Choice(["go", "jinja2"]),
    help="Default: from the suffix (.j2 is jinja2, else go).",
)
def template(
    file: str,
    values_file: str | None,
    sets: tuple[str, ...],
    template_name: str,
    dialect: str | None,
) -> None:
    warnings: list[str] = []
    text = api.template(
        file,
        values_file=values_file,
        sets=sets,
        name=template_name,
        dialect=dialect,
        warnings=warnings,
    )
    for message in warnings:
        warn(message)
    emit(text)
