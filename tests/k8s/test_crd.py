"""renderer/k8s/crd.py: custom resources checked against their CustomResourceDefinitions
as the API server checks them (through :class:`SchemaValidator` and its ``crds``)."""

from __future__ import annotations

import copy
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from renderer.finding import Finding
from renderer.k8s import crd
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import parse_stream
from renderer.k8s.schema import NOT_CHECKED_RULE, SchemaValidator
from tests.crdhelp import WIDGET_SCHEMA, widget, widget_crd

KUBE = ["1.33"]


def findings(obj: dict[str, Any], *crds: dict[str, Any]) -> list[tuple[str, str, str]]:
    found = SchemaValidator(KUBE, crds=list(crds) or [widget_crd()]).validate(obj)
    return [(f.severity, f.field, f.message) for f in found]


def fields(obj: dict[str, Any], *crds: dict[str, Any]) -> list[str]:
    return [field for _, field, _ in findings(obj, *crds)]


def test_a_valid_custom_resource_has_no_finding() -> None:
    spec = {
        "size": 3,
        "port": "http",
        "note": None,
        "extra": {"anything": {"goes": 1}, "inner": {"known": "x"}},
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "x": 1},
        "tags": ["a", "b"],
        "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 1}],
        "labels": {"x": "y"},
    }
    assert findings(widget(spec)) == []


def test_unknown_fields_are_errors_where_the_api_server_prunes() -> None:
    obj = widget({"size": 1, "sise": 2, "extra": {"free": 1, "inner": {"unknown": 1}}})
    assert findings(obj) == [
        ("error", "spec.extra.inner.unknown", "unknown field 'unknown'"),
        ("error", "spec.sise", "unknown field 'sise'"),
    ]
    assert fields(widget(other=1)) == ["other"]  # the root is closed too
    assert fields(widget(metadata={"name": "w", "nam": "x"})) == ["metadata.nam"]  # ObjectMeta


def test_values_are_checked_with_their_types_bounds_and_enums() -> None:
    assert fields(widget({"size": 0})) == ["spec.size"]  # exclusiveMinimum: true
    assert fields(widget({"size": "1"})) == ["spec.size"]
    assert fields(widget({"size": 1, "mode": "c"})) == ["spec.mode"]
    assert set(fields(widget({"size": 1, "port": True}))) == {"spec.port"}  # int or string
    assert fields(widget({"size": 1, "port": 8080})) == []
    assert fields(widget({"size": 1, "labels": {"a": 1}})) == ["spec.labels.a"]
    assert fields(widget(metadata={"name": "w", "labels": {"a": 1}})) == ["metadata.labels.a"]


def test_defaults_and_nulls_are_applied_before_validation() -> None:
    # mode is required and has a default: defaulted, not missing
    assert findings(widget({"size": 1})) == []
    # a null where the schema allows none is dropped unread, unless required
    assert findings(widget({"size": 1, "label": None})) == []
    assert findings(widget({"size": None})) == [("error", "spec", "'size' is a required property")]
    assert findings(widget({"size": 1, "note": None})) == []  # nullable: kept and allowed


def test_embedded_resources_need_apiversion_and_kind() -> None:
    obj = widget({"size": 1, "template": {"metadata": {"name": "p", "bogus": 1}}})
    assert findings(obj) == [
        ("error", "spec.template", "'apiVersion' is a required property"),
        ("error", "spec.template", "'kind' is a required property"),
        ("error", "spec.template.metadata.bogus", "unknown field 'bogus'"),
    ]
    assert fields(widget({"size": 1, "template": {"apiVersion": "", "kind": "Pod"}})) == [
        "spec.template.apiVersion"
    ]


def test_status_is_dropped_unread_with_a_status_subresource() -> None:
    obj = widget(status={"ready": "yes"})
    assert fields(obj) == ["status.ready"]
    assert findings(obj, widget_crd(status=True)) == []


def test_list_types_set_and_map_forbid_duplicates() -> None:
    obj = widget({"size": 1, "tags": ["a", "b", "a", "a"], "ports": [{"name": "x"}, {"name": "x"}]})
    assert findings(obj) == [
        ("error", "spec.ports[1]", 'duplicate entry with name="x"'),
        ("error", "spec.tags[2]", 'duplicate value "a"'),
    ]
    assert fields(widget({"size": 1, "ports": [{"port": 1}, {"port": 2}]})) == ["spec.ports[1]"]
    assert ("error", "spec.ports[0]", "must be an object for an array of list-type map") in (
        findings(widget({"size": 1, "ports": ["a"]}))
    )


def test_a_version_the_crd_does_not_serve_is_an_error() -> None:
    [(severity, field, message)] = findings({**widget(), "apiVersion": "example.com/v1alpha1"})
    assert (severity, field) == ("error", "apiVersion")
    assert "serves Widget" in message and "(served: v1)" in message
    [(severity, field, _)] = findings(widget(), widget_crd(served=False))
    assert (severity, field) == ("error", "apiVersion")


def test_a_kind_no_crd_defines_is_not_checked() -> None:
    [f] = SchemaValidator(KUBE).validate(widget())
    assert (f.rule, f.severity) == (NOT_CHECKED_RULE, "info")
    assert "custom resource of example.com: not schema-checked" in f.message
    [strict] = kubeschema.strict_unchecked([f])
    assert (strict.rule, strict.severity) == (NOT_CHECKED_RULE, "error")
    other = {**widget(), "kind": "Gadget"}
    counted = crd.unchecked(
        [*SchemaValidator(KUBE).validate(widget()), *SchemaValidator(KUBE).validate(other)]
    )
    assert counted == crd.Unchecked(2, ("Gadget example.com/v1", "Widget example.com/v1"))


def test_a_v1beta1_crd_keeps_unknown_fields_by_default() -> None:
    legacy: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "version": "v1",
            "validation": {"openAPIV3Schema": WIDGET_SCHEMA},
        },
    }
    assert findings(widget({"size": 1, "sise": 2}), legacy) == []
    assert fields(widget({"size": 0}), legacy) == ["spec.size"]
    pruning = copy.deepcopy(legacy)
    pruning["spec"]["preserveUnknownFields"] = False
    assert fields(widget({"size": 1, "sise": 2}), pruning) == ["spec.sise"]


def test_a_crd_without_a_usable_schema_is_an_error_on_its_resources() -> None:
    bad = widget_crd({"type": "object", "properties": {"spec": {"type": "widget"}}})
    [(severity, field, message)] = findings(widget(), bad)
    assert (severity, field) == ("error", "")
    assert "cannot be used" in message and "widgets.example.com" in message


def test_a_resource_valid_against_one_of_the_crds_is_valid() -> None:
    strict = widget_crd({"type": "object", "properties": {"spec": {"type": "object"}}})
    assert fields(widget()) == []
    assert fields(widget(), strict) == ["spec.mode", "spec.size"]
    assert fields(widget(), strict, widget_crd()) == []  # another of the tree's versions


def test_a_renders_own_crd_decides_its_kind_alone() -> None:
    closed = widget_crd({"type": "object", "properties": {"spec": {"type": "object"}}})
    text = "\n".join(json.dumps(o) for o in (closed, widget()))
    objects = parse_stream(text, "render.yaml")
    # the tree's CRD would accept it; the render's own (what the cluster gets) does not
    found = SchemaValidator(KUBE, crds=[widget_crd()]).validate_all(objects)
    assert [f.field for f in found if f.object and f.object.kind == "Widget"] == [
        "spec.mode",
        "spec.size",
    ]


def test_cached_findings_follow_the_crds_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CALICO_RENDER_NO_CACHE", raising=False)
    obj = widget({"size": 1, "label": "x"})
    assert fields(obj) == []
    narrower = copy.deepcopy(WIDGET_SCHEMA)
    del narrower["properties"]["spec"]["properties"]["label"]
    assert fields(obj, widget_crd(narrower)) == ["spec.label"]
    assert fields(obj) == []  # each answer under its own CRD, from the cache


def test_the_compiled_check_agrees_with_jsonschema() -> None:
    """The schema a CRD version becomes, validated by jsonschema alone, finds an error
    exactly where the validator (compiled check first) does."""
    [version] = [v for v in crd.crds_of([widget_crd()]) if v.served]
    document = crd.json_schema(version)
    shipped = files("kubernetes_validate") / "kubernetes-json-schema"
    definitions = json.loads(
        (shipped / kubeschema.schema_dir("1.33") / "_definitions.json").read_text()
    )
    registry: Registry[Any] = Resource.from_contents(document) @ (
        Resource.from_contents(definitions) @ Registry()
    )
    plain = jsonschema.Draft202012Validator(document, registry=registry)
    variants = [
        widget(),
        widget({"size": 2, "port": 1.5}),
        widget({"size": 2, "extra": {"inner": {"known": 1}}}),
        widget({"size": 2, "template": {"apiVersion": "v1", "kind": "Pod", "spec": {}}}),
        widget({"size": 2, "ports": [{"name": 1}]}),
        widget(metadata={"name": "w", "annotations": {"a": "b"}}),
        widget(metadata={"name": "w", "annotations": {"a": 1}}),
    ]
    for obj in variants:
        admitted = crd.admitted(obj, version)
        ours: list[Finding] = SchemaValidator(KUBE, crds=[widget_crd()]).validate(obj)
        assert bool(ours) == any(True for _ in plain.iter_errors(admitted)), obj
