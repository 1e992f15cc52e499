"""The default command: render ``--version`` for ``--nodes`` to stdout or a directory,
with the Typha decision on stderr, after a strict schema check of what it renders."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from renderer.calico.policy import OPERATIONS
from renderer.cli.common import (
    config_keys,
    dedicated_note,
    emit,
    given_params,
    note,
    origins_for,
    version_or_config,
    warn,
)
from renderer.cli.options import (
    Decorator,
    PathType,
    config_option,
    kube_version_option,
    manifests_option,
    no_cache_option,
    nodes_file_option,
    render_timeout_option,
    repo_option,
    set_option,
    strict_option,
    values_option,
)
from renderer.errors import EXIT_CHECK_FAILED

if TYPE_CHECKING:
    from renderer.api import RenderResult
    from renderer.api.request import Request

RENDER_HELP = (
    "Render and gate BKE's Calico manifests.\n\n"
    "Without a command, renders --version for --nodes to stdout (or --output-dir), "
    "with the Typha decision on stderr. Rendered objects are schema-checked (strict) "
    "first; invalid output is not written and exits 1."
)

#: The render's options, in the order ``--help`` lists them.
_OPTIONS: tuple[Decorator, ...] = (
    click.option(
        "--version",
        "version",
        metavar="V",
        help="Calico version: v3.28.2, or v3.28 for the newest patch.",
    ),
    click.option(
        "--nodes", type=click.IntRange(min=1), metavar="N", help="Node count of the cluster."
    ),
    manifests_option,
    render_timeout_option,
    repo_option,
    set_option,
    values_option,
    click.option(
        "--operation",
        type=click.Choice(OPERATIONS),
        default="install",
        show_default=True,
        help="install, or upgrade/rollback of an existing cluster.",
    ),
    click.option(
        "--output-dir",
        type=PathType(file_okay=False, path_type=Path),
        help="Write one file per template into DIR.",
    ),
    click.option(
        "--no-validate",
        is_flag=True,
        help="Skip strict schema validation of the rendered objects.",
    ),
    kube_version_option,
    no_cache_option,
    config_option(
        "BKECluster/BKEConfig YAML: version, params and image prefix of the calico addon."
    ),
    nodes_file_option("BKENode objects (multi-document or a List): the node count (--nodes wins)."),
    strict_option,
)


def render_options(f: Any) -> Any:
    """Declare the render's options on the group (it renders without a subcommand)."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def render(
    ctx: click.Context,
    *,
    version: str | None,
    nodes: int | None,
    root: Path | None,
    repo: str | None,
    sets: tuple[str, ...],
    values_file: str | None,
    operation: str,
    output_dir: Path | None,
    no_validate: bool,
    kube_versions: tuple[str, ...],
    config: str | None,
    nodes_file: str | None,
    strict: bool,
) -> None:
    from renderer import api
    from renderer.api import request as requests_api
    from renderer.cli import requests

    gc.freeze()  # see :func:`renderer.cli.main`
    version_or_config(version, config)
    config_keys(strict, config, nodes_file)
    args = api.cluster_args(config, nodes_file, version=version, nodes=nodes, root=root, repo=repo)
    for message in args.notes:
        note(message)
    if args.skip:
        return
    if args.version is None or args.nodes is None:
        if args.version is None and args.nodes is None and not sets and values_file is None:
            click.echo(ctx.get_help())
            return
        raise click.UsageError(
            "rendering needs --version (or --config) and --nodes (or --nodes-file)"
        )
    if output_dir is None:  # what it prints depends only on what it reads: keep the run
        from renderer.store import invocation

        invocation.allow()
    kube = None if no_validate else requests_api.kube_versions(kube_versions, args)
    if kube is not None and kube.note:
        note(kube.note)
    request = api.Request.of(
        args.version,
        args.nodes,
        root=root,
        values_file=values_file,
        sets=sets,
        repo=repo,
        operation=operation,
        kube=kube,
        strict=strict,
        cluster=args,
    )
    from renderer.checks.verdict import aside_allowed

    with aside_allowed():  # a command line: the Typha verdict judged in a forked child
        result = api.render(request)
    _report(result, request)
    _injections(ctx, result)
    if config is not None and args.nodes:  # a real cluster's numbers: which limits it meets
        nodes_flag = ctx.get_parameter_source("nodes") is not click.core.ParameterSource.DEFAULT
        _scale_warnings(result, request, config, values_file, nodes_flag, nodes_file)
    _duplicates(ctx, result)
    if request.kube_versions:
        _validate(ctx, result, request.kube_versions)
    if output_dir is not None:
        for path in requests.write_render(output_dir, result):
            note(f"wrote {path}")
    else:
        emit(result.stream())


def _injections(ctx: click.Context, result: RenderResult) -> None:
    """The render's context findings on stderr. Values that changed the YAML their
    template wrote are errors: nothing is written (exit 1); ``template`` shows the bytes
    the controller would apply."""
    for f in result.findings:
        note(str(f))
    injected = [f for f in result.findings if f.severity == "error"]
    if injected:
        note(
            f"{len(injected)} value(s) change the YAML their template wrote; "
            "nothing written (calico-render template shows the bytes)"
        )
        ctx.exit(EXIT_CHECK_FAILED)


def _report(result: RenderResult, request: Request) -> None:
    """The render's warnings, then the Typha decision line, naming the tree, on stderr."""
    from renderer.manifests.tree import tree_label

    for message in result.warnings:
        warn(message)
    given_params(result.param_warnings, request.strict)
    from renderer.checks.verdict import readiness_warning

    readiness = readiness_warning(result.version, assess=False)
    if readiness:
        warn(f"{readiness}; see calico-render capability --version {result.version.name}")
    d = result.decision
    tree = tree_label(request.root)
    note(
        f"Calico {result.version.name} ({tree}): allowTypha={d.context()['allowTypha']} "
        f"typhaReplicas={d.context()['typhaReplicas']} ({d.reason})"
        + dedicated_note(request.inventory)
    )


def _scale_warnings(
    result: RenderResult,
    request: Request,
    config: str,
    values_file: str | None,
    nodes_flag: bool,
    nodes_file: str | None,
) -> None:
    """The scale limits a configured cluster exceeds (or nears), as warnings."""
    from renderer import api

    origins = origins_for(
        config=config,
        config_values=request.config_values,
        flag_values=request.given,
        values_file=values_file,
        nodes_flag=nodes_flag,
        nodes_file=nodes_file,
        max_pods_flag=False,
    )
    from renderer.output.findings import scale_line

    _, scale = api.scale_findings(result, origins=origins)
    for finding in scale:
        if finding.severity != "info":
            note(scale_line(finding))


def _duplicates(ctx: click.Context, result: RenderResult) -> None:
    """An object rendered twice is an error finding: nothing is written (exit 1)."""
    from renderer import api

    found = api.duplicate_findings(result)
    for f in found:
        note(str(f))
    if found:
        ctx.exit(EXIT_CHECK_FAILED)


def _validate(ctx: click.Context, result: RenderResult, kube: tuple[str, ...]) -> None:
    """Strict schema findings on stderr; an error means nothing is written (exit 1)."""
    from renderer import api
    from renderer.finding import merge_findings

    check = api.validate_render(result, kube)
    for f in merge_findings(check.findings):
        note(str(f))
    if not check.ok:
        note(check.summary())
        ctx.exit(EXIT_CHECK_FAILED)
