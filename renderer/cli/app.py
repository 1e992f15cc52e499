"""The ``calico-render`` group; without a subcommand it renders a version."""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import click

from renderer import __version__
from renderer.calico.policy import OPERATIONS
from renderer.cli.options import (
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
from renderer.errors import EXIT_CHECK_FAILED, InputError

if TYPE_CHECKING:
    from renderer.bke import context as bke_context
    from renderer.bke.cluster import NodeInventory, RenderArgs
    from renderer.bke.unread import ParamWarning
    from renderer.calico import advise as advise_mod

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def origins_for(
    *,
    config: str | None,
    config_values: dict[str, str],
    flag_values: dict[str, object],
    values_file: str | None,
    nodes_flag: bool,
    nodes_file: str | None,
    max_pods_flag: bool,
) -> advise_mod.Origins:
    """Where each value of a request came from: config file, flags, or a default."""
    from renderer.calico import advise as advise_mod

    flags_where = "--set" if values_file is None else f"--values {values_file} / --set"
    if nodes_flag or nodes_file is None:
        nodes = (advise_mod.FLAG, "--nodes")
    else:
        nodes = (advise_mod.CONFIG, f"BKENodes of {nodes_file}")
    max_pods = (
        (advise_mod.FLAG, "--max-pods")
        if max_pods_flag
        else (advise_mod.KUBERNETES_DEFAULT, "kubelet maxPods")
    )
    return advise_mod.Origins.of(
        config=config_values,
        config_file=config or "",
        flags=flag_values,
        flags_where=flags_where,
        nodes=nodes,
        max_pods=max_pods,
    )


def emit(text: str) -> None:
    """Write ``text`` to stdout as UTF-8 bytes: PYTHONIOENCODING cannot change or break
    a manifest, and a lone byte of a Go template (a surrogate escape) is written as is."""
    data = text.encode("utf-8", "surrogateescape" if _escapable(text) else "backslashreplace")
    stream = sys.stdout
    stream.flush()
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream (an embedding application)
        stream.write(data.decode("utf-8", "replace"))
        return
    buffer.write(data)
    buffer.flush()


def _escapable(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def warn(message: str) -> None:
    click.echo(f"calico-render: warning: {message}", err=True)


def note(message: str) -> None:
    click.echo(f"calico-render: {message}", err=True)


def given_params(found: Sequence[ParamWarning], strict: bool, *, show: bool = True) -> None:
    """Print the warnings about given params; with ``--strict`` they are exit 2."""
    if show:
        for w in found:
            warn(str(w))
    if strict and found:
        keys = ", ".join(sorted({w.key for w in found}))
        raise InputError(
            f"{len(found)} given param(s) change nothing or take no branch: {keys}",
            key="--strict",
        )


def context_inputs(
    args: RenderArgs, repo: str | None, values_file: str | None, sets: tuple[str, ...]
) -> bke_context.ContextInputs:
    """The context's sources: the config's (``--repo`` wins over its imageRepo) or the
    defaults, then ``--values``/``--set`` as addon params."""
    from renderer.bke import context as bke_context
    from renderer.bke.values import user_params

    params, nested = user_params(values_file, sets)
    cluster = args.cluster
    if cluster is None or cluster.addon is None:
        return bke_context.without_config(repo=repo, params=params, nested=nested)
    nodes = cluster.inventory.nodes if cluster.inventory is not None else None
    return bke_context.for_config(
        cluster.config, cluster.addon, nodes, repo=repo, params=params, nested=nested
    )


def dedicated_note(inventory: NodeInventory | None) -> str:
    """Part of the decision line: BKENodes that may run no calico-node yet count."""
    if inventory is None or not inventory.dedicated:
        return ""
    return (
        f"; {inventory.dedicated} of {inventory.count} BKENodes are dedicated etcd/"
        "control-plane nodes without the node/master roles (they may run no calico-node; "
        "the controller counts every BKENode)"
    )


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that command is used.

    ``lazy`` maps a command name to the module (relative to this package) whose
    ``@cli.command`` defines it, so ``calico-render typha`` never imports the gate, the
    process pool or the schema validator. Commands registered by importing their module
    up front (the usual click way) keep working alongside.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            importlib.import_module(self.lazy[cmd_name], __package__)
            gc.freeze()  # see :func:`renderer.cli.main`
        return self.commands.get(cmd_name)


def _group(**kwargs: Any) -> Callable[[Callable[..., Any]], LazyGroup]:
    return click.group(cls=LazyGroup, **kwargs)


@_group(
    context_settings=CONTEXT_SETTINGS,
    invoke_without_command=True,
    help="Render and gate BKE's Calico manifests.\n\n"
    "Without a command, renders --version for --nodes to stdout (or --output-dir), "
    "with the Typha decision on stderr. Rendered objects are schema-checked (strict) "
    "first; invalid output is not written and exits 1.",
)
@click.option(
    "--version",
    "version",
    metavar="V",
    help="Calico version: v3.28.2, or v3.28 for the newest patch.",
)
@click.option("--nodes", type=click.IntRange(min=1), metavar="N", help="Node count of the cluster.")
@manifests_option
@render_timeout_option
@repo_option
@set_option
@values_option
@click.option(
    "--operation",
    type=click.Choice(OPERATIONS),
    default="install",
    show_default=True,
    help="install, or upgrade/rollback of an existing cluster.",
)
@click.option(
    "--output-dir",
    type=PathType(file_okay=False, path_type=Path),
    help="Write one file per template into DIR.",
)
@click.option(
    "--no-validate", is_flag=True, help="Skip strict schema validation of the rendered objects."
)
@kube_version_option
@no_cache_option
@config_option("BKECluster/BKEConfig YAML: version, params and image prefix of the calico addon.")
@nodes_file_option("BKENode objects (multi-document or a List): the node count (--nodes wins).")
@strict_option
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option(
    __version__, "--tool-version", prog_name="calico-render", message="%(prog)s %(version)s"
)
@click.pass_context
def cli(
    ctx: click.Context,
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
    debug: bool,
) -> None:
    if ctx.invoked_subcommand is not None:
        given = [
            p.opts[0]
            for p in ctx.command.params
            if p.name not in (None, "debug")
            and ctx.get_parameter_source(p.name) is not click.core.ParameterSource.DEFAULT
        ]
        if given:  # silently ignoring them could gate the wrong tree
            raise click.UsageError(
                f"{', '.join(given)} given before '{ctx.invoked_subcommand}' would be "
                "ignored; put the command's options after its name"
            )
        return
    from renderer import api
    from renderer.bke import context as bke_context
    from renderer.bke.cluster import render_args
    from renderer.bke.values import user_values
    from renderer.k8s.schema import resolve_kube_versions, shipped_versions
    from renderer.store.files import write_owned_tree

    gc.freeze()  # see :func:`renderer.cli.main`

    args = render_args(config, nodes_file, version=version, nodes=nodes, root=root, repo=repo)
    for message in args.notes:
        note(message)
    if args.skip:
        return
    version, nodes = args.version, args.nodes
    if version is None or nodes is None:
        if version is None and nodes is None and not sets and values_file is None:
            click.echo(ctx.get_help())
            return
        raise click.UsageError(
            "rendering needs --version (or --config) and --nodes (or --nodes-file)"
        )
    kube = () if no_validate else resolve_kube_versions(kube_versions)
    cluster_kube = args.cluster.config.kubernetes_version if args.cluster is not None else ""
    if kube and not kube_versions and cluster_kube:
        chosen, why = bke_context.kube_version_for(cluster_kube, shipped_versions())
        if chosen is not None:
            kube = (chosen,)
            note(why)
    flags = user_values(values_file, sets)
    result = api.render(
        version,
        nodes,
        root=root,
        operation=operation,
        inputs=context_inputs(args, repo, values_file, sets),
    )
    for message in result.warnings:
        warn(message)
    given_params(result.param_warnings, strict)
    readiness = api.readiness_warning(result.version, assess=False)
    if readiness:
        warn(readiness)
    d = result.decision
    note(
        f"Calico {result.version.name}: allowTypha={d.context()['allowTypha']} "
        f"typhaReplicas={d.context()['typhaReplicas']} ({d.reason})"
        + dedicated_note(args.inventory)
    )
    if config is not None:  # a real cluster's numbers: say which limits it meets
        origins = origins_for(
            config=config,
            config_values=args.user,
            flag_values=flags,
            values_file=values_file,
            nodes_flag=ctx.get_parameter_source("nodes") is not click.core.ParameterSource.DEFAULT,
            nodes_file=nodes_file,
            max_pods_flag=False,
        )
        from renderer.calico.advise import one_line

        _, scale = api.scale_findings(result, origins=origins)
        for finding in scale:
            if finding.severity != "info":
                warn(one_line(finding))
    if kube:
        from renderer.k8s.schema import finding_text

        check = api.validate_render(result, kube)
        for f in check.findings:
            note(finding_text(f))
        if not check.ok:
            note(check.summary())
            ctx.exit(EXIT_CHECK_FAILED)
    if output_dir is not None:
        written = write_owned_tree(
            output_dir, {f.name.split("/", 1)[1]: f.text for f in result.files}
        )
        for path in written:
            note(f"wrote {path}")
    else:
        emit(result.stream())
