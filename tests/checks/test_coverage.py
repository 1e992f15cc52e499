"""The coverage stage: scenarios derived from the templates, and the branches no
scenario renders."""

from __future__ import annotations

import shutil
from pathlib import Path

from renderer.checks import coverage, pipeline
from renderer.checks.addons import AddonRenders, addon_cluster
from renderer.checks.options import CheckOptions
from renderer.checks.renders import Renders, assess
from renderer.manifests.tree import resolve_version
from tests.gatehelp import GATE_TREE, TREE

KUBE = ("1.34",)


def _derive(name: str, root: Path | None = None) -> coverage.Coverage:
    version = resolve_version(name, root)
    cap = assess(Renders(version))
    return coverage.derive(version, cap.capable, cap.legacy, cap.missing)


def test_bundled_versions_render_every_branch_with_named_scenarios() -> None:
    cov = _derive("v3.28.2")
    assert [s.name for s in cov.scenarios] == [
        "nodes-50",
        "nodes-51",
        "nodes-601",
        "nodes-51-calicoMode-bgp-repo-empty",
        "nodes-51-calicoMode-unset",
    ]
    assert cov.to_dict() == {
        "scenarios": 5,
        "branches": 19,
        "covered": 19,
        "uncovered": 0,
        "not_analysed": [],
    }
    legacy = _derive("v3.25.0")
    assert [s.name for s in legacy.scenarios][:2] == ["nodes-50", "upgrade-51"]
    assert all(s.nodes == 50 for s in legacy.scenarios[2:])  # no refused install


def _unreachable(tmp_path: Path) -> Path:
    """The v9.1.0 fixture with a branch no context reaches: allowTypha is the policy's
    "true" or "false", never "maybe"."""
    root = tmp_path / "tree"
    shutil.copytree(TREE / "kubernetes/calico/v9.1.0", root / "kubernetes/calico/v9.1.0")
    path = root / "kubernetes/calico/v9.1.0/002-calico.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text + '{{- if eq .allowTypha "maybe" }}\n# never\n{{- end }}\n', encoding="utf-8"
    )
    return root


def test_a_branch_no_scenario_renders_is_a_warning_or_with_strict_an_error(
    tmp_path: Path,
) -> None:
    root = _unreachable(tmp_path)
    line = (root / "kubernetes/calico/v9.1.0/002-calico.yaml").read_text().count("\n") - 2
    cov = _derive("v9.1.0", root)
    assert [(b.file, b.line, b.kind) for b in cov.uncovered] == [("002-calico.yaml", line, "if")]
    assert cov.to_dict()["uncovered"] == 1
    options = CheckOptions(root, tmp_path / "golden", kube_versions=KUBE)
    result = pipeline.check_version(resolve_version("v9.1.0", root), options)
    found = [(f.stage, f.rule, f.severity, f.file, f.line) for f in result.findings]
    assert (
        "coverage",
        "branch-not-rendered",
        "warning",
        "kubernetes/calico/v9.1.0/002-calico.yaml",
        line,
    ) in found
    assert result.stages["coverage"] == "pass" and result.coverage is not None
    assert result.coverage["uncovered"] == 1
    strict = pipeline.check_version(
        resolve_version("v9.1.0", root), CheckOptions(root, tmp_path / "g", KUBE, strict=True)
    )
    assert strict.stages["coverage"] == "fail" and not strict.passed
    assert [f.severity for f in strict.findings if f.stage == "coverage"] == ["error"]


def test_an_addons_branches_are_covered_by_its_params_and_the_clusters_keys_stay() -> None:
    """The widgets addon takes its mode branch only for a set, non-empty widgetMode: a
    scenario gives the addon that param; the nodes' keys the controller derives are
    never varied."""
    version = resolve_version("v1.0.0", GATE_TREE, "widgets")
    shared = AddonRenders(version, addon_cluster(version, GATE_TREE, None))
    cov = coverage.derive_addon(version, shared.rendered, shared.cluster.base, fixed={"widgetMode"})
    assert [s.name for s in cov.scenarios] == ["cluster", "cluster-repo-set"]
    assert [(b.file, b.line) for b in cov.uncovered] == [("002-widgets.yaml", 31)]
    cov = coverage.derive_addon(version, shared.rendered, shared.cluster.base)
    assert [s.name for s in cov.scenarios] == [
        "cluster",
        "cluster-repo-set-widgetMode-calico_render_check",
        "cluster-widgetMode-empty",
    ]
    assert cov.uncovered == []
