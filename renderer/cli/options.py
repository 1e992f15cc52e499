"""Options several commands share, declared once so their names and help agree."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from .. import cache
from ..kubeschema import DEFAULT_COUNT

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

manifests_option = click.option(
    "--manifests",
    "root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="ROOT holding kubernetes/calico/<version>/ (default: the bundled tree).",
)
repo_option = click.option(
    "--repo", metavar="PREFIX", help="Image registry prefix with a trailing slash."
)
set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set a context key (repeatable; A.B=V nests).",
)
values_option = click.option(
    "--values",
    "values_file",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="YAML/JSON file of context values.",
)
kube_version_option = click.option(
    "--kube-version",
    "kube_versions",
    multiple=True,
    metavar="X.Y",
    help="Validate against Kubernetes X.Y (repeatable; default: the newest "
    f"{DEFAULT_COUNT} with bundled schemas).",
)


def _no_cache(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        cache.disable()


no_cache_option = click.option(
    "--no-cache",
    is_flag=True,
    expose_value=False,
    callback=_no_cache,
    help="Do not read or write the result cache (env CALICO_RENDER_NO_CACHE=1).",
)


def format_option(choices: Sequence[str] = ("text", "json")) -> Decorator:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default="text",
        show_default=True,
        help="Output format.",
    )
