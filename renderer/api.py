"""Library API: the whole render pipeline for callers such as installer-service.

The CLI is a thin layer over these functions; they raise :mod:`renderer.errors`
exceptions and never print.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import policy
from .context import build_context
from .errors import RefusedError
from .render import RenderedFile, join_stream, render_version
from .tree import VersionDir, resolve_version


@dataclass
class RenderResult:
    """A rendered version with the decision that shaped it."""

    version: VersionDir
    files: list[RenderedFile]
    context: dict[str, Any]
    route: policy.Route
    warnings: list[str] = field(default_factory=list)

    @property
    def decision(self) -> policy.TyphaDecision:
        return self.route.decision

    def stream(self) -> str:
        return join_stream(self.files)


def typha_capability(version: VersionDir) -> tuple[bool, tuple[str, ...]]:
    """(capable, missing items) judged from what the version's templates render."""
    from .capability import assess_capability

    report = assess_capability(version)
    return report.capable, tuple(report.missing)


def plan_route(version: VersionDir, nodes: int, operation: str = "install") -> policy.Route:
    """Route a request; capability is only assessed when the node count needs Typha."""
    if policy.decide_typha(nodes).allow_typha:
        capable, missing = typha_capability(version)
    else:
        capable, missing = True, ()
    return policy.route(nodes, capable, operation, version=version.name, missing=missing)


def render(
    version: str,
    nodes: int,
    *,
    root: Path | None = None,
    user: Mapping[str, Any] | None = None,
    repo: str | None = None,
    operation: str = "install",
) -> RenderResult:
    """Resolve, route, build the context and render a Calico version for ``nodes``.

    Raises RefusedError when a first install above 50 nodes targets a version that is
    not Typha-capable; nothing is rendered then.
    """
    vdir = resolve_version(version, root)
    user = dict(user or {})
    route = plan_route(vdir, nodes, operation)
    if route.refused:
        raise RefusedError(route.message, key="--nodes")
    warnings = [*policy.overridden_keys(user, route.decision), *route.warnings]
    context = build_context(user, typha=route.decision.context(), repo=repo)
    files = render_version(vdir, context)
    return RenderResult(vdir, files, context, route, warnings)
