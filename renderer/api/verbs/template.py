"""The template and typha verbs: one file rendered with exactly the given values (no
policy, no context rules), and the Typha decision for a node count."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from renderer.api.request import check_nodes
from renderer.api.results import TyphaResult
from renderer.bke.values import user_values as values
from renderer.calico import policy
from renderer.engine.compile import compile_source
from renderer.manifests.tree import DIALECTS
from renderer.store.read import read_text


def template(
    file: str,
    *,
    values_file: str | Path | None = None,
    sets: Sequence[str] = (),
    name: str = "calico",
    dialect: str | None = None,
    warnings: list[str] | None = None,
) -> str:
    """Render one template file (``-``: stdin) with exactly the given values: no policy,
    no context rules, Go's bytes. ``dialect`` None: from the suffix; warnings about the
    values file go to ``warnings``."""
    context = values(values_file, sets, key_rules=False, warnings=warnings)
    chosen = dialect or DIALECTS.get(Path(file).suffix, "go")
    return compile_source(read_text(file), file, chosen, template_name=name).render(context)


def typha(nodes: int | None = None) -> TyphaResult:
    """The Typha decision for ``nodes``, or the boundary table when None."""
    if nodes is not None:
        check_nodes(nodes)
    counts = policy.BOUNDARY_TABLE if nodes is None else (nodes,)
    return TyphaResult(nodes, tuple(policy.decide_typha(n) for n in counts))
