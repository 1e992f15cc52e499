"""What a plan is made of: object references in apply order, a version's objects split
by role, the two sides of a transition, and phases that end in gates."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.calico import policy

#: The plan shapes (``shape`` in plan.schema.json), one builder each in :mod:`.phases`.
INTRODUCE_TYPHA = "introduce-typha"
REMOVE_TYPHA = "remove-typha"
TYPHA_UPGRADE = "typha-upgrade"
DIRECT = "direct"
COMPATIBILITY = "compatibility"
SHAPES = (INTRODUCE_TYPHA, REMOVE_TYPHA, TYPHA_UPGRADE, DIRECT, COMPATIBILITY)

#: The phase that applies what the target's Typha needs before it starts: phase 0.
PREREQUISITES = "prerequisites"

#: Apply order by kind: what others depend on first. Unknown kinds go last, by name.
KIND_ORDER = (
    "Namespace",
    "CustomResourceDefinition",
    "PriorityClass",
    "ServiceAccount",
    "Secret",
    "ConfigMap",
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "Service",
    "PodDisruptionBudget",
    "DaemonSet",
    "Deployment",
    "StatefulSet",
    "Job",
    "CronJob",
)


@dataclass(frozen=True, order=True)
class ObjectRef:
    """A Kubernetes object by identity; ``api_version`` is carried for delete stubs only."""

    kind: str
    namespace: str
    name: str
    api_version: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name}

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)

    @property
    def kubectl(self) -> str:
        """``kind/name`` as kubectl takes it."""
        return f"{self.kind.lower()}/{self.name}"

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"


def ref_of(obj: Mapping[str, Any]) -> ObjectRef:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return ObjectRef(
        str(obj.get("kind", "")),
        str(meta.get("namespace", "") or ""),
        str(meta.get("name", "")),
        str(obj.get("apiVersion", "")),
    )


def _rank(ref: ObjectRef) -> tuple[int, str, str, str]:
    rank = KIND_ORDER.index(ref.kind) if ref.kind in KIND_ORDER else len(KIND_ORDER)
    return (rank, ref.kind, ref.namespace, ref.name)


def apply_order(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    """Deduplicated, in dependency order, then by kind, namespace and name."""
    unique = {r.key: r for r in refs}
    return tuple(sorted(unique.values(), key=_rank))


def delete_order(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    """The reverse of :func:`apply_order`: workloads before what they use."""
    return tuple(reversed(apply_order(refs)))


@dataclass(frozen=True)
class Split:
    """A rendered version's objects by the part they play in a Typha transition.

    ``rbac`` holds the :func:`~.split.rbac_fingerprint` of every RBAC object, to tell
    which of Typha's permissions differ between two versions (empty: unknown, treated
    as changed).
    """

    typha: tuple[ObjectRef, ...] = ()
    typha_deps: tuple[ObjectRef, ...] = ()
    calico_node: tuple[ObjectRef, ...] = ()
    rest: tuple[ObjectRef, ...] = ()
    rbac: Mapping[tuple[str, str, str], str] = field(default_factory=dict, compare=False)

    @property
    def all(self) -> tuple[ObjectRef, ...]:
        return apply_order((*self.typha, *self.typha_deps, *self.calico_node, *self.rest))

    def find(self, kind: str, group: Sequence[ObjectRef]) -> ObjectRef | None:
        return next((r for r in group if r.kind == kind), None)


@dataclass(frozen=True)
class Side:
    """One end of a transition: a version rendered for a node count."""

    version: str
    nodes: int
    capable: bool
    objects: Split
    keys: frozenset[str] = frozenset()
    #: The route this side was rendered with, when the caller already decided it.
    route: policy.Route | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Gate:
    description: str
    command: str

    def to_dict(self) -> dict[str, str]:
        return {"description": self.description, "command": self.command}


@dataclass(frozen=True)
class Phase:
    """Apply ``apply``, then delete ``delete``, then wait until ``gate`` holds."""

    name: str
    description: str
    apply: tuple[ObjectRef, ...]
    delete: tuple[ObjectRef, ...]
    gate: Gate

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "apply": [r.to_dict() for r in self.apply],
            "delete": [r.to_dict() for r in self.delete],
            "gate": self.gate.to_dict(),
        }


@dataclass(frozen=True)
class Plan:
    shape: str
    operation: str
    source: dict[str, Any]
    target: dict[str, Any]
    phases: tuple[Phase, ...]
    warnings: tuple[str, ...]

    @property
    def change(self) -> str:
        """What the plan does, in words: ``upgrade`` or ``rollback`` between versions,
        ``scale`` (same version, another node count) or ``reconfigure`` (neither)."""
        if self.source["version"] != self.target["version"]:
            return self.operation
        return "scale" if self.source["nodes"] != self.target["nodes"] else "reconfigure"

    def numbered(self) -> list[tuple[int, Phase]]:
        """Phases with their numbers: ``prerequisites`` is phase 0, so the phase that
        applies Typha is phase 1 in every plan that introduces or upgrades it."""
        start = 0 if self.phases and self.phases[0].name == PREREQUISITES else 1
        return list(enumerate(self.phases, start=start))

    def to_dict(self) -> dict[str, Any]:
        """The plan as data; :func:`renderer.output.documents.plan_json` publishes it
        (``plan.schema.json``, its warnings as findings)."""
        return {
            "shape": self.shape,
            "operation": self.operation,
            "change": self.change,
            "from": self.source,
            "to": self.target,
            "phases": [p.to_dict() for p in self.phases],
            "warnings": list(self.warnings),
        }
