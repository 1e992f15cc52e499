"""The plan verb: a transition between two renders ordered into gated phases (Typha
introduced before calico-node uses it, removed after)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from renderer.api.request import Request, check_nodes
from renderer.api.verbs.render import file_contexts
from renderer.bke.values import default_context
from renderer.calico import names, policy
from renderer.calico import plan as plan_mod
from renderer.calico.plan.files import plan_files
from renderer.checks.verdict import typha_capability
from renderer.engine.render import render_version, version_keys
from renderer.errors import InputError
from renderer.k8s.parse import K8sObject
from renderer.manifests.tree import VersionDir, resolve_version


@dataclass
class PlanResult:
    """A plan and the rendered target objects its apply lists refer to."""

    plan: plan_mod.Plan
    texts: dict[tuple[str, str, str], str]

    @cached_property
    def _data(self) -> dict[str, Any]:
        return self.plan.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """The plan as data (``renderer.output.documents.plan_json`` publishes it)."""
        return copy.deepcopy(self._data)

    def files(self, published: dict[str, Any] | None = None) -> dict[str, str]:
        """One manifest per phase (``NN-name.apply.yaml``, ``NN-name.delete.yaml``), in
        order, plus ``plan.json`` (``published``: the plan as its report publishes it):
        see :func:`renderer.calico.plan.files.plan_files`."""
        return plan_files(self.plan, self.texts, published or self._data)


Capability = Callable[[VersionDir], tuple[bool, tuple[str, ...]]]


def plan(
    request: Request,
    *,
    from_version: str | None = None,
    from_nodes: int | None = None,
    capability: Capability | None = None,
) -> PlanResult:
    """Render both ends of a transition to the request's version and node count and
    order it into gated phases.

    Each side is rendered as the policy routes it for an existing cluster; the target
    render is what the phases apply. ``from_version``/``from_nodes`` are the running
    cluster's (default: the request's); ``capability`` defaults to the render-based check.
    """
    nodes = request.node_count
    if from_nodes is not None:
        check_nodes(from_nodes, "from_nodes")
    assess = capability or typha_capability
    target_dir = request.version
    source_dir = (
        _resolve_as(from_version, request.root, "from_version") if from_version else target_dir
    )
    source_nodes = from_nodes if from_nodes is not None else nodes
    operation = plan_mod.operation_for(source_dir.name, target_dir.name)
    inputs = request.inputs
    sides: list[plan_mod.Side] = []
    rendered: list[list[tuple[K8sObject, str]]] = []
    for vdir, count, op in (
        (source_dir, source_nodes, "upgrade"),
        (target_dir, nodes, operation),
    ):
        capable, missing = assess(vdir)
        route = policy.route(count, capable, op, version=vdir.name, missing=missing)
        contexts = file_contexts(vdir, inputs, route.decision)
        objects = plan_mod.objects_with_text(render_version(vdir, {}, contexts.contexts()))
        rendered.append(objects)
        split = plan_mod.split_objects([o.data for o, _ in objects])
        keys = version_keys(vdir)
        sides.append(plan_mod.Side(vdir.name, count, capable, split, keys, route=route))
    source, target = sides
    ds = target.objects.find("DaemonSet", target.objects.calico_node)
    name = ds.name if ds else names.NODE_DAEMONSET
    changed = plan_mod.node_template_changed(
        [o.data for o, _ in rendered[0]], [o.data for o, _ in rendered[1]], name
    )
    result = plan_mod.make_plan(
        source, target, node_template_changed=changed, defaults=default_context()
    )
    texts = {plan_mod.ref_of(o.data).key: text for o, text in rendered[1]}
    return PlanResult(result, texts)


def _resolve_as(version: str, root: Path | None, key: str) -> VersionDir:
    """:func:`resolve_version`, its errors naming the argument the version came from."""
    try:
        return resolve_version(version, root)
    except InputError as exc:
        # keep a quoted value: ``version '../x'`` becomes ``from_version '../x'``
        given = exc.key or ""
        label = key + (given[len("version") :] if given.startswith("version") else "")
        raise InputError(
            exc.message, file=exc.file, line=exc.line, key=label, argument=key, value=version
        ) from None
