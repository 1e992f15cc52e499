"""The version-check pipeline on its own: stages, findings and the capability view."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.checks import pipeline
from renderer.checks.exceptions import ExceptionSet, RuleException
from renderer.checks.options import CheckOptions
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.manifests.tree import resolve_version
from tests.clihelp import ref
from tests.gatehelp import BROKEN, TREE

KUBE = ("1.34",)
TYPHA = "Deployment kube-system/calico-typha"
ANTI = "spec.template.spec.affinity.podAntiAffinity"


def _options(tmp_path: Path, **kw: object) -> CheckOptions:
    return CheckOptions(TREE, tmp_path / "golden", kube_versions=KUBE, **kw)  # type: ignore[arg-type]


def _broken() -> list[K8sObject]:
    names = ("misspelled.yaml", "removed-api.yaml")
    return [o for n in names for o in parse_stream((BROKEN / n).read_text(), n)]


def test_schema_stage_of_the_broken_fixture_names_rule_object_and_field() -> None:
    inputs = pipeline.schema_inputs([("s", _broken())])
    items = [(i.digest, i.obj.data) for i in inputs]
    found = pipeline.located(inputs, pipeline.validate_objects(KUBE, items))
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


TREE_DIR = "kubernetes/calico/v9.4.0"


def test_a_version_failing_a_rule_fails_that_stage_only(tmp_path: Path) -> None:
    result = pipeline.check_version(resolve_version("v9.4.0", TREE), _options(tmp_path))
    assert result.stages == {
        "templates": "pass",
        "capability": "pass",
        "rules": "fail",
        "schema": "pass",
        "goldens": "missing",
    }
    assert [
        (f.stage, f.rule, f.severity, ref(f.object), f.field, f.file, f.line)
        for f in result.findings
    ] == [
        ("rules", "typha-anti-affinity", "error", TYPHA, ANTI, f"{TREE_DIR}/001-typha.yaml", 26),
        (
            "schema",
            "schema-not-checked",
            "info",
            "FelixConfiguration default",
            "",
            f"{TREE_DIR}/002-calico.yaml",
            107,
        ),
    ]
    # one finding for every scenario it holds for
    assert result.findings[1].scenarios == ("nodes-50", "nodes-51", "nodes-601")


def test_incomplete_typha_templates_stop_at_capability(tmp_path: Path) -> None:
    result = pipeline.check_version(resolve_version("v9.3.0", TREE), _options(tmp_path))
    assert (result.stages["capability"], result.stages["rules"], result.stages["schema"]) == (
        "fail",
        "skip",
        "skip",
    )
    assert [(f.stage, f.rule, f.severity) for f in result.findings] == [
        ("capability", "typha-replicas", "error")
    ]


@pytest.mark.parametrize("severity", [None, "warning"])
def test_an_exception_skips_or_downgrades_and_the_stage_passes(
    tmp_path: Path, severity: str | None
) -> None:
    reviewed = ExceptionSet("x.yaml", (RuleException("typha-anti-affinity", "why", (), severity),))
    result = pipeline.check_version(
        resolve_version("v9.4.0", TREE), _options(tmp_path, exceptions=reviewed)
    )
    assert result.stages["rules"] == "pass"
    rules = [(f.rule, f.severity, f.exception) for f in result.findings if f.stage == "rules"]
    assert rules == ([] if severity is None else [("typha-anti-affinity", "warning", "why")])
    assert result.exceptions == [("typha-anti-affinity", severity, "why", 1)]


def test_the_capability_view_has_no_goldens_and_files_relative_to_root() -> None:
    report = pipeline.release_check(resolve_version("v9.4.0", TREE), KUBE, ExceptionSet())
    assert [(f.rule, f.severity, ref(f.object), f.field, f.file) for f in report.rules] == [
        ("typha-anti-affinity", "error", TYPHA, ANTI, f"{TREE_DIR}/001-typha.yaml")
    ]
    assert [(f.rule, ref(f.object), f.file) for f in report.schema] == [
        ("schema-not-checked", "FelixConfiguration default", f"{TREE_DIR}/002-calico.yaml")
    ]
    assert report.kube_versions == KUBE and not report.release_ready


def test_a_value_that_changes_the_yaml_is_a_context_error_of_the_check(tmp_path: Path) -> None:
    """check renders its scenarios' values the controller way and reports where one
    writes structure its template did not (context-value-injects-yaml)."""
    import shutil

    version = tmp_path / "kubernetes" / "calico" / "v3.31.3"
    shutil.copytree(resolve_version("v3.31.3").path, version)
    (version / "003-note.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: note, namespace: kube-system}\n"
        'data:\n  method: {{ printf "%s\\n  injected: yes" .ipAutoDetectionMethod }}\n'
    )
    options = CheckOptions(tmp_path, tmp_path / "golden", ("1.34",))
    result = pipeline.check_version(resolve_version("v3.31.3", tmp_path), options)
    (found,) = [f for f in result.findings if f.rule == "context-value-injects-yaml"]
    assert (found.severity, found.stage, found.file, found.line) == (
        "error",
        "context",
        "kubernetes/calico/v3.31.3/003-note.yaml",
        5,
    )
    assert found.details["key"] == "ipAutoDetectionMethod"
