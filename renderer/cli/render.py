"""The render command (the default, and ``calico-render render``): flags to a request,
:func:`renderer.api.verbs.render`, and its result printed.

Text form: the manifest on stdout (or one file per template in ``--output-dir``), what
the render decided and found on stderr. ``--format json``: the result as JSON on
stdout (``schemas/render-result.schema.json``), the manifest only in ``--output-dir``.
The exit code is the result's: nothing is written when it is not 0.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from renderer import api
from renderer.cli import requests
from renderer.cli.common import (
    config_keys,
    echo_err,
    emit,
    note,
    version_or_config,
    write_document,
)
from renderer.errors import EXIT_REFUSED, InputError, RefusedError
from renderer.manifests.tree import tree_label
from renderer.output.render_result import RenderDocument

if TYPE_CHECKING:
    from renderer.output.listed import ListedRenderDocument


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
    addons: tuple[str, ...] = (),
    fmt: str = "text",
) -> None:
    version_or_config(version, config)
    config_keys(strict, config, nodes_file)
    if addons and config is None:
        raise InputError("needs --config (the addons a BKECluster lists)", key="--addon")
    if config is not None:
        _render_listed(
            ctx,
            config,
            addons=addons,
            nodes_file=nodes_file,
            nodes=nodes,
            root=root,
            repo=repo,
            operation=operation,
            kube=None if no_validate else kube_versions,
            strict=strict,
            values_file=values_file,
            sets=sets,
            output_dir=output_dir,
            fmt=fmt,
        )
        return
    args = api.cluster_args(config, nodes_file, version=version, nodes=nodes, root=root, repo=repo)
    if args.skip:
        for message in args.notes:
            note(message)
        return
    if args.version is None or args.nodes is None:
        if args.version is None and args.nodes is None and not sets and values_file is None:
            click.echo(ctx.get_help())
            return
        raise click.UsageError(
            "rendering needs --version (or --config) and --nodes (or --nodes-file)"
        )
    kube = None if no_validate else api.kube_versions(kube_versions, args)
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
        # a config, or an operation asked for, stands for what production applies
        controller=config is not None
        or ctx.get_parameter_source("operation") is not click.core.ParameterSource.DEFAULT,
    )
    try:
        result = api.render(request)
    except RefusedError as exc:
        if fmt != "json":
            raise
        route = api.plan_route(
            request.version, request.node_count, request.operation, request.controller
        )
        document = RenderDocument(
            tree_label(root),
            request.version.name,
            request.node_count,
            route,
            notes=request.notes,
            exit_code=EXIT_REFUSED,
        )
        write_document(fmt, document)
        echo_err(f"calico-render: error: {exc}")
        ctx.exit(EXIT_REFUSED)
    written: list[Path] = []
    if result.exit_code == 0 and output_dir is not None:
        written = requests.write_render(output_dir, result)
    document = RenderDocument.of(result, tree_label(root), _digests(written))
    _answer(ctx, fmt, document, result.stream(), result.exit_code, output_dir)


def _digests(written: list[Path]) -> dict[str, str]:
    """Each file written, by path, with the SHA-256 of its bytes."""
    return {str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in written}


def _answer(
    ctx: click.Context,
    fmt: str,
    document: RenderDocument | ListedRenderDocument,
    stream: str,
    code: int,
    output_dir: Path | None,
) -> None:
    """The document as JSON on stdout; or its text on stderr, the files written named,
    and the manifests on stdout when nothing stopped them and no directory took them."""
    if fmt == "json":
        write_document(fmt, document)
    else:
        echo_err(document.text().rstrip("\n"))
        for shown in document.written or {}:
            note(f"wrote {shown}")
        if code == 0 and output_dir is None:
            emit(stream)
    ctx.exit(code)


def _render_listed(
    ctx: click.Context,
    config: str,
    *,
    output_dir: Path | None,
    fmt: str,
    root: Path | None,
    **options: Any,
) -> None:
    """Every addon ``config`` lists (or ``--addon``), in the controller's order: the
    manifests on stdout (or ``DIR/<addon>/<version>/``), what each decided and found on
    stderr, or one JSON document."""
    # here: a version's render (the start-up budget) loads neither this document nor
    # the role model its images need
    from renderer.output.listed import ListedRenderDocument

    result = api.render_listed(config, root=root, **options)
    written: list[Path] = []
    if result.exit_code == 0 and output_dir is not None:
        written = requests.write_listed(output_dir, result)
    document = ListedRenderDocument(tree_label(root), result, _digests(written))
    _answer(ctx, fmt, document, result.stream(), result.exit_code, output_dir)
