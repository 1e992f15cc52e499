"""A plan as files: per-phase manifests in order, delete stubs, plan.json last."""

from __future__ import annotations

import json

import pytest

from renderer.calico.plan import ObjectRef, delete_stub, make_plan, objects_with_text, plan_files
from renderer.engine.render import RenderedFile
from renderer.errors import TemplateError
from tests.calico.plan.objects import side


def test_delete_stub_is_enough_for_kubectl_delete() -> None:
    ref = ObjectRef("Deployment", "kube-system", "calico-typha", "apps/v1")
    assert delete_stub(ref) == (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: calico-typha\n"
        "  namespace: kube-system\n"
    )
    assert "namespace" not in delete_stub(ObjectRef("ClusterRole", "", "x", "rbac/v1"))


def test_files_are_numbered_phases_then_plan_json() -> None:
    plan = make_plan(side("v1", 51, True, typha=True), side("v1", 50, True, typha=False))
    texts = {r.key: f"kind: {r.kind}\n" for p in plan.phases for r in p.apply}
    data = {"shape": plan.shape}
    files = plan_files(plan, texts, data)
    assert list(files) == [
        "01-calico-node-to-apiserver.apply.yaml",
        "02-remove-typha.apply.yaml",
        "02-remove-typha.delete.yaml",
        "plan.json",
    ]
    assert json.loads(files["plan.json"]) == data
    first = files["01-calico-node-to-apiserver.apply.yaml"]
    assert first.startswith("---\n# phase 1: calico-node-to-apiserver: ")
    assert first.count("---\n") == len(plan.phases[0].apply)
    stubs = files["02-remove-typha.delete.yaml"]
    assert stubs.count("---\n") == len(plan.phases[1].delete)


def test_objects_keep_their_document_text_and_need_a_name() -> None:
    text = "# head\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: Secret\nmetadata: {name: b}\n"
    (first, doc), (second, other) = objects_with_text([RenderedFile("f.yaml", text)])
    assert (first.name, second.name) == ("a", "b")
    assert (
        doc.startswith("# head\nkind: ConfigMap") and other == "kind: Secret\nmetadata: {name: b}\n"
    )
    with pytest.raises(TemplateError):
        objects_with_text([RenderedFile("f.yaml", "apiVersion: v1\nkind: ConfigMap\n")])
