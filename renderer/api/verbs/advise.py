"""The advise verb: the scale limits a cluster meets, from the numbers its render uses."""

from __future__ import annotations

from dataclasses import replace

from renderer.api.request import Request
from renderer.api.verbs.render import plan_route, render
from renderer.api.verbs.scale import scale_findings
from renderer.calico import policy, scale
from renderer.errors import InputError
from renderer.manifests.tree import tree_label


def advise(
    request: Request, *, max_pods: int = policy.KUBERNETES_MAX_PODS, max_pods_given: bool = False
) -> scale.AdviceReport:
    """Render the request as the controller would and advise on its scale.

    Every number says where it came from (the config, the user's values, a default),
    read from the contexts the render was built with. A first install the Typha policy
    refuses is advised on as its compatibility path (Typha off), so the missing Typha
    shows as an error finding instead of exit 3. ``max_pods_given``: the caller chose
    ``max_pods`` (it is then named as the caller's, not kubelet's default).
    """
    if isinstance(max_pods, bool) or not isinstance(max_pods, int) or max_pods < 1:
        raise InputError(
            f"max pods per node must be a positive integer, got {max_pods!r}",
            key="max_pods",
            argument="max_pods",
            value=max_pods,
        )
    vdir, nodes = request.version, request.node_count
    notes: list[str] = []
    if request.operation == "install" and plan_route(vdir, nodes, "install").refused:
        request = replace(request, operation="upgrade")
        notes.append(
            f"a first install of {vdir.name} on {nodes} nodes is refused (not Typha-capable); "
            "advised on the compatibility path, Typha off"
        )
    # the advice's own findings, not the render's: schemas are not this verb's
    result = render(replace(request, kube_versions=(), kube_note=""))
    inputs, findings = scale_findings(
        request, result.objects, result.contexts, max_pods=max_pods, max_pods_given=max_pods_given
    )
    return scale.AdviceReport(
        vdir.name,
        tree_label(request.root),
        inputs,
        findings,
        [*notes, *inputs.notes, *(f"warning: {w}" for w in result.param_warnings)],
        result.param_warnings,
    )
