"""The render's options as the group declares them."""

from __future__ import annotations

import inspect

import click

from renderer.cli import cli
from renderer.cli.render import render
from renderer.cli.render_flags import render_options


def test_the_group_takes_the_render_options_in_help_order() -> None:
    names = [p.name for p in cli.params if isinstance(p, click.Option)]
    assert names[:4] == ["version", "nodes", "root", "render_timeout"]
    assert len(names) == len(set(names))  # each option declared once


def test_render_options_declare_every_parameter_render_takes() -> None:
    @render_options
    def command(**params: object) -> None:
        """Stand-in."""

    declared = {p.name for p in command.__click_params__ if p.expose_value}
    taken = set(inspect.signature(render).parameters) - {"ctx"}
    assert declared == taken
