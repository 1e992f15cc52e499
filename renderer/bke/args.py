"""What a render is asked for from flags and files (:class:`RenderArgs`), in a module of
its own: a render without ``--config`` or ``--nodes-file`` builds one without importing
:mod:`renderer.bke.cluster` (its loaders and dataclasses)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from renderer.bke.cluster import ClusterInputs, NodeInventory


class RenderArgs:
    """Version, node count, prefix and user values for a render, from flags and files.

    ``skip`` is set for a cluster without Calico: the render produces nothing.
    Frozen, compared and printed as a frozen dataclass of these fields would be, written
    out: every render defines it at start-up, where a dataclass costs some 3.7 million
    instructions to make.
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

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            assert isinstance(other, RenderArgs)
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
