"""A CustomResourceDefinition exercising what the API server's validation of custom
resources honours, and resources of its kind, for the tests of CRD validation."""

from __future__ import annotations

import copy
from typing import Any

WIDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["size", "mode"],
            "properties": {
                "size": {"type": "integer", "minimum": 0, "exclusiveMinimum": True},
                "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
                "port": {
                    "x-kubernetes-int-or-string": True,
                    "anyOf": [{"type": "integer"}, {"type": "string"}],
                },
                "note": {"type": "string", "nullable": True},
                "label": {"type": "string"},
                "extra": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {
                        "inner": {"type": "object", "properties": {"known": {"type": "string"}}}
                    },
                },
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-kubernetes-list-type": "set",
                },
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                    },
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
    },
}


def widget_crd(
    schema: dict[str, Any] | None = None, *, status: bool = False, served: bool = True
) -> dict[str, Any]:
    version: dict[str, Any] = {
        "name": "v1",
        "served": served,
        "storage": True,
        "schema": {"openAPIV3Schema": copy.deepcopy(schema or WIDGET_SCHEMA)},
    }
    if status:
        version["subresources"] = {"status": {}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1alpha1", "served": False, "storage": False},
                version,
            ],
        },
    }


def widget(spec: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"size": 1, "mode": "a"} if spec is None else spec,
        **top,
    }
