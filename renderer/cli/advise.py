"""``calico-render advise``: scale limits of a cluster, from the numbers its render uses."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from renderer import api
from renderer.calico import scale
from renderer.calico.policy import KUBERNETES_MAX_PODS
from renderer.cli.app import cli
from renderer.cli.common import config_keys, note, version_or_config, write_document
from renderer.cli.options import (
    config_option,
    format_option,
    manifests_option,
    nodes_file_option,
    set_option,
    strict_option,
    values_option,
)
from renderer.errors import EXIT_CHECK_FAILED
from renderer.manifests.tree import tree_label
from renderer.output.documents import AdviceDocument


@cli.command(
    help="Advise on the scale limits of a cluster from the numbers its render uses: pod "
    "addresses of the pool (error when it cannot hold nodes x max pods, warning above 80 %), "
    "IPAM blocks per node (warning when nodes must borrow), the BIRD BGP mesh (warning above "
    "100 nodes), Typha replicas and the Typha and calico-node resource requests (seed 003's "
    "guide). Exit 0 when no limit is exceeded, 1 when one is, 2 for bad input."
)
@click.option(
    "--version",
    "version",
    metavar="V",
    help="Calico version: v3.28.2, or v3.28 for the newest patch.",
)
@click.option("--nodes", type=click.IntRange(min=1), metavar="N", help="Node count of the cluster.")
@config_option("BKECluster/BKEConfig YAML: version, params and podSubnet of the calico addon.")
@nodes_file_option("BKENode objects: the node count (--nodes wins).")
@manifests_option
@set_option
@values_option
@click.option(
    "--max-pods",
    type=click.IntRange(min=1),
    default=KUBERNETES_MAX_PODS,
    show_default=True,
    metavar="N",
    help="Pods per node (kubelet maxPods).",
)
@strict_option
@format_option(AdviceDocument)
@click.pass_context
def advise(
    ctx: click.Context,
    version: str | None,
    nodes: int | None,
    config: str | None,
    nodes_file: str | None,
    root: Path | None,
    sets: tuple[str, ...],
    values_file: str | None,
    max_pods: int,
    strict: bool,
    fmt: str,
) -> None:
    version_or_config(version, config)
    config_keys(strict, config, nodes_file)
    args = api.cluster_args(config, nodes_file, version=version, nodes=nodes, root=root)
    for message in args.notes:
        note(message)
    if args.skip:
        write_document(fmt, AdviceDocument(no_advice(root, args.notes), skipped=True))
        return
    if args.version is None or args.nodes is None:
        raise click.UsageError("advise needs --version (or --config) and --nodes (or --nodes-file)")
    request = api.Request.of(
        args.version,
        args.nodes,
        root=root,
        values_file=values_file,
        sets=sets,
        strict=strict,
        cluster=args,
    )
    max_pods_given = ctx.get_parameter_source("max_pods") is not click.core.ParameterSource.DEFAULT
    report = api.advise(request, max_pods=max_pods, max_pods_given=max_pods_given)
    write_document(fmt, AdviceDocument(report))
    if not report.passed:
        ctx.exit(EXIT_CHECK_FAILED)


def no_advice(root: Path | None, notes: Sequence[str]) -> scale.AdviceReport:
    """The advice report of a cluster without Calico: nothing to advise on."""
    return scale.AdviceReport(None, tree_label(root), None, [], list(notes))
