"""validation: a version's distinct objects validated once, findings at their first occurrence."""

from __future__ import annotations

from renderer.checks import validation
from renderer.k8s.parse import K8sObject, parse_stream
from tests.clihelp import ref
from tests.gatehelp import BROKEN

KUBE = ("1.34",)
TYPHA = "Deployment kube-system/calico-typha"


def _broken() -> list[K8sObject]:
    names = ("misspelled.yaml", "removed-api.yaml")
    return [o for n in names for o in parse_stream((BROKEN / n).read_text(), n)]


def test_schema_stage_of_the_broken_fixture_names_rule_object_and_field() -> None:
    inputs = validation.schema_inputs([("s", _broken())])
    items = [(i.digest, i.obj.data) for i in inputs]
    found = validation.located(inputs, validation.validate_objects(KUBE, items))
    assert [(f.stage, f.rule, f.severity, ref(f.object), f.field, f.file) for f in found] == [
        ("schema", "schema-invalid", "error", TYPHA, "spec.replica", "misspelled.yaml"),
        (
            "schema",
            "schema-invalid",
            "error",
            TYPHA,
            "spec.template.spec.containers[0].imagePullPolcy",
            "misspelled.yaml",
        ),
        (
            "schema",
            "schema-invalid",
            "error",
            "PodDisruptionBudget kube-system/calico-typha",
            "apiVersion",
            "removed-api.yaml",
        ),
    ]
    assert all(f.scenarios == ("s",) and f.kube_versions == KUBE for f in found)


def test_distinct_objects_in_first_seen_order_with_each_scenario_once() -> None:
    text = (BROKEN / "misspelled.yaml").read_text()
    first = parse_stream(text, "first.yaml")
    again = parse_stream(text, "second.yaml")  # the same objects in another file
    other = parse_stream((BROKEN / "removed-api.yaml").read_text(), "other.yaml")
    inputs = validation.schema_inputs([("a", first), ("b", other + again), ("a", again)])
    assert [(i.obj.file, i.scenarios) for i in inputs] == [
        ("first.yaml", ("a", "b")),
        ("other.yaml", ("b",)),
    ]
    assert len({i.digest for i in inputs}) == 2
    items = [(i.digest, i.obj.data) for i in inputs]
    found = validation.located(inputs, validation.validate_objects(KUBE, items))
    assert {(f.file, f.scenarios) for f in found} == {
        ("first.yaml", ("a", "b")),
        ("other.yaml", ("b",)),
    }


def test_one_validator_per_kubernetes_versions() -> None:
    validator = validation.schema_validator(KUBE)
    assert validation.schema_validator(list(KUBE)) is validator
    assert validation.schema_validator(("1.33",)) is not validator


def test_an_object_of_an_api_kubernetes_does_not_serve_is_counted_apart() -> None:
    """Neither validated nor a custom resource without a CRD: a v1beta1 CRD."""
    text = (
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n"
        "metadata: {name: a.example.com}\nspec: {group: example.com}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
        "apiVersion: nothing.example.com/v1\nkind: Thing\nmetadata: {name: t}\n"
    )
    inputs = validation.schema_inputs([("s", parse_stream(text, "x.yaml"))])
    counts = validation.check_inputs(KUBE, inputs).counts()
    assert counts == {
        "objects": 3,
        "validated": 1,
        "crd_validated": 0,
        "not_checked": 1,
        "not_checked_kinds": ["nothing.example.com/v1 Thing"],
        "unserved": 1,
    }
