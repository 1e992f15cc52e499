"""The plan's data model: apply order, the shapes the schema allows, what a plan changes."""

from __future__ import annotations

import pytest

from renderer.calico.plan import (
    SHAPES,
    ObjectRef,
    apply_order,
    delete_order,
    make_plan,
    ref_of,
)
from renderer.data.schemas import PLAN as PLAN_SCHEMA
from renderer.data.schemas import load_schema
from tests.calico.plan.objects import NS, checked, side


def test_shapes_are_the_schema_enum() -> None:
    assert list(SHAPES) == load_schema(PLAN_SCHEMA)["properties"]["shape"]["enum"]


def test_ref_of_reads_identity_and_keeps_the_api_version_out_of_equality() -> None:
    ref = ref_of({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}})
    assert ref.key == ("Deployment", "", "a") and ref.api_version == "apps/v1"
    assert ref == ObjectRef("Deployment", "", "a") and ref.kubectl == "deployment/a"
    assert ref_of({"kind": "X", "metadata": "odd"}) == ObjectRef("X", "", "")


def test_apply_order_is_by_kind_then_name_and_deduplicated() -> None:
    refs = [
        ObjectRef("Deployment", NS, "b"),
        ObjectRef("Deployment", NS, "a"),
        ObjectRef("Widget", NS, "z"),
        ObjectRef("ServiceAccount", NS, "a"),
        ObjectRef("Deployment", NS, "a"),
    ]
    assert [f"{r.kind}/{r.name}" for r in apply_order(refs)] == [
        "ServiceAccount/a",
        "Deployment/a",
        "Deployment/b",
        "Widget/z",
    ]


def test_delete_order_is_apply_order_reversed() -> None:
    refs = [ObjectRef("ServiceAccount", NS, "a"), ObjectRef("Deployment", NS, "a")]
    assert delete_order(refs) == tuple(reversed(apply_order(refs)))


@pytest.mark.parametrize(
    ("source", "target", "change"),
    [
        (("v1", 10), ("v1", 10), "reconfigure"),
        (("v1", 10), ("v1", 60), "scale"),
        (("v1", 10), ("v2", 10), "upgrade"),
        (("v2", 10), ("v1", 10), "rollback"),
    ],
)
def test_change_names_scale_and_reconfigure(
    source: tuple[str, int], target: tuple[str, int], change: str
) -> None:
    plan = make_plan(
        side(source[0], source[1], True, typha=source[1] > 50),
        side(target[0], target[1], True, typha=target[1] > 50),
    )
    assert plan.change == change
    assert checked(plan)["change"] == change
