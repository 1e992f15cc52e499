"""What a render is asked for from flags and files (:class:`RenderArgs`), in a module of
its own: a render without ``--config`` or ``--nodes-file`` builds one without importing
:mod:`renderer.bke.cluster` (its loaders and dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.bke.cluster import ClusterInputs, NodeInventory


@dataclass(frozen=True, slots=True)
class RenderArgs:
    """Version, node count, prefix and user values for a render, from flags and files.

    ``skip`` is set for a cluster without Calico: the render produces nothing.
    """

    version: str | None
    nodes: int | None
    repo: str | None
    user: dict[str, str]
    notes: tuple[str, ...] = ()
    skip: bool = False
    #: The config's inputs (None: no --config); the context is built from them.
    cluster: ClusterInputs | None = None
    #: The BKENodes given (with or without a config), for the decision line.
    inventory: NodeInventory | None = None
