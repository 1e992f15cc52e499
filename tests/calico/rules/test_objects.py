"""The object rules: an object rendered twice in one version is an error naming both
template lines."""

from __future__ import annotations

from dataclasses import replace

from renderer.calico.rules import RuleInput, generic_rules, run_rules
from renderer.calico.rules.registry import REGISTRY
from renderer.finding import ObjectRef
from tests.calico.rules.inputs import rule_input


def _duplicates(data: RuleInput) -> list[tuple[str, ObjectRef | None, str, int]]:
    return [
        (f.severity, f.object, f.file, f.line)
        for f in run_rules(data, [REGISTRY["duplicate-object"]])
    ]


def test_the_fixture_has_no_duplicate_object() -> None:
    assert _duplicates(rule_input()) == []


def test_an_object_rendered_twice_is_an_error_at_the_later_line_naming_the_first() -> None:
    data = rule_input()
    first = next(o for o in data.objects if o.kind == "Deployment")
    changed = {**first.data, "spec": {**first.data["spec"], "replicas": 9}}
    again = replace(first, data=changed, file="v9.1.0/003-copy.yaml", line=7, source_line=7)
    found = run_rules(replace(data, objects=[*data.objects, again]), generic_rules())
    assert [(f.rule, f.severity, str(f.object), f.file, f.line) for f in found] == [
        ("duplicate-object", "error", first.ref, "v9.1.0/003-copy.yaml", 7)
    ]
    assert first.where in found[0].message  # both template lines are named


def test_a_repeat_differing_only_in_labels_is_a_warning_naming_what_differs() -> None:
    """cluster-api's provider files each declare the cluster-system Namespace with their
    own provider label: one Namespace, whose last render's labels stay."""
    data = rule_input()
    first = next(o for o in data.objects if o.kind == "Deployment")
    meta = {**first.data["metadata"], "labels": {"provider": "bootstrap"}}
    again = replace(first, data={**first.data, "metadata": meta}, file="v9.1.0/x.yaml", line=3)
    found = run_rules(replace(data, objects=[*data.objects, again]), generic_rules())
    assert [(f.rule, f.severity, str(f.object), f.line) for f in found] == [
        ("duplicate-object-metadata", "warning", first.ref, 3)
    ]
    labels = first.data["metadata"].get("labels") or {}
    before = {k: labels.get(k, "(none)") for k in ("provider",)}
    assert f"labels provider: {before['provider']} → bootstrap" in found[0].message
    identical = replace(first, file="v9.1.0/y.yaml", line=5)
    (same,) = run_rules(replace(data, objects=[*data.objects, identical]), generic_rules())
    assert (same.rule, same.severity) == ("duplicate-object-metadata", "warning")
    assert "(identical)" in same.message


def test_the_object_rules_are_the_generic_ones() -> None:
    """The gate runs them on every addon; the rest of the registry is Calico's."""
    assert [r.id for r in generic_rules()] == ["duplicate-object", "duplicate-object-metadata"]


def test_same_name_in_another_namespace_or_kind_is_no_duplicate() -> None:
    data = rule_input()
    first = next(o for o in data.objects if o.kind == "Deployment")
    other_ns = {**first.data, "metadata": {**first.data["metadata"], "namespace": "other"}}
    other_kind = {**first.data, "kind": "DaemonSet"}
    extra = [replace(first, data=other_ns), replace(first, data=other_kind)]
    assert _duplicates(replace(data, objects=[*data.objects, *extra])) == []
