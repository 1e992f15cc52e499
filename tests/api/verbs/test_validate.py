"""The validate verb: manifest files against strict schemas, counted as kubeconform counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer import api
from renderer.api.results import Validation
from renderer.errors import InputError
from tests.clihelp import ref
from tests.gatehelp import BROKEN

OBJECTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: ok, namespace: default}
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: bad, namespace: default}
data: {a: b}
bogus: 1
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: default}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
"""


def test_validate_refuses_an_unknown_kube_version_before_reading_files() -> None:
    with pytest.raises(InputError) as err:
        api.validate(["/nonexistent.yaml"], ["0.1"])
    assert err.value.file is None


def test_validate_reports_schema_findings_of_files() -> None:
    result = api.validate([str(BROKEN / "removed-api.yaml")], ["1.30"])
    assert (result.objects, result.kube_versions) == (1, ("1.30",))
    assert [(f.stage, f.rule, ref(f.object), f.field) for f in result.errors] == [
        ("schema", "schema-invalid", "PodDisruptionBudget kube-system/calico-typha", "apiVersion")
    ]


def test_validation_counts_resources_as_kubeconform_does(tmp_path: Path) -> None:
    (tmp_path / "objects.yaml").write_text(OBJECTS)
    result = api.validate([str(tmp_path)], ["1.34"], skip=["Secret"])
    assert isinstance(result, Validation)
    assert result.files == (str(tmp_path / "objects.yaml"),)
    assert (result.objects, result.skipped) == (4, 1)
    assert [(f.rule, f.severity, ref(f.object)) for f in result.findings] == [
        ("schema-invalid", "error", "ConfigMap default/bad"),
        ("schema-not-checked", "info", "Widget w"),
    ]
    assert [ref(f.object) for f in result.errors] == ["ConfigMap default/bad"]
    assert result.resources() == {"valid": 1, "invalid": 1, "skipped": 1, "not_checked": 1}


def test_a_label_yaml_1_1_reads_as_a_boolean_is_a_warning_and_a_schema_error(
    tmp_path: Path,
) -> None:
    """validate reads files as BKE's controller does: ``on: yes`` is the label
    ``true: true``, whose value the schema refuses; the warnings name the line (a schema
    finding of a file without a template names its object's line)."""
    path = tmp_path / "cm.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    on: yes\n",
        encoding="utf-8",
    )
    result = api.validate([str(path)], ["1.30"])
    assert [(f.rule, f.severity, f.line, f.field) for f in result.findings] == [
        ("yaml-1.1-reading", "warning", 6, "metadata.labels.true"),
        ("schema-invalid", "error", 1, "metadata.labels.true"),
    ]
    warning = result.findings[0].message  # both readings of the line, one finding
    assert 'key `on` is "true"' in warning and "value `yes` is true" in warning
