"""``calico-render capability``: the release check of one version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from renderer import api
from renderer.checks.finding import blocking
from renderer.cli import options as opts
from renderer.cli.app import cli
from renderer.k8s.schema import NOT_CHECKED, finding_text

if TYPE_CHECKING:
    from renderer.checks.report import ReleaseReport


def _mark(ok: bool) -> str:
    return "ok     " if ok else "MISSING"


def format_report(report: ReleaseReport) -> str:
    """The human-readable capability report."""
    cap = report.capability
    lines = [
        f"Calico {cap.version} ({cap.dialect}: {', '.join(cap.files)})",
        f"Typha-capable: {'yes' if cap.capable else f'no ({cap.verdict})'}",
    ]
    for item in cap.items:
        detail = f" -- {item.detail}" if item.detail and not item.ok else ""
        lines.append(f"  {_mark(item.ok)} {item.description}{detail}")
    errs = sum(1 for f in report.rules if f.severity == "error")
    warns = len(report.rules) - errs
    if cap.legacy:
        from renderer.checks.report import LEGACY_RULES

        lines.append(f"Release rules: {LEGACY_RULES} (legacy: not Typha-capable)")
    else:
        lines.append(
            f"Release rules (Typha on, {report.nodes} nodes): {errs} error(s), {warns} warning(s)"
        )
    lines.extend(f"  {f}" for f in report.rules)
    if report.context:
        lines.append(f"Context (what no BKE config can set): {len(report.context)} warning(s)")
        lines.extend(f"  warning: [{u.rule}] {u.message}" for u in report.context)
    for v in report.kube_versions:
        found = [f for f in report.schema if f.kube_versions[0] == v]
        n = len(blocking(found))
        skipped = sum(1 for f in found if f.severity == NOT_CHECKED)
        extra = f", {skipped} custom resource(s) not schema-checked" if skipped else ""
        lines.append(f"Schema, Kubernetes {v} (strict): {n} error(s){extra}")
        lines.extend(f"  {finding_text(f)}" for f in found)
    fid = report.fidelity
    if fid is not None and fid.note:
        lines.append(f"Upstream fidelity: {fid.note}")
    elif fid is not None:
        fid_warns = len(fid.findings) - fid.errors
        scen = ", ".join(s["name"] for s in fid.scenarios)
        lines.append(
            f"Upstream fidelity ({fid.upstream}; {scen}): {fid.errors} error(s), "
            f"{fid_warns} warning(s)"
        )
        lines.extend(f"  {f.describe()}" for f in fid.findings)
    if report.exceptions:
        lines.append(f"Exceptions ({report.exceptions_file}):")
        for a in report.exceptions:
            if a.matches:
                e = a.exception
                n = sum(a.matches.values())
                lines.append(f"  {e.rule}: {e.action} ({n} finding(s)): {e.reason}")
        lines.extend(f"  warning: {w}" for w in report.exception_warnings)
    ready = report.release_ready
    if ready or cap.capable:
        why = "" if fid is None or not fid.errors else " (deviates from upstream)"
    elif cap.legacy:
        why = " (not Typha-capable: unusable above 50 nodes)"
    else:
        why = " (Typha templates incomplete)"
    lines.append(f"Release-ready: {'yes' if ready else 'no'}{why}")
    return "\n".join(lines)


@cli.command(
    help="Check a version for release: Typha capability contract, release rules and strict "
    "schema validation (and, with --upstream, fidelity to upstream Calico's manifests). "
    "Exit 0 when release-ready, 1 when not."
)
@click.option("--version", "version", required=True, metavar="V", help="Calico version.")
@opts.manifests_option
@opts.render_timeout_option
@opts.kube_version_option
@opts.no_cache_option
@opts.format_option()
@opts.pipeline_options
@click.pass_context
def capability(
    ctx: click.Context,
    version: str,
    root: Path | None,
    kube_versions: tuple[str, ...],
    fmt: str,
    upstream: Path | None,
    exceptions_file: Path | None,
) -> None:
    report = api.capability(
        version,
        root=root,
        kube_versions=kube_versions,
        exceptions_file=exceptions_file,
        upstream=upstream,
    )
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, sort_keys=True))
    else:
        click.echo(format_report(report))
    ctx.exit(0 if report.release_ready else 1)
