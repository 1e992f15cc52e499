"""The explain-context verb: what each template file would receive, and from where."""

from __future__ import annotations

from renderer.api.request import Request
from renderer.api.results import ExplainResult
from renderer.api.verbs.render import file_contexts, plan_route
from renderer.bke import context as bke_context
from renderer.bke import unread
from renderer.calico import policy
from renderer.errors import RefusedError


def explain_context(request: Request) -> ExplainResult:
    """The contexts :func:`render` would render the request with, without rendering."""
    vdir, inputs = request.version, request.inputs
    route = plan_route(vdir, request.node_count, request.operation)
    if route.refused:
        raise RefusedError(route.message, key="nodes", argument="nodes", value=request.nodes)
    contexts = file_contexts(vdir, inputs, route.decision)
    given = tuple(unread.inputs_warnings(vdir, inputs))
    warnings = (
        *policy.overridden_keys(bke_context.typha_params(inputs.params), route.decision),
        *contexts.warnings,
        *route.warnings,
        *(str(w) for w in given),
    )
    return ExplainResult(contexts, route, warnings, given)
