"""The capability document (output/capability.py): its text lists the contract item by
item and a schema block per Kubernetes version; its JSON is the report's data (whole
forms are regressions in test_text and test_json)."""

from __future__ import annotations

from renderer import api, output
from renderer.output.capability import CapabilityDocument, release_data
from tests.gatehelp import TREE


def test_text_has_a_line_per_contract_item_in_order() -> None:
    report = api.capability("v9.3.0", root=TREE, kube_versions=("1.30",))
    lines = output.render("text", CapabilityDocument(report)).splitlines()
    items = report.capability.items
    assert lines[0] == f"calico-render capability: {TREE}"
    marks = [line.split()[0] for line in lines[3 : 3 + len(items)]]
    assert marks == ["ok" if item.ok else "MISSING" for item in items]
    assert "MISSING" in marks  # v9.3.0's contract is incomplete


def test_text_has_one_schema_block_naming_every_kubernetes_version() -> None:
    report = api.capability("v9.4.0", root=TREE, kube_versions=("1.29", "1.30"))
    lines = output.render("text", CapabilityDocument(report)).splitlines()
    (block,) = [line for line in lines if line.startswith("Schema,")]
    assert block.startswith("Schema, Kubernetes 1.29, 1.30 (strict)")
    # one line per problem, listing the Kubernetes versions it holds for
    found = [line for line in lines if "[schema-not-checked]" in line]
    assert len(found) == 1 and found[0].endswith("(kube 1.29, 1.30)")


def test_json_is_the_report_data_and_offers_ci_annotations_not_junit() -> None:
    report = api.capability("v9.4.0", root=TREE, kube_versions=("1.30",))
    doc = CapabilityDocument(report)
    assert doc.data() == release_data(report)
    assert output.names(CapabilityDocument) == ["text", "json", "sarif", "codequality", "html"]
    assert [f["rule"] for f in doc.data()["findings"]] == [f.rule for f in doc.annotations()]
