"""The scale advice of a render: the limits a configured cluster meets, from the
numbers its render uses, each with where it came from (the config, the user's values,
a default). ``advise`` reports them; a configured cluster's render prints them as
warnings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from renderer.api.request import Request
from renderer.api.verbs.render import located
from renderer.bke import context as bke_context
from renderer.calico import policy, scale
from renderer.finding import WARNING, Finding
from renderer.k8s.parse import K8sObject


def scale_findings(
    request: Request,
    objects: Sequence[K8sObject],
    contexts: bke_context.VersionContexts,
    *,
    max_pods: int = policy.KUBERNETES_MAX_PODS,
    max_pods_given: bool = False,
) -> tuple[scale.ScaleInputs, list[Finding]]:
    """The scale advice on a render of ``request``: its numbers (each with where it
    came from: the config, the user's values, a default) and the findings on them,
    located in the version's templates."""
    first = next((f for f in contexts.files if not f.verbatim), None)
    context = first.context if first is not None else {}
    origins = scale_origins(request, first.entries if first is not None else {}, max_pods_given)
    inputs = scale.request_inputs(
        objects, context, nodes=request.node_count, max_pods=max_pods, origins=origins
    )
    return inputs, located(request.version, scale.advise(inputs))


#: Where a context value came from (:data:`renderer.bke.context.SOURCES`), as the scale
#: advice names it; the defaults are not listed (the advice says which default).
_SCALE_SOURCES = {
    bke_context.USER: scale.FLAG,
    bke_context.USER_FILE: scale.FLAG,
    bke_context.ADDON_PARAM: scale.CONFIG,
    bke_context.FILE_PARAM: scale.CONFIG,
    bke_context.BKECLUSTER: scale.CONFIG,
    bke_context.BKENODES: scale.CONFIG,
}


def scale_origins(request: Request, entries: Any, max_pods_given: bool = False) -> scale.Origins:
    """Where the values the advice reads came from, from the context's own record of
    each value's origin: a config's podSubnet is the config's, not the default."""
    values: dict[str, tuple[str, str]] = {}
    config = str(request.cluster.config.file) if request.cluster is not None else ""
    for key, entry in entries.items():
        source = _SCALE_SOURCES.get(entry.source)
        if source is not None:
            where = f"{config}: {entry.detail}" if source == scale.CONFIG else entry.detail
            values[key] = (source, where.strip(": "))
    inventory = request.inventory
    nodes = (
        (scale.CONFIG, f"BKENodes of {inventory.file}")
        if inventory is not None and inventory.count == request.nodes
        else (scale.FLAG, "--nodes")
    )
    max_pods = (scale.KUBERNETES_DEFAULT, "kubelet maxPods")
    if max_pods_given:
        max_pods = (scale.FLAG, "--max-pods")
    return scale.Origins(values, nodes, max_pods)


def _as_warning(f: Finding) -> Finding:
    """A scale finding as a render reports it: a warning (the controller renders the
    version whatever the cluster's limits; ``advise`` fails on them)."""
    return replace(f, severity=WARNING) if f.severity == "error" else f


def scale_warnings(
    request: Request, objects: Sequence[K8sObject], contexts: bke_context.VersionContexts
) -> list[Finding]:
    """The scale advice as a render reports it: warnings, no info."""
    return [
        _as_warning(f)
        for f in scale_findings(request, objects, contexts)[1]
        if f.severity != "info"
    ]
