"""The parallel runner: chunks, and reports that do not depend on the number of jobs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from renderer import api
from renderer.checks import runner
from renderer.checks.options import CheckOptions
from renderer.checks.report import MISSING, NEW, SKIP
from renderer.errors import InputError
from renderer.output import render
from renderer.output.check import CheckDocument
from renderer.store import cache
from tests.gatehelp import GATE_TREE, TREE, addon_tree


@pytest.mark.parametrize(
    ("n", "parts", "sizes"),
    [(0, 3, []), (1, 3, [1]), (5, 2, [3, 2]), (6, 3, [2, 2, 2]), (7, 3, [3, 3, 1])],
)
def test_chunks_are_consecutive_and_at_most_parts(n: int, parts: int, sizes: list[int]) -> None:
    items = list(range(n))
    chunks = runner.chunks(items, parts)
    assert [len(c) for c in chunks] == sizes
    assert [x for c in chunks for x in c] == items


def test_the_report_is_the_same_whatever_the_jobs(tmp_path: Path) -> None:
    def report(jobs: int) -> str:
        options = CheckOptions(TREE, tmp_path / "golden", kube_versions=("1.34",), jobs=jobs)
        return render("json", CheckDocument(runner.run_check(options)))

    assert report(1) == report(3)


def test_versions_are_reported_in_order_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    options = CheckOptions(TREE, tmp_path / "golden", kube_versions=("1.34",))
    result = runner.run_check(options, lambda v: seen.append(v.version))
    assert seen == [v.version for v in result.versions]
    assert [v.version for v in result.versions] == [
        "v9.0.0",
        "v9.1.0",
        "v9.2.0",
        "v9.3.0",
        "v9.4.0",
    ]


def test_a_check_answered_from_the_cache_is_the_check_done_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    options = CheckOptions(tree, tmp_path / "golden", kube_versions=("1.34",))
    first = render("json", CheckDocument(runner.run_check(options)))
    assert render("json", CheckDocument(runner.run_check(options))) == first
    template = sorted((tree / "kubernetes" / "calico" / "v9.1.0").glob("*.yaml"))[-1]
    template.write_text(template.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    edited = render("json", CheckDocument(runner.run_check(options)))
    monkeypatch.setenv(cache.ENV_OFF, "1")  # a run that keeps nothing: the same verdicts
    assert render("json", CheckDocument(runner.run_check(options))) == edited


def _children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(entry))
    return found


def _alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the workers")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_every_worker_and_releases_the_golden_lock(
    tmp_path: Path, sig: signal.Signals
) -> None:
    root = tmp_path / "tree"
    for i in range(12):  # enough versions that the check is still running when signalled
        shutil.copytree(TREE / "kubernetes/calico/v9.1.0", root / f"kubernetes/calico/v9.1.{i}")
    golden = tmp_path / "golden"
    env = {**os.environ, "CALICO_RENDER_NO_CACHE": "1"}
    argv = [sys.executable, "-m", "renderer", "check", str(root), "--golden", str(golden)]
    proc = subprocess.Popen(
        [*argv, "--jobs", "2", "--update-golden"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.02)
    assert len(workers) >= 2, "the check never started its workers"
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=10)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130)
    assert err.strip().endswith("terminated" if sig == signal.SIGTERM else "interrupted")
    end = time.monotonic() + 2
    while _alive(workers) and time.monotonic() < end:
        time.sleep(0.02)
    assert _alive(workers) == set()
    again = subprocess.run(
        [*argv, "--jobs", "1", "--update-golden"], env=env, capture_output=True, text=True
    )
    # the lock was released: the update ran (copies of one version fail its image rule)
    assert again.returncode in (0, 1) and "another update-golden" not in again.stderr


# --- every addon of the tree -------------------------------------------------------------


def _gate(root: Path, **given: object) -> CheckOptions:
    return api.check_options(root=root, kube_versions=("1.30",), jobs=1, **given)  # type: ignore[arg-type]


def test_every_addon_is_checked_with_its_own_stages_and_located_in_the_tree() -> None:
    report = runner.run_check(_gate(GATE_TREE))
    assert report.addons == [
        "calico",
        "cluster-api",
        "coredns",
        "kubeproxy",
        "nodelocaldns",
        "widgets",
    ]
    by = {v.label: v for v in report.versions}
    assert by["v9.1.0"].stages["capability"] == "pass"
    coredns = by["coredns/v1.0.0"]
    assert "capability" not in coredns.stages and "capability" not in coredns.ran
    assert coredns.ran == ("templates", "context", "coverage", "rules", "goldens", "schema")
    # its golden change is a finding at the template line of the field, in the tree
    (changed,) = [f for f in coredns.findings if f.rule == "golden-changed"]
    assert (changed.file, changed.line, changed.field) == (
        "kubernetes/coredns/v1.0.0/coredns.yaml",
        7,
        "spec.replicas",
    )
    assert by["cluster-api/v1.0.0"].golden.status == MISSING
    kubeproxy = by["kubeproxy/v1.0.0"]
    assert (kubeproxy.stages["templates"], kubeproxy.stages["goldens"]) == ("fail", SKIP)
    widgets = by["widgets/v1.0.0"]
    assert [(f.rule, f.severity) for f in widgets.findings if f.severity != "info"] == [
        ("duplicate-object-metadata", "warning")
    ]
    # its Widget is checked against its own CRD
    assert widgets.passed and widgets.objects == {
        "objects": 6,  # the Deployment differs per scenario
        "validated": 6,
        "crd_validated": 1,
        "not_checked": 0,
        "not_checked_kinds": [],
        "unserved": 0,
    }


def test_addon_narrows_the_check_and_an_unknown_one_is_bad_input() -> None:
    report = runner.run_check(_gate(GATE_TREE, addons=("widgets", "calico")))
    assert [v.label for v in report.versions] == ["v9.1.0", "widgets/v1.0.0"]
    assert report.passed
    with pytest.raises(InputError) as caught:
        runner.run_check(_gate(GATE_TREE, addons=("nope",)))
    assert (caught.value.argument, caught.value.value) == ("addon", "nope")
    assert "kubernetes/nope/" in caught.value.message


def test_goldens_are_written_per_addon_version_and_scenario_then_pass(tmp_path: Path) -> None:
    root = addon_tree(tmp_path / "tree", ("coredns", "widgets"))
    runner.run_check(_gate(root, update=True))
    scenarios = sorted(p.name for p in (root / "golden" / "widgets" / "v1.0.0").iterdir())
    assert scenarios == [
        "cluster",
        "cluster-repo-set-widgetMode-calico_render_check",
        "cluster-widgetMode-empty",
    ]
    decision = (root / "golden" / "coredns" / "v1.0.0" / "cluster" / "decision.json").read_text()
    assert '"cluster": "bke-cluster/bke-cluster"' in decision
    again = runner.run_check(_gate(root))
    assert again.passed and {v.golden.status for v in again.versions} == {"pass"}


def test_a_tree_adopted_for_calico_only_says_how_to_write_the_other_goldens(
    tmp_path: Path,
) -> None:
    """Its other addons' goldens are new, not failures: the run passes or fails as
    Calico does; once written, a missing golden fails as Calico's does."""
    root = addon_tree(tmp_path / "tree", ("calico", "coredns", "widgets"))
    runner.run_check(_gate(root, update=True, addons=("calico",)))
    first = runner.run_check(_gate(root))
    assert first.passed and first.new_goldens == ["coredns", "widgets"]
    assert {v.golden.status for v in first.versions if v.addon != "calico"} == {NEW}
    text = render("text", CheckDocument(first))
    (line,) = [x for x in text.splitlines() if x.startswith("goldens: none yet")]
    assert line.endswith(
        f"calico-render check --manifests {root} --kube-version 1.30 --update-golden"
    )
    runner.run_check(_gate(root, update=True))
    shutil.rmtree(root / "golden" / "coredns")
    second = runner.run_check(_gate(root))
    assert not second.passed and second.new_goldens == []
    assert [v.golden.status for v in second.versions if v.addon == "coredns"] == [MISSING]


def test_goldens_of_an_addon_no_longer_in_the_tree_are_stale(tmp_path: Path) -> None:
    root = addon_tree(tmp_path / "tree", ("coredns",))
    runner.run_check(_gate(root, update=True))
    gone = root / "golden" / "gone" / "latest" / "cluster"
    gone.mkdir(parents=True)
    (gone / "a.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    report = runner.run_check(_gate(root))
    assert [(s.addon, s.version, s.status) for s in report.stale] == [("gone", "latest", "fail")]
    assert report.stale_failed == ["gone/latest"] and not report.passed
    # narrowed to some addons, the others' goldens are not judged
    assert runner.run_check(_gate(root, addons=("coredns",))).stale == []
    runner.run_check(_gate(root, update=True))
    assert not (root / "golden" / "gone" / "latest").exists()


def test_the_cluster_is_the_one_given(tmp_path: Path) -> None:
    root = addon_tree(tmp_path / "tree", ("coredns",))
    config = tmp_path / "cluster.yaml"
    config.write_text(
        "apiVersion: bke.bocloud.com/v1beta1\nkind: BKECluster\n"
        "metadata: {name: other, namespace: prod}\n"
        "spec: {clusterConfig: {cluster: {networking: {dnsDomain: corp.local}}, addons: []}}\n",
        encoding="utf-8",
    )
    report = runner.run_check(_gate(root, config=config))
    (v,) = report.versions
    assert v.scenarios[0].decision["cluster"] == "prod/other"
    assert f"--config {config}" in v.golden.command


def test_an_exception_holds_for_the_addons_it_names(tmp_path: Path) -> None:
    root = addon_tree(tmp_path / "tree", ("widgets",))
    (root / ".calico-render.yaml").write_text(
        "exceptions:\n"
        "  - rule: duplicate-object-metadata\n"
        "    addons: [widgets]\n"
        "    reason: every provider file declares the namespace\n"
        "  - rule: duplicate-object-metadata\n"
        "    addons: [coredns]\n"
        "    reason: another addon\n",
        encoding="utf-8",
    )
    report = runner.run_check(_gate(root, update=True))
    (v,) = report.versions
    assert [f.rule for f in v.findings if f.severity != "info"] == []
    assert [a.matches for a in report.rule_exceptions] == [{"widgets/v1.0.0": 1}, {}]
    assert report.exception_warnings == []
    assert report.exception_notes == [
        f"{root / '.calico-render.yaml'}:5: exception for rule duplicate-object-metadata for "
        "coredns not evaluated (not in the tree)"
    ]


def test_the_gate_report_is_the_same_whatever_the_jobs() -> None:
    def report(jobs: int) -> str:
        options = CheckOptions(GATE_TREE, GATE_TREE / "golden" / "calico", ("1.30",), jobs=jobs)
        return render("json", CheckDocument(runner.run_check(options)))

    assert report(1) == report(2)


def test_a_custom_resource_is_checked_against_a_crd_any_addon_of_the_tree_renders(
    tmp_path: Path,
) -> None:
    """gadgets renders a Widget, widgets its CRD: the Widget's wrong field is an error at
    gadgets' template line, whether widgets is checked or not; a kind no CRD of the
    tree defines is counted as not checked, an error with --strict."""
    root = addon_tree(tmp_path / "tree", ("widgets",))
    folder = root / "kubernetes" / "gadgets" / "v1.0.0"
    folder.mkdir(parents=True)
    (folder / "gadgets.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: gadget\n"
        "  namespace: cluster-system\nspec:\n  size: big\n---\n"
        "apiVersion: other.example.com/v1\nkind: Gizmo\nmetadata:\n  name: gizmo\n",
        encoding="utf-8",
    )

    def schema(**given: object) -> tuple[list[tuple[str, str, str, int, str]], object]:
        report = runner.run_check(_gate(root, update=True, **given))
        (v,) = [v for v in report.versions if v.addon == "gadgets"]
        found = [
            (f.rule, f.severity, str(f.object), f.line, f.field)
            for f in v.findings
            if f.stage == "schema"
        ]
        return found, v.objects

    expected = [
        ("schema-invalid", "error", "Widget cluster-system/gadget", 7, "spec.size"),
        ("schema-not-checked", "info", "Gizmo gizmo", 9, ""),
    ]
    counts = {
        "objects": 2,
        "validated": 1,
        "crd_validated": 1,
        "not_checked": 1,
        "not_checked_kinds": ["other.example.com/v1 Gizmo"],
        "unserved": 0,
    }
    found, objects = schema()
    assert [f[:4] for f in found] == [e[:4] for e in expected] and objects == counts
    assert "'big' is not of type 'integer'" in next(
        f.message
        for v in runner.run_check(_gate(root)).versions
        for f in v.findings
        if f.rule == "schema-invalid"
    )
    assert schema(addons=("gadgets",)) == (found, objects)  # widgets' CRD all the same
    strict, _ = schema(addons=("gadgets",), strict=True)
    assert [f[:2] for f in strict] == [("schema-invalid", "error"), ("schema-not-checked", "error")]
