"""Rule inputs for the Calico rule tests: a real Typha-on render, one object edited."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from renderer.calico.rules import RuleInput
from renderer.k8s.parse import K8sObject
from tests.gatehelp import REPO, typha_on_objects


def rule_input(
    change: Callable[[dict[str, Any]], None] | None = None,
    kind: str = "Deployment",
    name: str = "calico-typha",
    nodes: int = 51,
) -> RuleInput:
    """The v9.1.0 fixture's Typha-on objects for ``nodes``, ``change`` applied to the
    object ``kind``/``name``."""
    objects = []
    for o in typha_on_objects():
        if change is not None and o.kind == kind and o.name == name:
            data = copy.deepcopy(o.data)
            change(data)
            o = K8sObject(o.file, o.index, o.line, data)
        objects.append(o)
    return RuleInput(objects, "v9.1.0", {"repo": REPO}, nodes)


def pod_spec(data: dict[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = data["spec"]["template"]["spec"]
    return pod
