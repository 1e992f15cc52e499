"""Phased upgrade, rollback and scale plans that introduce or remove Typha safely.

:mod:`.model` holds what a plan is made of, :mod:`.split` sorts a rendered version's
objects by role, :mod:`.phases` orders them into gated phases (one builder per plan
shape) and :mod:`.files` writes a plan as manifests. Rendering is the caller's job
(:func:`renderer.api.verbs.plan`).
"""

from __future__ import annotations

from renderer.calico.plan.files import delete_stub, objects_with_text, plan_files
from renderer.calico.plan.model import (
    KIND_ORDER,
    PREREQUISITES,
    SHAPES,
    ObjectRef,
    Plan,
    Side,
    Split,
    apply_order,
    delete_order,
    ref_of,
)
from renderer.calico.plan.phases import (
    BUILDERS,
    drift_warnings,
    make_plan,
    operation_for,
    shape_of,
)
from renderer.calico.plan.split import node_template_changed, rbac_fingerprint, split_objects

__all__ = [
    "BUILDERS",
    "KIND_ORDER",
    "PREREQUISITES",
    "SHAPES",
    "ObjectRef",
    "Plan",
    "Side",
    "Split",
    "apply_order",
    "delete_order",
    "delete_stub",
    "drift_warnings",
    "make_plan",
    "node_template_changed",
    "objects_with_text",
    "operation_for",
    "plan_files",
    "rbac_fingerprint",
    "ref_of",
    "shape_of",
    "split_objects",
]
