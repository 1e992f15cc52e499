"""The capability verb: one version's release check."""

from __future__ import annotations

import shutil
from pathlib import Path

from renderer import api
from renderer.manifests.tree import COMPONENT
from tests.gatehelp import TREE, yes_label_tree


def test_capability_is_the_release_check_of_one_version() -> None:
    report = api.capability("v9.4.0", root=TREE, kube_versions=["1.30"])
    assert [(f.rule, f.severity) for f in report.rules] == [("typha-anti-affinity", "error")]
    assert report.kube_versions == ("1.30",) and not report.release_ready


def test_capability_and_check_judge_what_the_controller_decodes(tmp_path: Path) -> None:
    """A label ``yes`` (the boolean true to BKE's controller): both views report the
    yaml-1.1-reading warning and the schema error, at the label's template line."""
    root = yes_label_tree(tmp_path / "tree")
    expected = [
        ("yaml-1.1-reading", "warning", 8, "metadata.labels.enabled"),
        ("schema-invalid", "error", 8, "metadata.labels.enabled"),
    ]
    report = api.capability("v1.0.0", root=root, kube_versions=["1.30"])
    assert [(f.rule, f.severity, f.line, f.field) for f in report.schema] == expected
    options = api.check_options(
        root=root, golden=tmp_path / "golden", kube_versions=["1.30"], jobs=1, update=True
    )
    [version] = api.check(options).versions
    schema = [f for f in version.findings if f.stage == "schema"]
    assert [(f.rule, f.severity, f.line, f.field) for f in schema] == expected


def test_capability_and_check_report_where_the_controller_judges_otherwise(
    tmp_path: Path,
) -> None:
    real = Path(__file__).parents[2] / "fixtures" / "bke-real"
    shutil.copytree(real / COMPONENT, tmp_path / COMPONENT)
    template = tmp_path / COMPONENT / "v3.31.3" / "calico.yaml"
    text = template.read_text(encoding="utf-8")
    template.write_text(text.replace("name: calico-typha", 'name: "calico-typha"'), "utf-8")
    report = api.capability("v3.31.3", root=tmp_path)
    [found] = [f for f in report.findings if f.rule == "typha-controller-disagrees"]
    assert found.stage == "capability" and found.severity == "error"
    assert not report.release_ready
    gate = api.check(api.check_options(root=tmp_path, golden=tmp_path / "golden", jobs=1))
    rules = {f.rule for v in gate.versions for f in v.findings}
    assert "typha-controller-disagrees" in rules
