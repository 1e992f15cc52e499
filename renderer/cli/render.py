"""The default command: render ``--version`` for ``--nodes`` to stdout or a directory,
with the Typha decision on stderr, after a strict schema check of what it renders.

Its options are declared on the group (:mod:`renderer.cli.render_flags`); this module
does not import click, so that :mod:`renderer.cli.quick` can run it without."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

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
from renderer.errors import EXIT_CHECK_FAILED

if TYPE_CHECKING:
    from renderer.api import RenderResult
    from renderer.api.request import Request


class Invocation(Protocol):
    """What the render asks of the command line that runs it: click's context, or
    :class:`renderer.cli.quick.Plain`."""

    def exit(self, code: int = 0) -> NoReturn: ...

    def get_help(self) -> str: ...

    def get_parameter_source(self, name: str) -> Any: ...


def render(
    ctx: Invocation,
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
        import click  # only click's own command line gets here (quick needs both)

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
    from renderer.k8s.parse import noting_json

    # the objects are only read until checked: the check keys them by their parse's JSON
    with noting_json():
        if config is not None and args.nodes:  # a real cluster's numbers: which limits it meets
            from click.core import ParameterSource  # --config is read by click's command line

            nodes_flag = ctx.get_parameter_source("nodes") is not ParameterSource.DEFAULT
            _scale_warnings(result, request, config, values_file, nodes_flag, args.nodes_file)
        _duplicates(ctx, result)
        if request.kube_versions:
            _validate(ctx, result, request.kube_versions)
    if output_dir is not None:
        for path in requests.write_render(output_dir, result):
            note(f"wrote {path}")
    else:
        emit(result.stream())


def _injections(ctx: Invocation, result: RenderResult) -> None:
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


def _duplicates(ctx: Invocation, result: RenderResult) -> None:
    """An object rendered twice is an error finding: nothing is written (exit 1)."""
    from renderer import api

    found = api.duplicate_findings(result)
    for f in found:
        note(str(f))
    if found:
        ctx.exit(EXIT_CHECK_FAILED)


def _validate(ctx: Invocation, result: RenderResult, kube: tuple[str, ...]) -> None:
    """Strict schema findings on stderr; an error means nothing is written (exit 1)."""
    from renderer import api
    from renderer.finding import merge_findings

    check = api.validate_render(result, kube)
    for f in merge_findings(check.findings):
        note(str(f))
    if not check.ok:
        note(check.summary())
        ctx.exit(EXIT_CHECK_FAILED)
