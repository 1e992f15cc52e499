"""The object rules: an object rendered twice in one version is an error naming both
template lines."""

from __future__ import annotations

from dataclasses import replace

from renderer.calico.rules import RuleInput, run_rules
from renderer.calico.rules.registry import REGISTRY
from tests.calico.rules.inputs import rule_input


def _duplicates(data: RuleInput) -> list[tuple[str, str, str, int]]:
    return [
        (f.severity, f.object, f.file, f.line)
        for f in run_rules(data, [REGISTRY["duplicate-object"]])
    ]


def test_the_fixture_has_no_duplicate_object() -> None:
    assert _duplicates(rule_input()) == []


def test_an_object_rendered_twice_is_an_error_at_the_later_line_naming_the_first() -> None:
    data = rule_input()
    first = next(o for o in data.objects if o.kind == "Deployment")
    again = replace(first, file="v9.1.0/003-copy.yaml", line=7, source_line=7)
    found = run_rules(replace(data, objects=[*data.objects, again]), [REGISTRY["duplicate-object"]])
    assert [(f.rule, f.severity, str(f.object), f.file, f.line) for f in found] == [
        ("duplicate-object", "error", first.ref, "v9.1.0/003-copy.yaml", 7)
    ]
    assert first.where in found[0].message  # both template lines are named


def test_same_name_in_another_namespace_or_kind_is_no_duplicate() -> None:
    data = rule_input()
    first = next(o for o in data.objects if o.kind == "Deployment")
    other_ns = {**first.data, "metadata": {**first.data["metadata"], "namespace": "other"}}
    other_kind = {**first.data, "kind": "DaemonSet"}
    extra = [replace(first, data=other_ns), replace(first, data=other_kind)]
    assert _duplicates(replace(data, objects=[*data.objects, *extra])) == []
