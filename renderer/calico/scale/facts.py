"""The numbers scale advice reads, each a :class:`Fact` with where it came from, and
the plain data they make up: a :class:`Pool`, a container's :class:`Requests`, every
input of a cluster (:class:`ScaleInputs`)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

# Where a number came from.
FLAG = "flag"
CONFIG = "config"
RENDERED = "rendered"
CONTROLLER_DEFAULT = "controller-default"
CALICO_DEFAULT = "calico-default"
KUBERNETES_DEFAULT = "kubernetes-default"
POLICY = "policy"
SEED = "seed-003"
SOURCES = (
    FLAG,
    CONFIG,
    RENDERED,
    CONTROLLER_DEFAULT,
    CALICO_DEFAULT,
    KUBERNETES_DEFAULT,
    POLICY,
    SEED,
)


@dataclass(frozen=True)
class Fact:
    """A value the advice used and where it came from.

    ``source`` is one of :data:`SOURCES`; ``where`` says more (the flag, file, env var or
    seed section); ``object`` and ``file`` locate a rendered value. ``value`` None means
    the source does not set it (e.g. a resource request the template leaves out).
    """

    value: int | str | None
    source: str
    where: str = ""
    object: str = ""
    file: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "source": self.source,
            "where": self.where,
            "object": self.object,
            "file": self.file,
        }

    def origin(self) -> str:
        """``source: where (object, file)`` for text output."""
        loc = ", ".join(x for x in (self.object, self.file) if x)
        text = f"{self.source}: {self.where}" if self.where else self.source
        return f"{text} ({loc})" if loc else text


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Pool:
    """An IP pool calico-node creates: its CIDR and IPAM block size (IP version 4 or 6)."""

    family: int
    cidr: Fact
    block_size: Fact

    @property
    def name(self) -> str:
        return f"IPv{self.family}"

    @property
    def bits(self) -> int:
        return 32 if self.family == 4 else 128

    def network(self) -> Network | None:
        """The pool's network, None when the CIDR is not one of this IP version."""
        try:
            net = ipaddress.ip_network(str(self.cidr.value).strip(), strict=False)
        except ValueError:
            return None
        return net if net.version == self.family else None


@dataclass(frozen=True)
class Requests:
    """A container's rendered CPU and memory requests (value None when not set)."""

    cpu: Fact
    memory: Fact


@dataclass(frozen=True)
class ScaleInputs:
    """Every number the rules read, each with its origin; ``notes`` say what was skipped."""

    nodes: Fact
    max_pods: Fact
    pools: tuple[Pool, ...]
    backend: Fact
    typha_replicas: Fact
    felix: Requests | None
    typha: Requests | None
    ip_mod_version: Fact | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Every input by name, as the report publishes them."""
        out: dict[str, Fact] = {"nodes": self.nodes, "max_pods": self.max_pods}
        if self.ip_mod_version is not None:
            out["ip_mod_version"] = self.ip_mod_version
        for p in self.pools:
            tag = f"ipv{p.family}"
            out[f"{tag}_pool_cidr"] = p.cidr
            out[f"{tag}_block_size"] = p.block_size
        out["backend"] = self.backend
        out["typha_replicas"] = self.typha_replicas
        for name, req in (("calico_node", self.felix), ("calico_typha", self.typha)):
            if req is not None:
                out[f"{name}_cpu_request"] = req.cpu
                out[f"{name}_memory_request"] = req.memory
        return {k: v.to_dict() for k, v in out.items()}
