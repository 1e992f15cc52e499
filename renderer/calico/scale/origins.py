"""Where a request's values came from, and the scale inputs of a render of that
request: podSubnet and ipModVersion from the user when set, else the controller's
defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from renderer.calico.scale.extraction import extract
from renderer.calico.scale.facts import (
    CONFIG,
    CONTROLLER_DEFAULT,
    FLAG,
    KUBERNETES_DEFAULT,
    RENDERED,
    Fact,
    ScaleInputs,
)
from renderer.calico.scale.tables import (
    CONTROLLER_IP_MOD_VERSION,
    CONTROLLER_POD_SUBNET,
    KUBERNETES_MAX_PODS,
)
from renderer.k8s.parse import K8sObject


@dataclass(frozen=True)
class Origins:
    """Where a request's values came from: context key -> (source, where), and the node
    count's and max pods' origin. Keys not listed were not set by the user."""

    values: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    nodes: tuple[str, str] = (FLAG, "--nodes")
    max_pods: tuple[str, str] = (KUBERNETES_DEFAULT, "kubelet maxPods")

    @classmethod
    def of(
        cls,
        *,
        config: Mapping[str, Any] | None = None,
        config_file: str = "",
        flags: Mapping[str, Any] | None = None,
        flags_where: str = "--set/--values",
        nodes: tuple[str, str] = (FLAG, "--nodes"),
        max_pods: tuple[str, str] = (KUBERNETES_DEFAULT, "kubelet maxPods"),
    ) -> Origins:
        """Config values, then flag values on top (as the render merges them)."""
        values: dict[str, tuple[str, str]] = {}
        for key in config or {}:
            values[key] = (CONFIG, config_file)
        for key in flags or {}:
            values[key] = (FLAG, flags_where)
        return cls(values, nodes, max_pods)

    def fact(self, key: str, context: Mapping[str, Any], default: Fact) -> Fact:
        """The context's ``key`` with its origin when the user set it, else ``default``."""
        if key not in self.values or key not in context:
            return default
        source, where = self.values[key]
        return Fact(str(context[key]), source, f"{key} from {where}" if where else key)


def request_inputs(
    objects: Sequence[K8sObject],
    context: Mapping[str, Any],
    *,
    nodes: int,
    max_pods: int = KUBERNETES_MAX_PODS,
    origins: Origins | None = None,
) -> ScaleInputs:
    """:func:`extract` for a render of ``context``, with podSubnet and ipModVersion from
    the user when set, else the BKE controller's defaults."""
    o = origins or Origins()
    pod_subnet = o.fact(
        "podSubnet",
        context,
        Fact(CONTROLLER_POD_SUBNET, CONTROLLER_DEFAULT, "BKE controller default podSubnet"),
    )
    ip_mod = o.fact(
        "ipModVersion",
        context,
        Fact(
            CONTROLLER_IP_MOD_VERSION,
            CONTROLLER_DEFAULT,
            "BKE controller default ipModVersion",
        ),
    )
    inputs = extract(
        objects,
        nodes=Fact(nodes, *o.nodes),
        max_pods=Fact(max_pods, *o.max_pods),
        pod_subnet=pod_subnet,
        ip_mod_version=ip_mod,
    )
    rendered = next((p.cidr for p in inputs.pools if p.family == 4), None)
    own = context.get("podSubnet")
    if (
        rendered is not None
        and rendered.source == RENDERED
        and pod_subnet.source != CONTROLLER_DEFAULT
        and str(rendered.value) == str(own)
    ):  # the template printed the user's podSubnet: say where that came from
        traced = replace(
            rendered, where=f"{rendered.where} = {pod_subnet.where} ({pod_subnet.source})"
        )
        pools = tuple(replace(p, cidr=traced) if p.cidr is rendered else p for p in inputs.pools)
        inputs = replace(inputs, pools=pools)
    if (
        "podSubnet" not in o.values
        and rendered is not None
        and rendered.source == RENDERED
        and own is not None
        and str(rendered.value) == str(own)
        and str(own) != CONTROLLER_POD_SUBNET
    ):
        note = (
            f"podSubnet is not set: the render used the render context's default {own}, "
            f"while BKE's controller passes {CONTROLLER_POD_SUBNET}"
        )
        inputs = replace(inputs, notes=(*inputs.notes, note))
    return inputs
