"""renderer/api/verbs/crds.py: a render's custom resources checked against its own CRDs,
then those another addon of the tree renders."""

from __future__ import annotations

import json
from pathlib import Path

from renderer import api
from renderer.api.verbs.crds import tree_crds
from tests.crdhelp import widget, widget_crd


def _tree(root: Path) -> Path:
    """certs renders Widget's CRD (a template, like cert-manager's), consumer a Widget
    with a misspelled field and a Gadget no CRD of the tree defines."""
    certs = root / "kubernetes" / "certs" / "v1.0"
    certs.mkdir(parents=True)
    # a template: a comment action the controller renders away
    (certs / "crd.yaml").write_text("{{/* Widget */}}" + json.dumps(widget_crd(), indent=1))
    consumer = root / "kubernetes" / "consumer" / "v2"
    consumer.mkdir(parents=True)
    (consumer / "cr.yaml").write_text(
        "apiVersion: example.com/v1\n"
        "kind: Widget\n"
        "metadata: {name: w, namespace: '{{ .namespace }}'}\n"
        "spec:\n"
        "  size: 1\n"
        "  sise: 2\n"
        "---\n" + json.dumps({**widget(), "kind": "Gadget"}) + "\n"
    )
    return root


def test_another_addons_crd_checks_a_renders_custom_resources(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    request = api.Request.for_addon("consumer", "v2", root=root, kube=["1.33"])
    result = api.render_addon(request)
    found = [(f.rule, f.severity, f.field, f.file) for f in result.findings if f.stage == "schema"]
    assert found == [
        ("schema-invalid", "error", "spec.sise", "kubernetes/consumer/v2/cr.yaml"),
        ("schema-not-checked", "info", "", "kubernetes/consumer/v2/cr.yaml"),
    ]
    [located] = [f for f in result.findings if f.field == "spec.sise"]
    assert located.line == 6  # the field's line in the template
    strict = api.Request.for_addon("consumer", "v2", root=root, kube=["1.33"], strict=True)
    assert [f.severity for f in api.render_addon(strict).findings if f.stage == "schema"] == [
        "error",
        "error",
    ]


def test_the_trees_crds_are_located_in_the_tree(tmp_path: Path) -> None:
    [version] = [v for v in tree_crds(_tree(tmp_path)) if v.served]
    assert (version.group, version.kind, version.version) == ("example.com", "Widget", "v1")
    assert version.where == "kubernetes/certs/v1.0/crd.yaml:1"
    assert not tree_crds(tmp_path, [("example.com", "Gadget")])
