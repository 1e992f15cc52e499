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
