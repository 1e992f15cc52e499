"""The version-check pipeline on its own: stages, findings and the capability view."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from renderer import api
from renderer.bke.context import ContextDetails
from renderer.checks import pipeline
from renderer.checks.exceptions import ExceptionSet, RuleException
from renderer.checks.options import CheckOptions
from renderer.checks.report import ReleaseReport, VersionResult
from renderer.finding import Finding, ObjectRef
from renderer.manifests.tree import resolve_version
from tests.clihelp import ref
from tests.gatehelp import TREE

KUBE = ("1.34",)
TYPHA = "Deployment kube-system/calico-typha"
ANTI = "spec.template.spec.affinity.podAntiAffinity"


def _options(tmp_path: Path, root: Path = TREE, **kw: object) -> CheckOptions:
    return CheckOptions(root, tmp_path / "golden", kube_versions=KUBE, **kw)  # type: ignore[arg-type]


TREE_DIR = "kubernetes/calico/v9.4.0"


def test_a_version_failing_a_rule_fails_that_stage_only(tmp_path: Path) -> None:
    result = pipeline.check_version(resolve_version("v9.4.0", TREE), _options(tmp_path))
    assert result.stages == {
        "templates": "pass",
        "capability": "pass",
        "rules": "fail",
        "schema": "pass",
        "coverage": "pass",
        "goldens": "missing",
    }
    assert [
        (f.stage, f.rule, f.severity, ref(f.object), f.field, f.file, f.line)
        for f in result.findings
    ] == [
        ("rules", "typha-anti-affinity", "error", TYPHA, ANTI, f"{TREE_DIR}/001-typha.yaml", 26),
        ("goldens", "golden-missing", "error", "", "", f"{TREE_DIR}/001-typha.yaml", 1),
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
    assert result.findings[2].scenarios == (
        "nodes-50",
        "nodes-51",
        "nodes-601",
        "nodes-51-repo-empty",
    )


def test_incomplete_typha_templates_fail_capability_and_every_stage_still_runs(
    tmp_path: Path,
) -> None:
    result = pipeline.check_version(resolve_version("v9.3.0", TREE), _options(tmp_path))
    assert {s: result.stages[s] for s in ("capability", "rules", "schema", "goldens")} == {
        "capability": "fail",
        "rules": "pass",
        "schema": "pass",
        "goldens": "missing",
    }
    contract = [f for f in result.findings if f.stage == "capability"]
    assert [(f.rule, f.severity, ref(f.object), f.field, f.file, f.line) for f in contract] == [
        (
            "typha-replicas",
            "error",
            TYPHA,
            "spec.replicas",
            "kubernetes/calico/v9.3.0/001-typha.yaml",
            12,
        )
    ]
    assert contract[0].message == "3, typhaReplicas=4"
    # the install above 50 nodes is refused, the render is checked all the same
    refused = {s.name for s in result.scenarios if "refused" in s.decision}
    assert refused == {"nodes-51", "nodes-601", "nodes-51-repo-empty"}


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


# --- check and capability say the same ------------------------------------------------

BKE_REAL = Path(__file__).parents[1] / "fixtures" / "bke-real"
REAL_FILE = "kubernetes/calico/v3.31.3/calico.yaml"
BUNDLED = Path(__file__).parents[2] / "manifests" / "kubernetes" / "calico"
REPLICAS = "  replicas: {{ .typhaReplicas | }}\n"


def _planted(tmp_path: Path, defect: str) -> Path:
    """A copy of BKE's real v3.31.3 with one defect: Typha's replicas hard-coded to 3,
    or its PodDisruptionBudget deleted."""
    root = tmp_path / defect
    (root / REAL_FILE).parent.mkdir(parents=True)
    text = (BKE_REAL / REAL_FILE).read_text(encoding="utf-8")
    if defect == "replicas":
        assert text.count(REPLICAS) == 1
        text = text.replace(REPLICAS, "  replicas: 3\n")
    else:
        start = text.index(
            "# Source: calico/templates/calico-typha.yaml\n# This manifest creates a Pod"
        )
        end = text.index("---\n", start) + 4
        assert "name: calico-typha" in text[start:end]
        text = text[:start] + text[end:]
    (root / REAL_FILE).write_text(text, encoding="utf-8")
    return root


Normal = tuple[str, str, bool, ObjectRef | None, str, int]


def _normal(f: Finding, version: str) -> Normal:
    """What both reports must agree on: stage, rule, blocking, object, file (relative
    to the version directory) and template line."""
    return (
        f.stage,
        f.rule,
        f.severity == "error",
        f.object,
        f.file.removeprefix(f"{version}/"),
        f.line,
    )


def _capability_findings(report: ReleaseReport) -> set[Normal]:
    version = report.capability.version
    found = [*report.contract, *report.rules, *report.schema, *report.context]
    if report.fidelity is not None:
        found += report.fidelity.findings
    return {_normal(f, version) for f in found}


def _same_findings(root: Path | None, tmp_path: Path) -> list[VersionResult]:
    options = api.check_options(root=root, golden=tmp_path / "golden", kube_versions=KUBE, jobs=1)
    report = api.check(options)
    for v in report.versions:
        cap = api.capability(v.version, root=root, kube_versions=KUBE)
        mine = {_normal(f, v.version) for f in v.findings if f.stage != "goldens"}
        assert mine == _capability_findings(cap), v.version
    return report.versions


def test_check_and_capability_report_the_same_findings_for_every_bundled_version(
    tmp_path: Path,
) -> None:
    assert len(_same_findings(None, tmp_path)) == 5


@pytest.mark.parametrize("defect", ["replicas", "pdb"])
def test_a_contract_failure_is_located_and_every_stage_still_runs(
    tmp_path: Path, defect: str
) -> None:
    [result] = _same_findings(_planted(tmp_path, defect), tmp_path)
    assert result.stages["capability"] == "fail"
    assert {s: result.stages[s] for s in ("rules", "schema")} == {"rules": "fail", "schema": "pass"}
    assert result.stages["goldens"] == "missing"  # compared: there are none yet
    found = [f for f in result.findings if f.stage == "capability"]
    contract = [f for f in found if f.rule != "typha-controller-disagrees"]
    assert contract and all(f.object and f.file and f.line for f in contract)
    # without a Typha PDB BKE's controller still finds every string of its search (the
    # kube-controllers PDB names the kind): it would install Typha, and that is said
    disagrees = [(f.severity, f.file) for f in found if f.rule == "typha-controller-disagrees"]
    assert disagrees == (
        [("error", "kubernetes/calico/v3.31.3/calico.yaml")] if defect == "pdb" else []
    )
    if defect == "replicas":
        assert [(f.rule, ref(f.object), f.field, f.file, f.line, f.message) for f in contract] == [
            (
                "typha-replicas",
                TYPHA,
                "spec.replicas",
                "kubernetes/calico/v3.31.3/calico.yaml",
                7481,
                "3, typhaReplicas=4",
            )
        ]
    else:
        assert {(f.rule, ref(f.object)) for f in contract} == {("typha-pdb", TYPHA)}
    # the rules ran: BKE's v3.31.3 has no Typha anti-affinity
    assert "typha-anti-affinity" in {f.rule for f in result.findings if f.stage == "rules"}


# --- planted defects in branches only derived scenarios render ---------------------------


def test_a_typo_in_the_bgp_branch_fails_the_schema_stage(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(BUNDLED / "v3.28.2", root / "kubernetes/calico/v3.28.2")
    path = root / "kubernetes/calico/v3.28.2/002-calico.yaml"
    text = path.read_text(encoding="utf-8")
    bgp = '{{- else if eq .calicoMode "bgp" }}\n              value: "Never"\n'
    assert text.count(bgp) == 1
    path.write_text(text.replace(bgp, bgp.replace("value:", "valeu:")), encoding="utf-8")
    result = pipeline.check_version(resolve_version("v3.28.2", root), _options(tmp_path, root=root))
    assert result.stages["schema"] == "fail"
    [typo] = [f for f in result.findings if f.stage == "schema" and f.severity == "error"]
    assert (typo.rule, ref(typo.object), typo.file, typo.line, typo.scenarios) == (
        "schema-invalid",
        "DaemonSet kube-system/calico-node",
        "kubernetes/calico/v3.28.2/002-calico.yaml",
        665,
        ("nodes-51-calicoMode-bgp-repo-empty",),
    )
    assert "valeu" in typo.message


def test_a_misspelled_default_registry_fails_without_goldens(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / REAL_FILE).parent.mkdir(parents=True)
    text = (BKE_REAL / REAL_FILE).read_text(encoding="utf-8")
    default = "{{ else }}hub.oepkgs.net/openfuyao/{{ end }}calico/typha:v3.31.3"
    assert text.count(default) == 1
    text = text.replace(default, default.replace("oepkgs.net", "oepkgs.nte"))
    (root / REAL_FILE).write_text(text, encoding="utf-8")
    result = pipeline.check_version(resolve_version("v3.31.3", root), _options(tmp_path, root=root))
    assert result.golden.status == "missing"
    [bad] = [f for f in result.findings if f.rule == "calico-one-registry"]
    assert (bad.severity, ref(bad.object), bad.file, bad.line, bad.scenarios) == (
        "error",
        TYPHA,
        "kubernetes/calico/v3.31.3/calico.yaml",
        7531,
        ("nodes-51-ipAutoDetectionMethod-empty-repo-empty",),
    )
    assert result.stages["rules"] == "fail"


def test_a_value_that_changes_the_yaml_is_a_context_error_of_the_check(tmp_path: Path) -> None:
    """check renders its scenarios' values the controller way and reports where one
    writes structure its template did not (context-value-injects-yaml)."""
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
    assert isinstance(found.details, ContextDetails)
    assert found.details.key == "ipAutoDetectionMethod"
