"""Subcommands: template, typha, versions (each importing what it needs when run)."""

from __future__ import annotations

from pathlib import Path

import click

from renderer.calico import policy
from renderer.cli.app import cli, emit, warn
from renderer.cli.options import (
    PathType,
    format_option,
    manifests_option,
    no_cache_option,
    render_timeout_option,
    set_option,
    values_option,
)
from renderer.errors import CalicoRenderError


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
    from renderer.bke.values import user_values
    from renderer.engine.compile import compile_source
    from renderer.k8s.yamlio import read_text
    from renderer.manifests.tree import DIALECTS

    context = user_values(values_file, sets, key_rules=False)
    chosen = dialect or DIALECTS.get(Path(file).suffix, "go")
    compiled = compile_source(read_text(file), file, chosen, template_name=template_name)
    emit(compiled.render(context))


@cli.command(help="Explain the Typha decision for --nodes, or print the boundary table.")
@click.option("--nodes", type=click.IntRange(min=1), metavar="N")
@format_option()
def typha(nodes: int | None, fmt: str) -> None:
    if fmt == "json":
        from renderer.output import summaries

        emit(summaries.dumps(summaries.TYPHA, summaries.typha_doc(nodes)) + "\n")
        return
    if nodes is not None:
        d = policy.decide_typha(nodes)
        for message in d.warnings:
            warn(message)
        click.echo(f"nodes:         {d.nodes}")
        click.echo(f"allowTypha:    {d.context()['allowTypha']}")
        click.echo(f"typhaReplicas: {d.context()['typhaReplicas']}")
        click.echo(f"why:           {d.reason}")
        return
    click.echo(f"{'nodes':>6}  {'allowTypha':<10}  typhaReplicas")
    for n in policy.BOUNDARY_TABLE:
        d = policy.decide_typha(n)
        mark = "  (capped: capacity assessment needed)" if d.warnings else ""
        click.echo(f"{n:>6}  {d.context()['allowTypha']:<10}  {d.replicas}{mark}")


@cli.command(help="List the Calico versions under ROOT with their Typha capability.")
@manifests_option
@render_timeout_option
@no_cache_option
@click.option("--keys", is_flag=True, help="Also list the context keys each version reads.")
@format_option()
def versions(root: Path | None, keys: bool, fmt: str) -> None:
    from renderer.calico.capability import assess_capability
    from renderer.engine.render import version_keys
    from renderer.manifests.tree import list_versions
    from renderer.output import summaries

    found = list_versions(root)  # bad ROOT fails before anything is printed
    if fmt == "json":
        entries = []
        for v in found:
            try:
                cap, error = assess_capability(v), None
            except CalicoRenderError as exc:
                cap, error = None, str(exc)
            entries.append(
                summaries.version_entry(v, cap, error, sorted(version_keys(v)) if keys else None)
            )
        doc = summaries.versions_doc(str(root) if root is not None else None, entries)
        emit(summaries.dumps(summaries.VERSIONS, doc) + "\n")
        return
    click.echo(f"{'version':<10} {'dialect':<7} {'typha':<11} files")
    for v in found:
        files = ", ".join(f.name for f in v.files)
        try:
            cap = assess_capability(v)
            typha = "capable" if cap.capable else "not capable"
            if not cap.capable and not cap.legacy:
                warn(f"{v.name}: {cap.verdict}")
        except CalicoRenderError as exc:
            warn(f"{v.name}: {exc}")
            typha = "error"
        line = f"{v.name:<10} {'/'.join(v.dialects):<7} {typha:<11} {files}"
        if keys:
            line += "\n    keys: " + ", ".join(sorted(version_keys(v)))
        click.echo(line)
