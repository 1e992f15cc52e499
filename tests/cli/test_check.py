"""``calico-render check`` end to end, on copies of the bundled tree laid out like bke-manifests.

The copy holds a legacy single-file version, a split Typha-capable version and a
Typha-capable version concatenated into one ``calico.yaml`` (as BKE ships v3.31.3).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from pytest_regressions.file_regression import FileRegressionFixture
from ruamel.yaml import YAML

from renderer import api, output
from renderer.checks import runner
from renderer.checks.golden import remove_stale
from renderer.checks.report import UPDATED, CheckReport, StaleGolden
from renderer.checks.runner import NothingToUpdate
from renderer.cli import check as checkcmd
from renderer.cli import cli, main
from renderer.cli.check import refused_update
from renderer.data import schemas
from renderer.data.bundled import bundled_manifests
from renderer.engine import limits
from renderer.errors import InputError
from renderer.manifests import tree as tree_mod
from renderer.output import check as output_check
from renderer.output.check import CheckDocument
from renderer.output.check_text import LEGACY_RULES, STALE_MESSAGE
from tests.clihelp import Result, one_error, ref, run
from tests.engine.test_limits import JINJA_BOMBS
from tests.gatehelp import GATE_TREE, TREE, bke_tree
from tests.output.test_sarif import valid_sarif

CALICO = Path("kubernetes") / "calico"
KUBE = ("--kube-version", "1.30")


@pytest.fixture(scope="module")
def source() -> Path:
    return bundled_manifests() / CALICO


def lay_out(root: Path, source: Path) -> Path:
    dest = root / CALICO
    dest.mkdir(parents=True)
    shutil.copytree(source / "v3.27.3", dest / "v3.27.3")
    shutil.copytree(source / "v3.28.2", dest / "v3.28.2")
    single = dest / "v3.31.3"
    single.mkdir()
    parts = [p.read_text(encoding="utf-8") for p in sorted((source / "v3.31.3").glob("*.yaml"))]
    # each part renders from its own first ---, and no tag trims what precedes it
    (single / "calico.yaml").write_text("".join(parts), encoding="utf-8")
    return root


@pytest.fixture
def tree(tmp_path: Path, source: Path) -> Path:
    return lay_out(tmp_path / "bke-manifests", source)


@pytest.fixture(scope="module")
def goldens(tmp_path_factory: pytest.TempPathFactory, source: Path) -> Path:
    """The goldens ``check --update-golden`` writes for a fresh ``tree``, written once:
    the tests that start from an adopted tree copy them (``adopted``)."""
    base = tmp_path_factory.mktemp("adopted")
    root = lay_out(base / "bke-manifests", source)
    argv = ["check", "--manifests", str(root), "--golden", str(base / "golden"), *KUBE]
    with pytest.raises(SystemExit) as done:
        main([*argv, "--jobs", "1", "--update-golden"])
    assert done.value.code == 0
    return base / "golden"


@pytest.fixture
def adopted(tree: Path, goldens: Path) -> Path:
    """``tree`` with its goldens beside it (``tree.parent / "golden"``), as
    ``check --update-golden`` leaves it."""
    shutil.copytree(goldens, tree.parent / "golden")
    return tree


def whole(text: str, tmp: Path) -> str:
    """``text`` with the test's temporary directory as ``<tmp>``: a whole report for
    ``file_regression``."""
    return text.replace(str(tmp), "<tmp>")


def by_version(out: str) -> dict[str, dict[str, Any]]:
    """The versions of a JSON check report, by name."""
    return {v["version"]: v for v in json.loads(out)["versions"]}


def check(capsys: pytest.CaptureFixture[str], tree: Path, *args: str) -> Result:
    golden = tree.parent / "golden"
    return run(
        capsys,
        "check",
        "--manifests",
        str(tree),
        "--golden",
        str(golden),
        *KUBE,
        "--jobs",
        "1",
        *args,
    )


def test_missing_goldens_fail_with_the_command_that_creates_them(
    capsys: pytest.CaptureFixture[str], tree: Path, file_regression: FileRegressionFixture
) -> None:
    r = check(capsys, tree)
    assert r.code == 1
    file_regression.check(whole(r.out, tree.parent), extension=".txt")
    j = check(capsys, tree, "--format", "json")
    command = (
        f"calico-render check --manifests {tree} --golden {tree.parent / 'golden'} "
        "--kube-version 1.30 --update-golden"
    )
    for v in by_version(j.out).values():
        assert (v["stages"]["goldens"], v["golden"]["status"]) == ("missing", "missing")
        assert v["golden"]["command"] == command


def test_update_then_check_passes_byte_stable_and_legacy_is_reported(
    capsys: pytest.CaptureFixture[str], tree: Path, file_regression: FileRegressionFixture
) -> None:
    r = check(capsys, tree, "--update-golden", "--format", "json")
    assert r.code == 0, r.out
    added = by_version(r.out)["v3.28.2"]["golden"]
    assert added["status"] == "updated"
    assert {"path": "nodes-50/000-crds.yaml", "change": "added"} in added["files"]
    golden = tree.parent / "golden"
    layout = sorted(p.relative_to(golden).as_posix() for p in golden.rglob("*") if p.is_file())
    # one directory per scenario: routing's, then those derived from the templates, named
    # after what they set; each holds every file it renders, whatever renders alike
    scenarios = {
        "v3.27.3": [
            "nodes-50",
            "nodes-50-calicoMode-bgp-repo-empty",
            "nodes-50-calicoMode-unset",
            "upgrade-51",
        ],
        "v3.28.2": [
            "nodes-50",
            "nodes-51",
            "nodes-51-calicoMode-bgp-repo-empty",
            "nodes-51-calicoMode-unset",
            "nodes-601",
        ],
        "v3.31.3": [
            "nodes-50",
            "nodes-51",
            "nodes-51-calicoMode-bgp-repo-empty",
            "nodes-51-calicoMode-unset",
            "nodes-601",
        ],
    }
    files = {
        "v3.27.3": ["calico.yaml"],
        "v3.28.2": ["000-crds.yaml", "001-typha.yaml", "002-calico.yaml"],
        "v3.31.3": ["calico.yaml"],
    }
    assert layout == sorted(
        f"{v}/{s}/{f}"
        for v, names in scenarios.items()
        for s in names
        for f in [*files[v], "decision.json"]
    )
    decision = json.loads((golden / "v3.28.2/nodes-601/decision.json").read_text())
    assert decision["allowTypha"] == "true" and decision["typhaReplicas"] == "4"
    upgrade = json.loads((golden / "v3.27.3/upgrade-51/decision.json").read_text())
    assert upgrade["operation"] == "upgrade" and upgrade["compatibility"] is True
    snapshot = {p: p.read_bytes() for p in golden.rglob("*") if p.is_file()}
    again = check(capsys, tree)
    assert again.code == 0, again.out
    rows = {line.split()[0]: line.split() for line in again.out.splitlines() if line[:2] == "v3"}
    assert rows["v3.27.3"][3:5] == ["legacy", "legacy"] and rows["v3.27.3"][-1] == "pass"
    assert rows["v3.28.2"][3] == "yes" and rows["v3.31.3"][3] == "yes"
    file_regression.check(whole(again.out, tree.parent), extension=".txt")
    third = check(capsys, tree, "--update-golden", "--format", "json")
    assert third.code == 0
    assert {v["golden"]["status"] for v in by_version(third.out).values()} == {"pass"}
    assert {p: p.read_bytes() for p in golden.rglob("*") if p.is_file()} == snapshot


def test_changed_veth_mtu_fails_with_a_diff_then_update_passes(
    capsys: pytest.CaptureFixture[str], adopted: Path, file_regression: FileRegressionFixture
) -> None:
    tree = adopted
    template = tree / CALICO / "v3.28.2" / "002-calico.yaml"
    text = template.read_text(encoding="utf-8")
    assert 'veth_mtu: "0"' in text
    template.write_text(text.replace('veth_mtu: "0"', 'veth_mtu: "1440"'), encoding="utf-8")
    r = check(capsys, tree)
    assert r.code == 1
    file_regression.check(whole(r.out, tree.parent), extension=".txt")
    row = next(line for line in r.out.splitlines() if line.startswith("v3.28.2"))
    assert row.split()[-2:] == ["FAIL", "FAIL"]
    assert next(line for line in r.out.splitlines() if line.startswith("v3.27.3")).endswith("pass")
    u = check(capsys, tree, "--update-golden", "--format", "json")
    assert u.code == 0
    assert by_version(u.out)["v3.28.2"]["golden"]["files"] == [
        {"path": f"{s}/002-calico.yaml", "change": "modified"}
        for s in sorted(
            (
                "nodes-50",
                "nodes-51",
                "nodes-51-calicoMode-bgp-repo-empty",
                "nodes-51-calicoMode-unset",
                "nodes-601",
            ),
            key=lambda s: f"{s}/",
        )
    ]
    assert check(capsys, tree).code == 0


def test_json_report_matches_its_schema_and_is_deterministic_across_jobs(
    capsys: pytest.CaptureFixture[str], adopted: Path
) -> None:
    tree = adopted
    (tree / CALICO / "v3.28.2" / "002-calico.yaml").write_text(
        (tree / CALICO / "v3.28.2" / "002-calico.yaml")
        .read_text()
        .replace('veth_mtu: "0"', 'veth_mtu: "9000"'),
        encoding="utf-8",
    )
    r = check(capsys, tree, "--format", "json", "--jobs", "2")
    assert r.code == 1 and r.err == ""
    data = json.loads(r.out)
    schemas.validate_output("check-report.schema.json", data)
    by = {v["version"]: v for v in data["versions"]}
    assert by["v3.27.3"]["legacy"] and by["v3.27.3"]["passed"]
    assert by["v3.28.2"]["stages"]["goldens"] == "fail"
    change = by["v3.28.2"]["golden"]["object_changes"][0]
    assert change["path"] == "data.veth_mtu" and change["new"] == '"9000"'
    # located at the template line that renders the field, relative to the tree
    line = change["location"]["line"]
    assert change["location"]["path"] == "kubernetes/calico/v3.28.2/002-calico.yaml"
    source = (tree / CALICO / "v3.28.2" / "002-calico.yaml").read_text().splitlines()
    assert source[line - 1] == '  veth_mtu: "9000"'
    [found] = [f for f in by["v3.28.2"]["findings"] if f["rule"] == "golden-changed"]
    assert (found["field"], found["location"]["line"], found["message"]) == (
        "data.veth_mtu",
        line,
        '"0" → "9000"',
    )
    serial = run(
        capsys,
        "check",
        "--manifests",
        str(tree),
        "--golden",
        str(tree.parent / "golden"),
        *KUBE,
        "--jobs",
        "1",
        "--format",
        "json",
    )
    assert serial.out == r.out


def diffed(text: str) -> list[str]:
    """The golden files whose diffs ``text`` carries (from their ``--- a/`` headers),
    relative to the golden directory."""
    return [p.split("/golden/", 1)[-1] for p in re.findall(r"^--- a/(\S+)", text, re.M)]


def test_html_report_written_with_every_rule_failure_linked(
    capsys: pytest.CaptureFixture[str], adopted: Path
) -> None:
    tree = adopted
    typha = tree / CALICO / "v3.28.2" / "001-typha.yaml"
    typha.write_text(typha.read_text().replace("type: RollingUpdate", "type: Recreate"))
    out = tree.parent / "report.html"
    r = check(capsys, tree, "--format", "html", "--output", str(out))
    assert r.code == 1 and r.out == "" and r.err == ""
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    found = re.findall(r'<article class="finding[^"]*" id="([^"]+)" data-rule="([^"]+)"', page)
    rolling = [a for a, rule in found if rule == "typha-rolling-update"]
    assert len(rolling) == 1 and rolling[0].startswith("f-v3.28.2-")
    assert all(f'href="#{anchor}"' in page for anchor, _ in found)
    # the changed template line is shown, highlighted
    assert re.search(r'<tr class="hl">.*type: Recreate', page)


def test_junit_has_a_case_per_version_scenario_and_failed_rule(
    capsys: pytest.CaptureFixture[str], adopted: Path
) -> None:
    tree = adopted
    typha = tree / CALICO / "v3.28.2" / "001-typha.yaml"
    typha.write_text(typha.read_text().replace("type: RollingUpdate", "type: Recreate"))
    out = tree.parent / "report.xml"
    r = check(capsys, tree, "--format", "junit", "--output", str(out))
    assert r.code == 1 and r.out == "" and r.err == ""
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["calico v3.27.3", "calico v3.28.2", "calico v3.31.3"]
    names = [c.get("name") for c in suites["calico v3.28.2"].findall("testcase")]
    assert names[:4] == ["v3.28.2", "v3.28.2 nodes-50", "v3.28.2 nodes-51", "v3.28.2 nodes-601"]
    rule = (
        "v3.28.2 rule typha-rolling-update Deployment kube-system/calico-typha spec.strategy.type"
    )
    assert rule in names and len(set(names)) == len(names)
    legacy = [c.get("name") for c in suites["calico v3.27.3"].findall("testcase")]
    assert legacy == [
        "v3.27.3",
        "v3.27.3 nodes-50",
        "v3.27.3 upgrade-51",
        "v3.27.3 nodes-50-calicoMode-bgp-repo-empty",
        "v3.27.3 nodes-50-calicoMode-unset",
    ]
    failed = [c.attrib["name"] for c in root.iter("testcase") if c.find("failure") is not None]
    assert rule in failed
    for suite in root.iter("testsuite"):  # measured, not a constant
        assert float(suite.get("time", "")) >= 0 and "." in suite.get("time", "")
    assert "v3.28.2 nodes-51" in failed and "v3.28.2 nodes-50" not in failed
    by_name = {c.get("name"): c.findtext("failure") or "" for c in root.iter("testcase")}
    # each scenario's failure carries the diff of its own golden file, no other's
    for scenario in ("nodes-51", "nodes-601"):
        assert diffed(by_name[f"v3.28.2 {scenario}"]) == [f"v3.28.2/{scenario}/001-typha.yaml"]
    # the change itself is a case of its own at the template line of the field
    golden = next(c for c in root.iter("testcase") if "golden golden-changed" in c.get("name", ""))
    assert golden.get("file") == "kubernetes/calico/v3.28.2/001-typha.yaml"
    line = int(golden.get("line", "0"))
    assert (
        "type: Recreate"
        in (tree / CALICO / "v3.28.2" / "001-typha.yaml").read_text().splitlines()[line - 1]
    )
    (change,) = by_version(check(capsys, tree, "--format", "json").out)["v3.28.2"]["golden"][
        "object_changes"
    ]
    assert (change["object"], change["path"], change["new"], change["scenarios"]) == (
        "Deployment kube-system/calico-typha",
        "spec.strategy.type",
        '"Recreate"',
        [
            "nodes-51",
            "nodes-601",
            "nodes-51-calicoMode-bgp-repo-empty",
            "nodes-51-calicoMode-unset",
        ],
    )
    assert not any(n.startswith(("v3.27.3", "v3.31.3")) for n in failed)
    total = sum(int(s.get("tests", "0")) for s in suites.values())
    assert root.get("tests") == str(total) == str(len(list(root.iter("testcase"))))
    assert root.get("failures") == str(len(failed))


@pytest.mark.parametrize(
    "args, named",
    [
        (("--manifests", "/nonexistent/tree"), "/nonexistent/tree: "),
        (("--kube-version", "0.1"), "--kube-version: "),
        (("--jobs", "0"), "Invalid value for '--jobs': "),
        (("--format", "xml"), "Invalid value for '--format': "),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], named: str
) -> None:
    """One error line naming what was wrong: the path or the flag."""
    r = run(capsys, "check", *args)
    assert (r.code, r.out) == (2, "")
    (line,) = r.err.splitlines()
    assert line.startswith(f"calico-render: error: {named}")


def test_golden_path_that_is_a_file_is_bad_input(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    f = tree.parent / "golden"
    f.write_text("x")
    r = check(capsys, tree)
    (line,) = r.err.splitlines()
    assert r.code == 2 and line.startswith("calico-render: error: Invalid value for '--golden': ")


def test_no_progress_lines_when_not_a_terminal(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    r = check(capsys, tree)
    assert r.err == ""


def test_bundled_tree_passes_against_bundled_goldens(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "check", "--format", "json", "--jobs", "1")
    assert r.code == 0, r.out
    data = json.loads(r.out)
    assert data["passed"] is True
    assert (data["summary"]["versions"], data["summary"]["failed"]) == (5, 0)


def test_progress_line_per_version_on_a_terminal_only_for_text(
    capsys: pytest.CaptureFixture[str], tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkcmd, "interactive", lambda: True)
    r = check(capsys, tree)
    assert sorted(r.err.splitlines()) == [
        "checked v3.27.3: FAIL",
        "checked v3.28.2: FAIL",
        "checked v3.31.3: FAIL",
    ]
    j = check(capsys, tree, "--format", "json")
    assert j.err == ""
    json.loads(j.out)


# --- the fixture tree: capable, legacy, text-search trap, incomplete, rule failure ----


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    """A copy of the fixture tree whose goldens were written by ``--update-golden``."""
    root = tmp_path / "fixtures"
    shutil.copytree(TREE, root)
    return root


def test_fixture_verdicts_per_version_in_text(
    capsys: pytest.CaptureFixture[str], fixtures: Path, file_regression: FileRegressionFixture
) -> None:
    check(capsys, fixtures, "--update-golden")
    r = check(capsys, fixtures)
    assert r.code == 1
    rows = {line.split()[0]: line.split() for line in r.out.splitlines() if line[:2] == "v9"}
    # VERSION DIALECT TEMPLATES CAPABLE RULES SCHEMA GOLDENS RESULT
    assert rows["v9.0.0"][2:] == ["ok", "legacy", "legacy", "ok", "0/0", "ok", "pass"]
    assert rows["v9.1.0"][2:] == ["ok", "yes", "ok", "ok", "4/4", "ok", "pass"]
    assert rows["v9.2.0"][2:] == ["ok", "legacy", "legacy", "ok", "0/0", "ok", "pass"]
    # a contract failure stops no stage: rules, schema and goldens still ran
    assert rows["v9.3.0"][2:] == ["ok", "FAIL", "ok", "ok", "4/4", "ok", "FAIL"]
    assert rows["v9.4.0"][2:] == ["ok", "yes", "FAIL", "ok", "4/4", "ok", "FAIL"]
    file_regression.check(whole(r.out, fixtures.parent), extension=".txt")


def test_incomplete_typha_templates_fail_in_json_and_every_stage_runs(
    capsys: pytest.CaptureFixture[str], fixtures: Path
) -> None:
    u = check(capsys, fixtures, "--update-golden", "--format", "json")
    assert u.code == 1
    golden = fixtures.parent / "golden"
    assert (golden / "v9.3.0").is_dir() and (golden / "v9.2.0").is_dir()
    r = check(capsys, fixtures, "--format", "json")
    assert r.code == 1
    data = json.loads(r.out)
    schemas.validate_output("check-report.schema.json", data)
    by = {v["version"]: v for v in data["versions"]}
    bad = by["v9.3.0"]
    assert (bad["capable"], bad["legacy"], bad["passed"]) == (False, False, False)
    assert bad["stages"] == {
        "templates": "pass",
        "capability": "fail",
        "rules": "pass",
        "schema": "pass",
        "coverage": "pass",
        "goldens": "pass",
    }
    assert bad["missing"] == ["Deployment calico-typha replicas following typhaReplicas"]
    assert [
        (f["stage"], f["rule"], f["severity"], ref(f["object"]), f["field"], f["location"])
        for f in bad["findings"]
        if f["severity"] == "error"
    ] == [
        (
            "capability",
            "typha-replicas",
            "error",
            "Deployment kube-system/calico-typha",
            "spec.replicas",
            {"path": "kubernetes/calico/v9.3.0/001-typha.yaml", "line": 12, "column": None},
        )
    ]
    assert bad["findings"][0]["message"] == "3, typhaReplicas=4"
    assert bad["findings"][0]["stage"] == "capability"
    assert [s["name"] for s in bad["scenarios"]] == [
        "nodes-50",
        "nodes-51",
        "nodes-601",
        "nodes-51-repo-empty",
    ]
    trap = by["v9.2.0"]
    assert (trap["capable"], trap["legacy"], trap["passed"]) == (False, True, True)
    assert trap["stages"]["capability"] == trap["stages"]["rules"] == "legacy"
    assert [s["name"] for s in trap["scenarios"]] == [
        "nodes-50",
        "upgrade-51",
        "nodes-50-repo-empty",
    ]
    rules = by["v9.4.0"]
    assert (rules["capable"], rules["legacy"], rules["passed"]) == (True, False, False)
    assert rules["stages"]["capability"] == "pass" and rules["stages"]["rules"] == "fail"
    assert [f["rule"] for f in rules["findings"] if f["severity"] == "error"] == [
        "typha-anti-affinity"
    ]
    assert data["summary"] == {
        "addons": 1,
        "versions": 5,
        "passed": 3,
        "failed": 2,
        "legacy": 2,
        "stale_goldens": 0,
        "findings": data["summary"]["findings"],
    }


def test_incomplete_typha_templates_fail_in_junit(
    capsys: pytest.CaptureFixture[str], fixtures: Path
) -> None:
    check(capsys, fixtures, "--update-golden")
    r = check(capsys, fixtures, "--format", "junit")
    assert r.code == 1
    root = ET.fromstring(r.out)
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    cases = suites["calico v9.3.0"].findall("testcase")
    assert [c.get("name") for c in cases] == [
        "v9.3.0",
        "v9.3.0 nodes-50",
        "v9.3.0 nodes-51",
        "v9.3.0 nodes-601",
        "v9.3.0 nodes-51-repo-empty",
    ]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("message") == "failed stages: capability"
    assert (failure.text or "").splitlines()[0] == "stage capability: fail"
    trap = suites["calico v9.2.0"]
    assert trap.get("failures") == "0" and trap.get("tests") == "4"  # with nodes-50-repo-empty
    failed = [c.get("name") for c in root.iter("testcase") if c.find("failure") is not None]
    assert failed == [
        "v9.3.0",
        "v9.4.0",
        "v9.4.0 rule typha-anti-affinity Deployment kube-system/calico-typha "
        "spec.template.spec.affinity.podAntiAffinity",
    ]


def test_the_tree_is_scanned_once_and_json_built_once(
    capsys: pytest.CaptureFixture[str], fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[object] = []
    real = tree_mod.list_versions  # what runner imported, before it is patched

    def listing(root: Path | None = None, addon: str = tree_mod.ADDON) -> list[tree_mod.VersionDir]:
        scans.append(root)
        return real(root, addon)

    def no_resolve(*args: object) -> None:
        raise AssertionError("a version was resolved again")

    built: list[object] = []
    check_data = output_check.check_data

    def counted(built_from: CheckReport) -> dict[str, object]:
        built.append(built_from)
        return check_data(built_from)

    monkeypatch.setattr(runner, "list_versions", listing)
    monkeypatch.setattr(tree_mod, "resolve_version", no_resolve)
    monkeypatch.setattr(output_check, "check_data", counted)
    r = run(
        capsys,
        "check",
        "--manifests",
        str(fixtures),
        "--golden",
        str(fixtures.parent / "golden"),
        *KUBE,
        "--jobs",
        "1",
        "--format",
        "json",
    )
    assert r.code == 1 and json.loads(r.out)["summary"]["versions"] == 5
    assert scans == [fixtures] and len(built) == 1


# --- golden comparison details ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "line", "why"),
    [
        (b"kind: ConfigMap\n\xff\xfe\n", 2, "not valid UTF-8"),
        (b"kind: ConfigMap\n<<<<<<< HEAD\ndata: [\n", 3, "invalid YAML"),
    ],
)
def test_a_golden_that_is_not_yaml_is_bad_input_and_update_rewrites_it(
    capsys: pytest.CaptureFixture[str], adopted: Path, content: bytes, line: int, why: str
) -> None:
    tree = adopted
    bad = tree.parent / "golden" / "v3.28.2" / "nodes-50" / "002-calico.yaml"
    bad.write_bytes(content)
    r = check(capsys, tree)
    assert (r.code, r.out) == (2, "")
    (error,) = r.err.splitlines()
    assert error.startswith(f"calico-render: error: {bad}:{line}: ") and why in error
    u = check(capsys, tree, "--update-golden", "--format", "json")
    assert u.code == 0, u.out
    assert by_version(u.out)["v3.28.2"]["golden"]["files"] == [
        {"path": "nodes-50/002-calico.yaml", "change": "modified"}
    ]
    assert check(capsys, tree).code == 0


def test_diff_headers_name_the_golden_directory_given(
    capsys: pytest.CaptureFixture[str], tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree.parent)
    base = ("check", "--manifests", str(tree), *KUBE, "--jobs", "1")
    assert run(capsys, *base, "--golden", "refs/calico", "--update-golden").code == 0
    template = tree / CALICO / "v3.28.2" / "002-calico.yaml"
    template.write_text(template.read_text().replace('veth_mtu: "0"', 'veth_mtu: "1"'))
    r = run(capsys, *base, "--golden", "refs/calico", "--format", "json")
    diff = by_version(r.out)["v3.28.2"]["golden"]["diff"]
    headers = re.findall(r"^([-+]{3} [ab]/\S+)$", diff, re.M)
    assert headers[:2] == [
        "--- a/refs/calico/v3.28.2/nodes-50/002-calico.yaml",
        "+++ b/refs/calico/v3.28.2/nodes-50/002-calico.yaml",
    ]
    monkeypatch.chdir(tree)  # the goldens are outside the current directory: absolute
    absolute = (tree.parent / "refs" / "calico").resolve()
    r = run(capsys, *base, "--golden", str(absolute), "--format", "json")
    label = absolute.as_posix().lstrip("/")
    diff = by_version(r.out)["v3.28.2"]["golden"]["diff"]
    headers = re.findall(r"^--- a/(\S+)$", diff, re.M)
    assert headers[0] == f"{label}/v3.28.2/nodes-50/002-calico.yaml"
    assert all(h.startswith(f"{label}/") for h in headers)


def test_goldens_of_a_version_not_in_the_tree_fail_and_update_removes_them(
    capsys: pytest.CaptureFixture[str], adopted: Path, file_regression: FileRegressionFixture
) -> None:
    tree = adopted
    golden = tree.parent / "golden"
    shutil.copytree(golden / "v3.27.3", golden / "v7.7.7")
    (golden / "notes").mkdir()  # not named like a version: never touched
    (golden / "notes" / "x.txt").write_text("keep")
    r = check(capsys, tree)
    assert r.code == 1
    file_regression.check(whole(r.out, tree.parent), extension=".txt")
    data = json.loads(check(capsys, tree, "--format", "json").out)
    schemas.validate_output("check-report.schema.json", data)
    assert data["passed"] is False and data["summary"]["stale_goldens"] == 1
    (stale,) = data["stale_goldens"]
    assert (stale["version"], stale["status"]) == ("v7.7.7", "fail")
    assert stale["files"] == [
        "nodes-50-calicoMode-bgp-repo-empty/calico.yaml",
        "nodes-50-calicoMode-bgp-repo-empty/decision.json",
        "nodes-50-calicoMode-unset/calico.yaml",
        "nodes-50-calicoMode-unset/decision.json",
        "nodes-50/calico.yaml",
        "nodes-50/decision.json",
        "upgrade-51/calico.yaml",
        "upgrade-51/decision.json",
    ]
    root = ET.fromstring(check(capsys, tree, "--format", "junit").out)
    failed = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["v7.7.7 goldens"]
    failure = failed[0].find("failure")
    assert failure is not None and failure.get("message") == STALE_MESSAGE
    u = check(capsys, tree, "--update-golden", "--format", "json")
    assert u.code == 0, u.out
    (removed,) = json.loads(u.out)["stale_goldens"]
    assert (removed["version"], removed["status"], removed["directory"]) == (
        "v7.7.7",
        "updated",
        str(golden / "v7.7.7"),
    )
    assert "nodes-50/decision.json" in removed["files"]
    assert not (golden / "v7.7.7").exists() and (golden / "notes" / "x.txt").exists()
    assert not [p for p in golden.iterdir() if p.name.startswith(".")]
    assert check(capsys, tree).code == 0


def test_unwritable_output_names_the_target_not_the_temporary_file(
    capsys: pytest.CaptureFixture[str], tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.open

    def denied(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name.startswith(".check.xml.") and str(path).endswith(".tmp"):
            raise OSError(13, "Permission denied", str(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    out = tree.parent / "reports" / "check.xml"
    r = check(capsys, tree, "--format", "junit", "--output", str(out))
    assert r.code == 2
    assert (
        r.err.strip() == f"calico-render: error: {out}: --output: cannot write: Permission denied"
    )


# --- how CI and pre-commit run the gate ------------------------------------------------

PROJECT = Path(__file__).resolve().parents[2]


def _yaml_blocks(path: Path) -> list[object]:
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    return [YAML(typ="safe").load(b) for b in blocks]


def test_pre_commit_hook_runs_on_templates_and_goldens_against_the_repo_goldens(
    capsys: pytest.CaptureFixture[str], tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (hook,) = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    assert hook["entry"] == "calico-render check --manifests ."
    files = re.compile(hook["files"])
    assert files.search("kubernetes/calico/v3.28.2/002-calico.yaml")
    assert files.search("golden/calico/v3.28.2/common/000-crds.yaml")
    assert files.search(".calico-render.yaml")
    assert not files.search("docs/golden/x") and hook["pass_filenames"] is False
    # The entry, run from a bke-manifests checkout keeping its goldens in golden/calico/.
    monkeypatch.chdir(tree)
    argv = [*shlex.split(hook["entry"])[1:], "--jobs", "1"]
    assert run(capsys, *argv, *KUBE, "--update-golden").code == 0
    assert (tree / "golden" / "calico" / "v3.28.2" / "nodes-50" / "decision.json").is_file()
    assert run(capsys, *argv, *KUBE).code == 0


def test_ci_examples_write_reports_before_the_run_that_decides_and_install_from_source() -> None:
    jobs = [
        b["calico-gate"]
        for b in _yaml_blocks(PROJECT / "docs" / "ci.md")
        if isinstance(b, dict) and "calico-gate" in b
    ]
    assert len(jobs) == 1  # the CI guide's job (the README links to it)
    for job in jobs:
        script = job["script"]
        junit = next(i for i, s in enumerate(script) if "--format junit" in s)
        text = next(i for i, s in enumerate(script) if "--format text" in s)
        assert junit < text and script[junit].endswith("|| true")
        assert "--output calico-check.xml" in script[junit]
        html = next(i for i, s in enumerate(script) if "--format html" in s)
        assert html < text and script[html].endswith("--output calico-check.html || true")
        quality = next(i for i, s in enumerate(script) if "--format codequality" in s)
        assert quality < text and script[quality].endswith("--output gl-code-quality.json || true")
        assert job["artifacts"] == {
            "when": "always",
            "expose_as": "calico-render report",
            "paths": ["calico-check.html"],
            "reports": {"junit": "calico-check.xml", "codequality": "gl-code-quality.json"},
        }
    for path in (PROJECT / "README.md", PROJECT / "docs" / "ci.md"):
        content = path.read_text(encoding="utf-8")
        assert "pip install calico-render" not in content
        if path.name == "README.md":
            continue
        assert "<calico-render repository URL>" in content


def test_a_tree_without_golden_uses_its_own_goldens(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    """Without --golden, a tree's goldens are ROOT/golden/calico: created by
    --update-golden, never the bundled ones."""
    base = ("check", "--manifests", str(tree), *KUBE, "--jobs", "1")
    first = run(capsys, *base, "--format", "json")
    assert first.code == 1
    goldens = {n: v["golden"] for n, v in by_version(first.out).items()}
    assert {g["status"] for g in goldens.values()} == {"missing"}
    assert goldens["v3.27.3"]["directory"] == "golden/calico/v3.27.3"  # relative to ROOT
    assert run(capsys, *base, "--update-golden").code == 0
    assert (tree / "golden" / "calico" / "v3.28.2" / "decision.json").exists() or any(
        (tree / "golden" / "calico" / "v3.28.2").rglob("decision.json")
    )
    assert run(capsys, *base).code == 0


def test_update_golden_on_a_tree_without_versions_deletes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "empty"
    (root / CALICO).mkdir(parents=True)
    golden = tmp_path / "golden"
    (golden / "v3.28.2").mkdir(parents=True)
    (golden / "v3.28.2" / "kept.yaml").write_text("kept\n", encoding="utf-8")
    for extra in ((), ("--golden", str(golden))):
        r = run(capsys, "check", "--manifests", str(root), *extra, "--update-golden")
        assert r.code == 2 and "--update-golden" in r.err
    assert (golden / "v3.28.2" / "kept.yaml").read_text(encoding="utf-8") == "kept\n"
    assert not (root / "golden").exists()


def test_removing_a_stale_golden_removed_meanwhile_is_not_an_error(tmp_path: Path) -> None:
    stale = StaleGolden("v3.1.0", str(tmp_path / "v3.1.0"), ["a.yaml"], "calico-render check")
    remove_stale(stale)  # another --update-golden removed it first
    assert stale.status == UPDATED


def test_one_typo_is_one_finding_naming_every_kube_version_and_scenario(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: Path
) -> None:
    """The typo renders into every scenario and fails on every Kubernetes version: one
    error listing them, not one per render and Kubernetes version."""
    root = tmp_path / "tree"
    shutil.copytree(source / "v3.28.2", root / CALICO / "v3.28.2")
    calico = root / CALICO / "v3.28.2" / "002-calico.yaml"
    text = calico.read_text(encoding="utf-8")
    anchor = "      k8s-app: calico-node\n  updateStrategy:"
    typo = text.replace(anchor, anchor.replace("  update", "  replicaz: 2\n  update"), 1)
    assert typo != text
    calico.write_text(typo, encoding="utf-8")
    kube = ("--kube-version", "1.34", "--kube-version", "1.35")
    r = run(capsys, "check", "--manifests", str(root), *kube, "--format", "json", "--jobs", "1")
    assert r.code == 1
    (v,) = json.loads(r.out)["versions"]
    found = [f for f in v["findings"] if f["stage"] == "schema" and f["severity"] == "error"]
    assert [(f["rule"], ref(f["object"])) for f in found] == [
        ("schema-invalid", "DaemonSet kube-system/calico-node")
    ]
    assert found[0]["kube_versions"] == ["1.34", "1.35"]
    assert found[0]["scenarios"] == [
        "nodes-50",
        "nodes-51",
        "nodes-601",
        "nodes-51-calicoMode-bgp-repo-empty",
        "nodes-51-calicoMode-unset",
    ]


def _suggested(text: str) -> list[str]:
    """Commands on a line of their own or after "with:" (the header is not one)."""
    return re.findall(r"(?:^ +|with: )(calico-render .+)$", text, flags=re.M)


def test_every_suggested_command_is_accepted_by_the_cli(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    """Each command a report suggests (text or JSON) parses with the CLI's own parser."""
    (tree.parent / "golden" / "v7.7.7").mkdir(parents=True)
    (tree.parent / "golden" / "v7.7.7" / "a.yaml").write_text("a\n", encoding="utf-8")
    found: list[str] = []
    for own_goldens in (False, True):
        base = ["check", "--manifests", str(tree), *KUBE, "--jobs", "1"]
        if own_goldens:
            base = [*base, "--golden", str(tree.parent / "golden")]
        for fmt in ("text", "json"):
            r = run(capsys, *base, "--format", fmt)
            assert r.code == 1
            if fmt == "json":
                data = json.loads(r.out)
                cmds = [v["golden"]["command"] for v in data["versions"]]
                cmds += [s["command"] for s in data["stale_goldens"]]
                found += [c for c in cmds if c]
            else:
                found += _suggested(r.out)
    assert len(found) > 6
    for command in set(found):
        args = shlex.split(command)[1:]
        with cli.make_context("calico-render", list(args), resilient_parsing=False) as ctx:
            name, sub, rest = cli.resolve_command(ctx, args)
            assert sub is not None and name == "check"
            sub.make_context(name, rest, parent=ctx)  # raises on an unknown flag


def test_legacy_says_the_same_in_check_and_capability(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    r = check(capsys, tree)
    legacy = [line for line in r.out.splitlines() if line.startswith("legacy:")]
    assert legacy == [
        f"legacy: v3.27.3 (no Typha templates: {LEGACY_RULES}; upgrades keep Typha off)"
    ]
    base = ("capability", "--manifests", str(tree), "--version", "v3.27.3", *KUBE)
    text = run(capsys, *base).out
    rules = [line for line in text.splitlines() if line.startswith("Release rules")]
    assert rules == [f"Release rules: {LEGACY_RULES} (legacy: not Typha-capable)"]
    data = json.loads(run(capsys, *base, "--format", "json").out)
    assert data["rules"] == {"nodes": 51, "applied": False}
    assert [f for f in data["findings"] if f["stage"] == "rules"] == []


def test_check_output_to_dev_null_keeps_the_device(
    capsys: pytest.CaptureFixture[str],
) -> None:
    r = run(capsys, "check", "--kube-version", "1.34", "--output", "/dev/null", "--jobs", "1")
    assert r.code in (0, 1) and r.out == ""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_update_of_a_tree_without_versions_is_refused_naming_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "tree" / CALICO).mkdir(parents=True)
    golden = tmp_path / "tree" / "golden" / "calico" / "v1.0.0"
    golden.mkdir(parents=True)
    r = run(capsys, "check", "--manifests", str(tmp_path / "tree"), "--update-golden")
    assert r.code == 2 and ": --update-golden: " in r.err
    assert golden.is_dir()


def test_a_render_over_its_time_limit_names_the_flag_in_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The library says how to raise the limit in its own terms; the report the CLI
    prints names the flag, in every format."""
    version = tmp_path / CALICO / "v1.0.0"
    version.mkdir(parents=True)
    (version / "calico.yaml.j2").write_text(JINJA_BOMBS["exponential_macro"])
    args = ["check", "--manifests", str(tmp_path), "--render-timeout", "0.3", "--no-cache"]
    try:
        r = run(capsys, *args, "--format", "json")
    finally:
        limits.set_render_timeout(limits.DEFAULT_RENDER_TIMEOUT)
    assert r.code == 1
    (result,) = json.loads(r.out)["versions"]
    messages = [f["message"] for f in result["findings"] if f["stage"] == "templates"]
    assert messages and all("--render-timeout SECONDS" in m for m in messages)
    assert "set_render_timeout" not in r.out


def test_root_is_taken_positionally_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``check ROOT`` is ``check --manifests ROOT``; both naming different trees is usage."""
    bke_tree(tmp_path)
    r = run(capsys, "check", str(tmp_path), "--format", "json", "--jobs", "1")
    data = json.loads(r.out)
    assert (data["manifests"], [v["version"] for v in data["versions"]]) == (
        str(tmp_path),
        ["v3.28.2"],
    )
    assert (
        run(capsys, "check", str(tmp_path), "--manifests", str(tmp_path), "--jobs", "1").code == 1
    )
    other = tmp_path / "kubernetes"
    r = run(capsys, "check", str(tmp_path), "--manifests", str(other))
    assert r.code == 2 and "name different trees" in r.err


def test_goldens_laid_out_for_another_location_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--golden golden`` on a tree whose goldens are in golden/calico/ would report every
    version MISSING and suggest writing a second set: exit 2 naming where they are."""
    bke_tree(tmp_path)
    root = str(tmp_path)
    assert run(capsys, "check", root, "--update-golden", "--jobs", "1").code == 0
    r = run(capsys, "check", root, "--golden", f"{root}/golden", "--jobs", "1")
    message = one_error(r, file=f"{root}/golden", key="--golden")
    assert f"the goldens are in {root}/golden/calico " in message
    r = run(capsys, "check", root, "--golden", f"{root}/golden/calico/v3.28.2")
    message = one_error(r, file=f"{root}/golden/calico/v3.28.2", key="--golden")
    assert f"the goldens are in {root}/golden/calico " in message
    assert run(capsys, "check", root, "--golden", f"{root}/golden/calico", "--jobs", "1").code == 0


def test_an_exception_naming_an_unknown_rule_is_exit_2_naming_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("exceptions:\n  - rule: typha-probe\n    reason: x\n", encoding="utf-8")
    message = one_error(
        run(capsys, "check", "--exceptions", str(bad)), file=bad, line=2, key="rule"
    )
    assert "did you mean typha-probes?" in message and "'calico-render rules'" in message


def _ci_commands(job: object) -> list[str]:
    """The calico-render command lines of a GitLab job's script or a GitHub job's steps,
    without ``|| true``."""
    lines: list[str] = []
    if isinstance(job, dict) and "script" in job:
        lines = [str(s) for s in job["script"]]
    elif isinstance(job, dict) and "steps" in job:
        lines = [str(s["run"]) for s in job["steps"] if isinstance(s, dict) and "run" in s]
    return [
        line.removesuffix("|| true").strip() for line in lines if line.startswith("calico-render ")
    ]


def _ci_jobs() -> dict[str, list[str]]:
    jobs: dict[str, list[str]] = {}
    for block in _yaml_blocks(PROJECT / "docs" / "ci.md"):
        if isinstance(block, dict) and "calico-gate" in block:
            jobs["gitlab"] = _ci_commands(block["calico-gate"])
        if isinstance(block, dict) and "check" in block.get("jobs", {}):
            jobs["github"] = _ci_commands(block["jobs"]["check"])
    return jobs


def _ci_reports(tree: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    if (tree / "gl-code-quality.json").exists():
        out["codequality"] = json.loads((tree / "gl-code-quality.json").read_text())
    if (tree / "calico-check.sarif").exists():
        out["sarif"] = valid_sarif((tree / "calico-check.sarif").read_text())
    if (tree / "calico-check.xml").exists():
        out["junit"] = ET.fromstring((tree / "calico-check.xml").read_text())
    return out


@pytest.mark.parametrize("ci", ["gitlab", "github"])
def test_ci_jobs_commands_leave_reports_that_annotate_the_merge_request(
    capsys: pytest.CaptureFixture[str],
    tree: Path,
    goldens: Path,
    monkeypatch: pytest.MonkeyPatch,
    ci: str,
) -> None:
    """The documented job, run as written in a bke-manifests checkout (goldens in
    golden/calico/) with a failing change: every report is there, and names the template
    line of the change."""
    commands = _ci_jobs()[ci]
    expected = {"gitlab": {"codequality", "junit"}, "github": {"sarif"}}[ci]
    shutil.copytree(goldens, tree / "golden" / "calico")
    monkeypatch.chdir(tree)
    typha = tree / CALICO / "v3.31.3" / "calico.yaml"
    text = typha.read_text(encoding="utf-8")
    typha.write_text(text.replace("podAntiAffinity:", "podAffinity:", 1), encoding="utf-8")
    # one process each: how the runner splits work is the subject of other tests
    codes = [run(capsys, *shlex.split(c)[1:], *KUBE, "--jobs", "1").code for c in commands]
    assert codes and all(code == 1 for code in codes)
    reports = _ci_reports(tree)
    assert expected <= set(reports)
    path = f"{CALICO.as_posix()}/v3.31.3/calico.yaml"
    if "codequality" in reports:
        issues = reports["codequality"]
        assert isinstance(issues, list)
        assert any(
            i["check_name"] == "typha-anti-affinity" and i["location"]["path"] == path
            for i in issues
        )
    if "sarif" in reports:
        sarif = reports["sarif"]
        assert isinstance(sarif, dict)
        results = sarif["runs"][0]["results"]
        assert any(
            r["ruleId"] == "typha-anti-affinity"
            and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == path
            for r in results
        )


@pytest.mark.parametrize("ci", ["gitlab", "github"])
def test_ci_jobs_keep_a_report_when_the_run_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    """A tree that cannot be checked (a template that does not parse is a finding; a
    bad exceptions file is bad input): exit 2, and each report holds one input finding."""
    commands = _ci_jobs()[ci]
    root = tmp_path / "bke-manifests"
    shutil.copytree(bundled_manifests() / CALICO / "v3.28.2", root / CALICO / "v3.28.2")
    (root / ".calico-render.yaml").write_text("exceptions:\n  - rule: x\n", encoding="utf-8")
    monkeypatch.chdir(root)
    for command in commands:
        assert run(capsys, *shlex.split(command)[1:], *KUBE).code == 2
    reports = _ci_reports(root)
    assert reports
    for kind, report in reports.items():
        if kind == "codequality":
            assert isinstance(report, list)
            (issue,) = report
            assert issue["check_name"] == "input-error"
            assert issue["location"]["path"] == ".calico-render.yaml"
        elif kind == "sarif":
            assert isinstance(report, dict)
            (result,) = report["runs"][0]["results"]
            assert result["ruleId"] == "input-error"
            assert report["runs"][0]["invocations"][0]["executionSuccessful"] is False
        else:
            assert isinstance(report, ET.Element)
            assert report.get("failures") == "1"


# --- goldens contained ---------------------------------------------------------------


@pytest.fixture
def own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A tree with its own goldens (ROOT/golden/calico) written by --update-golden."""
    root = bke_tree(tmp_path / "bke-manifests")
    assert run(capsys, "check", str(root), *KUBE, "--jobs", "1", "--update-golden").code == 0
    return root


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


@pytest.mark.parametrize("linked", ["golden", "golden/calico", "golden/calico/v3.28.2"])
def test_a_linked_golden_directory_inside_root_is_exit_2_naming_it_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], own: Path, tmp_path: Path, linked: str
) -> None:
    outside = tmp_path / "outside"
    shutil.move(str(own / linked), outside)
    (outside / "extra.txt").write_text("keep")  # what a prune would remove
    (own / linked).symlink_to(outside, target_is_directory=True)
    before = _snapshot(outside)
    for update in ((), ("--update-golden",)):
        r = run(capsys, "check", str(own), *KUBE, "--jobs", "1", *update)
        message = one_error(r, file=own / linked)
        assert "symbolic link" in message
    assert _snapshot(outside) == before and not list(outside.rglob(".*"))


def test_a_golden_file_linked_outside_fails_the_update_with_exit_2(
    capsys: pytest.CaptureFixture[str], own: Path, tmp_path: Path
) -> None:
    """An update that refused to write never says PASS."""
    target = tmp_path / "outside.yaml"
    target.write_text("x\n")
    golden = own / "golden" / "calico" / "v3.28.2" / "nodes-601" / "002-calico.yaml"
    golden.unlink()
    golden.symlink_to(target)
    r = run(capsys, "check", str(own), *KUBE, "--jobs", "1", "--update-golden")
    assert "symbolic link" in one_error(r, file=golden)
    assert target.read_text() == "x\n" and golden.is_symlink()


def test_a_scenario_directory_that_is_a_file_is_exit_2_naming_it(
    capsys: pytest.CaptureFixture[str], own: Path
) -> None:
    scenario = own / "golden" / "calico" / "v3.28.2" / "nodes-601"
    shutil.rmtree(scenario)
    scenario.write_text("nodes-601\n")
    r = run(capsys, "check", str(own), *KUBE, "--jobs", "1")
    assert "not a directory" in one_error(r, file=scenario)


def test_an_update_that_cannot_write_fails_with_the_reason(
    capsys: pytest.CaptureFixture[str], own: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--update-golden exits 0 only when every golden it had to write was written."""
    template = own / CALICO / "v3.28.2" / "002-calico.yaml"
    template.write_text(template.read_text().replace('veth_mtu: "0"', 'veth_mtu: "1440"'))
    golden = own / "golden" / "calico"
    before = _snapshot(golden)
    real = os.replace

    def read_only(src: Any, dst: Any) -> None:
        if "golden" in str(dst):
            raise OSError(30, "Read-only file system", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", read_only)
    r = run(capsys, "check", str(own), *KUBE, "--jobs", "1", "--update-golden", "--format", "json")
    monkeypatch.undo()
    assert r.code == 1
    v = by_version(r.out)["v3.28.2"]
    assert (v["passed"], v["stages"]["goldens"]) == (False, "fail")
    [error] = [f for f in v["findings"] if f["rule"] == "goldens-error"]
    assert "Read-only file system" in error["message"]
    assert error["location"]["path"].startswith("golden/calico/v3.28.2/")
    assert _snapshot(golden) == before  # all or nothing


def test_the_first_update_of_the_merged_layout_rewrites_it_and_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], own: Path
) -> None:
    """Goldens of an earlier release (common/, s1+s2/) read as the scenarios' files:
    check passes with a warning, the first update rewrites them one directory each."""
    version = own / "golden" / "calico" / "v3.28.2"
    crds = {p: p.read_text() for p in version.glob("*/000-crds.yaml")}
    assert len(set(crds.values())) == 1
    (version / "common").mkdir()
    (version / "common" / "000-crds.yaml").write_text(next(iter(crds.values())))
    for p in crds:
        p.unlink()
    r = run(capsys, "check", str(own), *KUBE, "--jobs", "1")
    assert r.code == 0 and "[golden-layout]" in r.out
    u = run(capsys, "check", str(own), *KUBE, "--jobs", "1", "--update-golden")
    assert u.code == 0
    said = [line for line in u.out.splitlines() if "rewritten" in line]
    assert said == [
        "goldens rewritten one directory per scenario (from the merged layout: common/, "
        f"s1+s2/) for v3.28.2: {len(crds) + 1} file(s) written or removed"
    ]
    assert not (version / "common").exists() and all(p.exists() for p in crds)
    again = run(capsys, "check", str(own), *KUBE, "--jobs", "1")
    assert again.code == 0 and "golden-layout" not in again.out


# --- report sizes follow what changed ------------------------------------------------


def _reports(capsys: pytest.CaptureFixture[str], tree: Path) -> dict[str, str]:
    """Every format of one check (the report rendered as ``--format`` renders it)."""
    options = api.check_options(
        root=tree, golden=tree.parent / "golden", kube_versions=("1.30",), jobs=1
    )
    document = CheckDocument(api.check(options))
    formats = ("text", "json", "junit", "sarif", "codequality", "html")
    return {fmt: output.render(fmt, document) for fmt in formats}


def test_a_one_field_change_is_a_short_report_and_sizes_grow_with_fields_not_files(
    capsys: pytest.CaptureFixture[str], adopted: Path
) -> None:
    """v3.31.3's goldens hold a 7,000-line file per scenario: one changed field is one
    line of findings and at most 15 lines of text report; a second field adds about as
    much again to every format, nothing like the file."""
    template = adopted / CALICO / "v3.31.3" / "calico.yaml"
    text = template.read_text(encoding="utf-8")
    clean = _reports(capsys, adopted)
    template.write_text(text.replace('veth_mtu: "0"', 'veth_mtu: "1440"', 1), encoding="utf-8")
    one = _reports(capsys, adopted)
    lines = one["text"].splitlines()
    assert len(lines) <= 15, one["text"]
    assert sum("[golden-changed]" in line for line in lines) == 1
    health = '- name: FELIX_HEALTHENABLED\n              value: "true"'
    assert text.count(health) == 1
    template.write_text(
        text.replace('veth_mtu: "0"', 'veth_mtu: "1440"', 1).replace(
            health, health.replace('"true"', '"false"')
        ),
        encoding="utf-8",
    )
    two = _reports(capsys, adopted)
    golden = len(text)
    for fmt in clean:
        first = len(one[fmt]) - len(clean[fmt])
        second = len(two[fmt]) - len(one[fmt])
        assert 0 < first < golden / 20 and 0 < second < golden / 20, (fmt, first, second)


def test_every_golden_finding_has_a_place_in_every_format(
    capsys: pytest.CaptureFixture[str], adopted: Path
) -> None:
    """An object renamed (one removed, one added), replicas hard-coded (a changed field,
    and the decisions it changes: the contract then refuses installs above 50 nodes),
    goldens of a version not in the tree: each located at a file and line in SARIF,
    Code Quality, JUnit and HTML as in text and JSON."""
    template = adopted / CALICO / "v3.31.3" / "calico.yaml"
    text = template.read_text(encoding="utf-8")
    pdb = "kind: PodDisruptionBudget\nmetadata:\n  name: calico-typha\n"
    replicas = "  replicas: {{ .typhaReplicas }}\n"
    assert text.count(pdb) == 1 and text.count(replicas) == 1
    text = text.replace(pdb, pdb.replace("calico-typha", "calico-typha-budget"))
    template.write_text(text.replace(replicas, "  replicas: 3\n"), encoding="utf-8")
    golden = adopted.parent / "golden"
    shutil.copytree(golden / "v3.27.3", golden / "v7.7.7")
    reports = _reports(capsys, adopted)
    data = json.loads(reports["json"])
    found = [f for v in data["versions"] for f in v["findings"] if f["stage"] == "goldens"]
    messages = {f["message"] for f in found}
    assert {
        "removed: in the golden, not rendered",
        "added: rendered, not in the golden",
        "4 → 3",
    } <= messages, reports["text"]
    assert any(m.startswith('decision.json refused: (none) → "refusing') for m in messages)
    assert all(f["location"] and f["location"]["line"] for f in found), found
    sarif = json.loads(reports["sarif"])["runs"][0]["results"]
    golden_results = [r for r in sarif if r["ruleId"].startswith("golden")]
    assert len(golden_results) == len(found) + 1  # and the stale goldens
    for r in golden_results:  # in the tree; the stale goldens where --golden named them
        physical = r["locations"][0]["physicalLocation"]
        assert physical["region"]["startLine"] >= 1
        if r["ruleId"] != "golden-stale":
            assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%", r
    issues = [i for i in json.loads(reports["codequality"]) if i["check_name"].startswith("golden")]
    assert len(issues) == len(found) + 1 and all(i["location"]["path"] != "." for i in issues)
    cases = [
        c
        for c in ET.fromstring(reports["junit"]).iter("testcase")
        if " golden" in c.get("name", "")
    ]
    assert len(cases) == len(found) + 1 and all(c.get("file") and c.get("line") for c in cases)
    assert reports["html"].count('data-rule="golden-') == len(found)
    lines = text.splitlines()
    removed = next(f for f in found if f["message"].startswith("removed"))
    added = next(f for f in found if f["message"].startswith("added"))
    assert [f["object"]["name"] for f in (removed, added)] == [
        "calico-typha",
        "calico-typha-budget",
    ]
    # the renamed object is where the removed one was, and where the added one is
    assert lines[added["location"]["line"] - 1] == "apiVersion: policy/v1"
    assert removed["location"]["line"] > added["location"]["line"]  # above what followed it


def test_refused_update_is_only_the_goldens_refusal() -> None:
    assert refused_update(NothingToUpdate("no versions"))
    assert not refused_update(InputError("other"))


def test_addon_narrows_the_gate_and_an_unknown_one_is_named_by_its_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    r = run(capsys, "check", str(GATE_TREE), *KUBE, "--addon", "widgets", "--format", "json")
    data = json.loads(r.out)
    assert r.code == 0 and [a["name"] for a in data["addons"]] == ["widgets"]
    assert data["addons"][0]["stages"] == [
        "templates",
        "context",
        "coverage",
        "rules",
        "goldens",
        "schema",
    ]
    r = run(capsys, "check", str(GATE_TREE), *KUBE, "--addon", "nope")
    assert r.code == 2 and one_error(r) == (
        f"{GATE_TREE}: --addon: no kubernetes/nope/ in the tree; its addons: calico, "
        "cluster-api, coredns, kubeproxy, nodelocaldns, widgets"
    )
    r = run(capsys, "check", str(GATE_TREE), *KUBE, "--addon", "../x")
    assert r.code == 2 and "--addon" in r.err


def test_a_config_that_is_no_bkecluster_is_bad_input_before_any_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "cluster.yaml"
    config.write_text("kind: Deployment\n", encoding="utf-8")
    r = run(capsys, "check", str(GATE_TREE), *KUBE, "--addon", "coredns", "--config", str(config))
    assert r.code == 2 and str(config) in one_error(r)
