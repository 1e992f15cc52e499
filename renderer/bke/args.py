"""What a render is asked for from flags and files (:class:`RenderArgs`), in a module of
its own: a render without ``--config`` or ``--nodes-file`` builds one without importing
:mod:`renderer.bke.cluster` (its loaders and dataclasses)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.frozen import Frozen

if TYPE_CHECKING:
    from renderer.bke.cluster import ClusterInputs, NodeInventory


class RenderArgs(Frozen):
    """Version, node count, prefix and user values for a render, from flags and files.

    ``skip`` is set for a cluster without Calico: the render produces nothing.
    A frozen record (:class:`renderer.frozen.Frozen`): every render defines it at
    start-up, where a dataclass costs some 3.7 million instructions.
    """

    __match_args__ = ("version", "nodes", "repo", "user", "notes", "skip", "cluster", "inventory")

    version: str | None
    nodes: int | None
    repo: str | None
    user: dict[str, str]
    notes: tuple[str, ...]
    skip: bool
    #: The config's inputs (None: no --config); the context is built from them.
    cluster: ClusterInputs | None
    #: The BKENodes given (with or without a config), for the decision line.
    inventory: NodeInventory | None

    def __init__(
        self,
        version: str | None,
        nodes: int | None,
        repo: str | None,
        user: dict[str, str],
        notes: tuple[str, ...] = (),
        skip: bool = False,
        cluster: ClusterInputs | None = None,
        inventory: NodeInventory | None = None,
    ) -> None:
        for name, value in zip(
            self.__match_args__,
            (version, nodes, repo, user, notes, skip, cluster, inventory),
            strict=True,
        ):
            object.__setattr__(self, name, value)
