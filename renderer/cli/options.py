"""Options several commands share, declared once so their names and help agree."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from renderer import api, output
from renderer.bke import admission
from renderer.cli import requests
from renderer.cli.common import REPORT, TREE_DEFAULT, tree_root
from renderer.engine.limits import DEFAULT_RENDER_TIMEOUT
from renderer.k8s.schema import DEFAULT_COUNT

if TYPE_CHECKING:  # the formats load with the commands that offer --format
    from renderer.output import Document

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class PathType(click.Path):
    """``click.Path`` that refuses an empty string: ``--output-dir ""`` would otherwise
    mean the current directory and ``--values ""`` an unnamed file."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str | bytes) and not value:
            self.fail("an empty path is not allowed", param, ctx)
        return super().convert(value, param, ctx)


def path_option(
    flag: str, dest: str | None = None, *, help: str, metavar: str | None = None, **path: Any
) -> Decorator:
    """An option naming a file or directory (``path`` as for :class:`click.Path`), never
    an empty string."""
    names = (flag,) if dest is None else (flag, dest)
    return click.option(*names, type=PathType(**path), metavar=metavar, help=help)


def stacked(*options: Decorator) -> Decorator:
    """Several options as one decorator, listed by ``--help`` in the order given."""

    def apply(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            func = option(func)
        return func

    return apply


def _tree_default(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    return tree_root(value)


manifests_option = click.option(
    "--manifests",
    "root",
    type=PathType(file_okay=False, path_type=Path),
    callback=_tree_default,
    help=f"ROOT holding kubernetes/calico/<version>/ (default: {TREE_DEFAULT}).",
)
repo_option = click.option(
    "--repo", metavar="PREFIX", help="Image registry prefix with a trailing slash."
)
set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set an addon param (repeatable; F.K=V reaches only the file named F, as the "
    "controller does; for 'template', A.B=V nests).",
)
values_option = click.option(
    "-f",
    "--values",
    "values_file",
    type=PathType(dir_okay=False, allow_dash=True),
    help="YAML/JSON file of context values (- for stdin).",
)


def _no_admission_defaults(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.call_on_close(admission.disable())


def config_option(help: str) -> Decorator:
    """``--config FILE|-``: a BKECluster/BKEConfig (what the command takes from it
    varies), and ``--no-admission-defaults`` to read it as written."""
    config = path_option("--config", dir_okay=False, allow_dash=True, help=help)
    as_written = click.option(
        "--no-admission-defaults",
        is_flag=True,
        expose_value=False,
        callback=_no_admission_defaults,
        help="Read --config as written: without the defaults BKE's admission webhook "
        "fills in before the controller reads it (imageRepo deploy.bocloud.k8s:40443/"
        "kubernetes, httpRepo, networking, versions, control plane endpoint).",
    )

    def decorate(f: Any) -> Any:
        return config(as_written(f))

    return decorate


def nodes_file_option(help: str) -> Decorator:
    """``--nodes-file FILE|-``: BKENode objects."""
    return path_option("--nodes-file", dir_okay=False, allow_dash=True, help=help)


strict_option = click.option(
    "--strict",
    is_flag=True,
    help="Exit 2 when a given param is read by no template of the version, or its value "
    "takes none of the branches the templates have (for CI).",
)
coverage_strict_option = click.option(
    "--strict",
    is_flag=True,
    help="A template branch no scenario renders is an error, not a warning, and so is a "
    "custom resource no CRD of the tree checks.",
)
kube_version_option = click.option(
    "--kube-version",
    "kube_versions",
    multiple=True,
    metavar="X.Y",
    help="Validate against Kubernetes X.Y (repeatable; default: the newest "
    f"{DEFAULT_COUNT} with bundled schemas).",
)


upstream_option = click.option(
    "--upstream",
    type=click.Path(path_type=Path),
    default=None,
    metavar="DIR",
    help="Also compare each version with upstream Calico's release manifests in "
    "DIR/<version>/ (calico.yaml, calico-typha.yaml, calico-vxlan.yaml), declared "
    "substitutions exempt.",
)


def _no_cache(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        requests.disable_cache()


no_cache_option = click.option(
    "--no-cache",
    is_flag=True,
    expose_value=False,
    callback=_no_cache,
    help="Do not read or write the result cache (env CALICO_RENDER_NO_CACHE=1).",
)


exceptions_option = path_option(
    "--exceptions",
    "exceptions_file",
    dir_okay=False,
    path_type=Path,
    metavar="FILE",
    help="Reviewed exceptions (default: ROOT/.calico-render.yaml when present; this "
    "file overrides it).",
)

#: What the version-check pipeline takes beside the tree, for ``check`` and
#: ``capability`` alike: upstream manifests (the fidelity stage) and reviewed exceptions.
pipeline_options = stacked(upstream_option, exceptions_option)


#: What each format is for, in ``--format``'s help.
FORMAT_HELP = {
    "text": "text for people",
    "json": "JSON, checked against its schema in schemas/",
    "junit": "JUnit XML for CI test reports",
    "sarif": "SARIF 2.1.0 for GitHub code scanning",
    "codequality": "GitLab Code Quality for merge-request annotations",
}


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Keep ``--format`` and ``--output`` of the running command, so a run that ends in
    bad input still writes its report (:func:`renderer.cli.common.failure_report`)."""
    if value is not None:
        REPORT[str(param.name)] = value
        REPORT["command"] = ctx.info_name or ""
    return value


def format_option(choices: type[Document] | Sequence[str] = ()) -> Decorator:
    """``--format``: the registered output formats that the command's document (a
    :class:`renderer.output.Document` subclass) supports, or explicit ``choices``."""
    if isinstance(choices, type):
        choices = output.names(choices)
    names = list(choices or output.names())
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(names),
        default="text",
        show_default=True,
        callback=_remember,
        help="Output format: "
        + "; ".join(f"{n}: {FORMAT_HELP[n]}" for n in names if n in FORMAT_HELP)
        + ".",
    )


output_option = click.option(
    "-o",
    "--output",
    type=PathType(dir_okay=False, path_type=Path),
    default=None,
    callback=_remember,
    metavar="FILE",
    help="Write the report to FILE instead of stdout (atomically); written even when "
    "the run ends in bad input (exit 2), then holding one finding of stage input.",
)


def _set_render_timeout(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    if value is not None:
        if not math.isfinite(value):  # FloatRange lets nan and inf through
            raise click.BadParameter(f"{value} is not a finite number of seconds", ctx, param)

        api.set_render_timeout(value)


render_timeout_option = click.option(
    "--render-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    expose_value=False,
    callback=_set_render_timeout,
    metavar="SECONDS",
    help=f"Wall-clock limit of one template render (default {DEFAULT_RENDER_TIMEOUT:g}).",
)
