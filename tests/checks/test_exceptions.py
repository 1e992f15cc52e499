"""Reviewed exceptions (renderer/checks/exceptions.py): the file, matching, and check and
capability applying them on BKE's real v3.31.3 (which fails typha-anti-affinity)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from renderer.checks import exceptions as excepts
from renderer.checks.catalogue import catalogue
from renderer.cli import main
from renderer.data import schemas
from renderer.data.bundled import bundled_manifests
from renderer.errors import InputError
from renderer.finding import SCALE, Finding, ObjectRef
from tests.clihelp import one_error, ref, run

FIXTURE = Path(__file__).parents[1] / "fixtures" / "bke-real" / "kubernetes" / "calico" / "v3.31.3"
KUBE = ("--kube-version", "1.34")
EXCEPTION = """\
exceptions:
  - rule: typha-anti-affinity      # released before the rule
    versions: [v3.31.3]
    severity: warning
    reason: "released before the rule; fixed in v3.31.4"
"""


@pytest.fixture
def bke(tmp_path: Path) -> Path:
    """A bke-manifests tree holding BKE's real v3.31.3, its goldens already reviewed."""
    root = tmp_path / "bke-manifests"
    dest = root / "kubernetes" / "calico" / "v3.31.3"
    dest.mkdir(parents=True)
    shutil.copy(FIXTURE / "calico.yaml", dest / "calico.yaml")
    return root


@pytest.fixture(scope="module")
def bke_goldens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The goldens ``check --update-golden`` writes for ``bke``'s tree, written once."""
    root = tmp_path_factory.mktemp("adopted") / "bke-manifests"
    dest = root / "kubernetes" / "calico" / "v3.31.3"
    dest.mkdir(parents=True)
    shutil.copy(FIXTURE / "calico.yaml", dest / "calico.yaml")
    with pytest.raises(SystemExit):  # exit 1: the tree fails typha-anti-affinity
        main(["check", "--manifests", str(root), *KUBE, "--jobs", "1", "--update-golden"])
    return root / "golden" / "calico"


@pytest.fixture
def adopted(bke: Path, bke_goldens: Path) -> Path:
    """``bke`` after ``check --update-golden``: its goldens in ROOT/golden/calico."""
    shutil.copytree(bke_goldens, bke / "golden" / "calico")
    return bke


def _check(
    capsys: pytest.CaptureFixture[str], root: Path, *args: str
) -> tuple[int, dict[str, Any]]:
    r = run(capsys, "check", "--manifests", str(root), *KUBE, "--jobs", "1", *args)
    data = json.loads(r.out) if "--format" in args and "json" in args else {}
    return r.code, data


def _rule_errors(data: dict[str, Any]) -> list[tuple[str, str, str | None, str]]:
    return [
        (f["rule"], ref(f["object"]), f["field"], f["severity"])
        for v in data["versions"]
        for f in v["findings"]
        if f["stage"] == "rules"
    ]


def test_real_v3_31_3_fails_and_an_exception_downgrades_it(
    capsys: pytest.CaptureFixture[str], adopted: Path
) -> None:
    bke = adopted
    code, data = _check(capsys, bke, "--format", "json")
    finding = (
        "typha-anti-affinity",
        "Deployment kube-system/calico-typha",
        "spec.template.spec.affinity.podAntiAffinity",
    )
    assert code == 1 and _rule_errors(data) == [(*finding, "error")]
    assert data["exceptions"] == {
        "file": None,
        "entries": [],
        "deviations": [],
        "warnings": [],
        "notes": [],
    }

    (bke / excepts.FILE_NAME).write_text(EXCEPTION, encoding="utf-8")
    code, data = _check(capsys, bke, "--format", "json")
    assert code == 0 and data["passed"]
    (v,) = data["versions"]
    assert v["stages"]["rules"] == "pass"
    assert _rule_errors(data) == [(*finding, "warning")]
    assert v["exceptions"] == [
        {
            "rule": "typha-anti-affinity",
            "severity": "warning",
            "reason": "released before the rule; fixed in v3.31.4",
            "findings": 1,
        }
    ]
    (entry,) = data["exceptions"]["entries"]
    matched = [{"addon": "calico", "version": "v3.31.3", "findings": 1}]
    assert entry["matched"] == matched and entry["line"] == 2
    assert data["exceptions"]["warnings"] == []

    code, _ = _check(capsys, bke, "--format", "junit", "--output", str(bke / "r.xml"))
    assert code == 0
    root = ET.fromstring((bke / "r.xml").read_text(encoding="utf-8"))
    props = [(p.get("name"), p.get("value")) for p in root.iter("property")]
    names = ["tree", "addon", "stages", "exception typha-anti-affinity"]
    assert [name for name, _ in props] == names


def test_text_report_lists_applied_and_unmatched_exceptions(
    capsys: pytest.CaptureFixture[str], adopted: Path, file_regression: FileRegressionFixture
) -> None:
    bke = adopted
    stale = "  - rule: typha-probes\n    reason: kept by mistake\n"
    (bke / excepts.FILE_NAME).write_text(EXCEPTION + stale, encoding="utf-8")
    r = run(capsys, "check", "--manifests", str(bke), *KUBE)
    assert r.code == 0
    file_regression.check(r.out.replace(str(bke), "ROOT"), extension=".txt")


def test_a_skipping_exception_removes_the_finding_everywhere(
    capsys: pytest.CaptureFixture[str], bke: Path, tmp_path: Path
) -> None:
    """--exceptions FILE overrides ROOT's file; without severity the finding is skipped."""
    (bke / excepts.FILE_NAME).write_text("exceptions: []\n", encoding="utf-8")
    other = tmp_path / "reviewed.yaml"
    other.write_text(
        "exceptions:\n  - rule: typha-anti-affinity\n    reason: accepted\n", encoding="utf-8"
    )
    r = run(
        capsys, "capability", "--manifests", str(bke), "--version", "v3.31.3", *KUBE,
        "--exceptions", str(other), "--format", "json",
    )  # fmt: skip
    data = json.loads(r.out)
    assert r.code == 0 and data["release_ready"]
    assert [f for f in data["findings"] if f["stage"] == "rules"] == []
    (entry,) = data["exceptions"]["entries"]
    assert (entry["rule"], entry["severity"], entry["versions"]) == (
        "typha-anti-affinity",
        None,
        None,
    )
    assert entry["matched"] == [{"version": "v3.31.3", "findings": 1}]
    schemas.validate_output(schemas.CAPABILITY_REPORT, data)


def test_capability_downgrades_like_check(capsys: pytest.CaptureFixture[str], bke: Path) -> None:
    base = ("capability", "--manifests", str(bke), "--version", "v3.31.3", *KUBE)
    r = run(capsys, *base, "--format", "json")
    assert r.code == 1
    (bke / excepts.FILE_NAME).write_text(EXCEPTION, encoding="utf-8")
    r = run(capsys, *base, "--format", "json")
    data = json.loads(r.out)
    assert r.code == 0 and data["release_ready"]
    assert [(f["rule"], f["severity"]) for f in data["findings"] if f["stage"] == "rules"] == [
        ("typha-anti-affinity", "warning")
    ]


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ("exceptions:\n  - rule: x\n", 2, "exceptions.0.reason"),
        ("exceptions:\n  - rule: x\n    reason: r\n    severity: bogus\n", 4,
         "exceptions.0.severity"),
        ("exceptions:\n  - rule: x\n    reason: r\n    versionz: [v1]\n", 2, "exceptions.0"),
        ("exceptions:\n  - rule: x\n    reason: '  '\n", 3, "exceptions.0.reason"),
        ("exceptions:\n  - rule: x\n    reason: r\n    versions: []\n", 4,
         "exceptions.0.versions"),
        ("rules: []\n", 1, None),
    ],
)  # fmt: skip
def test_a_bad_file_names_line_and_key(text: str, line: int, key: str | None) -> None:
    with pytest.raises(InputError) as err:
        excepts.parse(text, ".calico-render.yaml")
    assert (err.value.file, err.value.line) == (".calico-render.yaml", line)
    if key is not None:
        assert err.value.key == key


def test_a_bad_file_is_exit_2(capsys: pytest.CaptureFixture[str], bke: Path) -> None:
    (bke / excepts.FILE_NAME).write_text("exceptions:\n  - rule: x\n", encoding="utf-8")
    for command in ("check", "capability"):
        extra = ("--version", "v3.31.3") if command == "capability" else ()
        r = run(capsys, command, "--manifests", str(bke), *extra, *KUBE)
        one_error(r, file=bke / excepts.FILE_NAME, line=2)


def test_matching_is_by_rule_and_version() -> None:
    items = excepts.parse(EXCEPTION, "f").items
    assert excepts.match(items, "typha-anti-affinity", "v3.31.3") is items[0]
    assert excepts.match(items, "typha-anti-affinity", "v3.31.4") is None
    assert excepts.match(items, "typha-pdb", "v3.31.3") is None
    every = excepts.parse("exceptions:\n  - rule: typha-probes\n    reason: x\n", "f").items
    assert excepts.match(every, "typha-probes", "v9.9.9") is every[0]
    assert excepts.parse("", "f").items == ()


def test_schema_errors_are_excepted_alike_by_check_and_capability(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "tree"
    dest = root / "kubernetes" / "calico" / "v3.28.2"
    shutil.copytree(bundled_manifests() / "kubernetes" / "calico" / "v3.28.2", dest)
    calico = dest / "002-calico.yaml"
    anchor = "      k8s-app: calico-node\n  updateStrategy:"
    text = calico.read_text(encoding="utf-8")
    calico.write_text(
        text.replace(anchor, "      k8s-app: calico-node\n  replicaz: 2\n  updateStrategy:")
    )
    (root / excepts.FILE_NAME).write_text(
        "exceptions:\n  - rule: schema-invalid\n    severity: warning\n    reason: known typo\n",
        encoding="utf-8",
    )
    run(capsys, "check", "--manifests", str(root), *KUBE, "--update-golden")
    code, data = _check(capsys, root, "--format", "json")
    (v,) = data["versions"]
    assert code == 0 and v["stages"]["schema"] == "pass"
    found = [
        (f["rule"], f["severity"], ref(f["object"]))
        for f in v["findings"]
        if f["stage"] == "schema"
    ]
    assert found == [("schema-invalid", "warning", "DaemonSet kube-system/calico-node")]
    r = run(
        capsys, "capability", "--manifests", str(root), "--version", "v3.28.2", *KUBE,
        "--format", "json",
    )  # fmt: skip
    cap = json.loads(r.out)
    assert r.code == 0 and cap["release_ready"]
    assert [f["severity"] for f in cap["findings"] if f["stage"] == "schema"] == ["warning"]
    assert cap["exceptions"]["entries"][0]["matched"] == [{"version": "v3.28.2", "findings": 1}]


def test_the_file_must_exist_and_stay_inside_root(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        excepts.find_file(None, tmp_path / "missing.yaml")
    assert err.value.key == "exceptions"
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("exceptions: []\n", encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    assert excepts.find_file(root, None) is None
    (root / excepts.FILE_NAME).symlink_to(outside)
    with pytest.raises(InputError, match="outside"):
        excepts.find_file(root, None)


def test_custom_resources_not_schema_checked_are_excepted_alike_by_check_and_capability(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A ``schema-not-checked`` exception matches in ``capability`` as it does in
    ``check`` (capability once matched only schema errors, so it "matched nothing")."""
    root = tmp_path / "tree"
    dest = root / "kubernetes" / "calico" / "v3.28.2"
    shutil.copytree(bundled_manifests() / "kubernetes" / "calico" / "v3.28.2", dest)
    (dest / "003-pool.yaml").write_text(  # a kind no CRD of the tree defines
        "apiVersion: pools.example.com/v1\nkind: IPPool\nmetadata:\n  name: pool\n"
        "spec:\n  cidr: 10.250.0.0/16\n",
        encoding="utf-8",
    )
    capability = ["capability", "--manifests", str(root), "--version", "v3.28.2", *KUBE]

    def not_checked() -> tuple[list[str], list[str]]:
        _, data = _check(capsys, root, "--format", "json")
        (v,) = data["versions"]
        cap = json.loads(run(capsys, *capability, "--format", "json").out)
        return (
            [f["rule"] for f in v["findings"] if f["severity"] == "info"],
            [ref(f["object"]) for f in cap["findings"] if f["stage"] == "schema"],
        )

    run(capsys, "check", "--manifests", str(root), *KUBE, "--update-golden")
    assert not_checked() == (["schema-not-checked"], ["IPPool pool"])
    (root / excepts.FILE_NAME).write_text(
        "exceptions:\n  - rule: schema-not-checked\n    reason: IPPool has no schema here\n",
        encoding="utf-8",
    )
    assert not_checked() == ([], [])
    cap = json.loads(run(capsys, *capability, "--format", "json").out)
    (entry,) = cap["exceptions"]["entries"]
    assert entry["matched"] == [{"version": "v3.28.2", "findings": 1}]
    assert cap["exceptions"]["warnings"] == []


def test_an_unknown_rule_id_names_its_line_and_the_nearest_id() -> None:
    text = "exceptions:\n  - rule: typha-anti-afinity\n    reason: x\n"
    with pytest.raises(InputError) as caught:
        excepts.parse(text, "f.yaml")
    e = caught.value
    assert (e.file, e.line, e.key) == ("f.yaml", 2, "rule")
    assert "did you mean typha-anti-affinity?" in e.message
    assert "lists every rule id" in e.message  # where the ids are listed


@pytest.mark.parametrize("rule", ["typha-replicas", "typha-pdb", "golden-changed"])
def test_contract_and_golden_rules_cannot_be_excepted(rule: str) -> None:
    text = f"exceptions:\n  - rule: ok\n    reason: x\n  - rule: {rule}\n    reason: x\n"
    text = text.replace("rule: ok", "rule: typha-probes")
    with pytest.raises(InputError) as caught:
        excepts.parse(text, "f.yaml")
    assert (caught.value.line, caught.value.key) == (4, "rule")
    assert "cannot be excepted" in caught.value.message or "cannot touch" in caught.value.message


def test_scale_rules_are_known_but_cannot_be_excepted() -> None:
    text = "exceptions:\n  - rule: scale-bgp-mesh\n    reason: x\n"
    with pytest.raises(InputError) as caught:
        excepts.parse(text, "f.yaml")
    assert (caught.value.line, caught.value.key) == (2, "rule")
    info = catalogue()["scale-bgp-mesh"]  # known (not an unknown id), never exceptable
    assert (info.stage, info.exceptable) == (SCALE, False)
    assert caught.value.argument is None  # an unknown id names the rules to list instead


@pytest.mark.parametrize("text", ["", "# nothing yet\n", "exceptions: []\n"])
def test_an_empty_file_is_a_note(text: str) -> None:
    found = excepts.parse(text, "f.yaml")
    assert found.items == () and len(found.notes) == 1 and found.notes[0].startswith("f.yaml: ")


def test_objects_and_fields_scope_an_exception_to_what_was_reviewed() -> None:
    text = (
        "exceptions:\n  - rule: typha-anti-affinity\n"
        "    objects: ['Deployment kube-system/calico-*']\n"
        "    fields: [spec.template.spec.affinity*]\n    reason: x\n"
    )
    (e,) = excepts.parse(text, "f.yaml").items
    field = "spec.template.spec.affinity.podAntiAffinity"
    typha = "Deployment kube-system/calico-typha"
    assert e.holds_for("typha-anti-affinity", "v1", typha, field)
    assert not e.holds_for("typha-anti-affinity", "v1", "Deployment other/calico-typha", field)
    assert not e.holds_for("typha-anti-affinity", "v1", typha, "spec.replicas")
    with pytest.raises(InputError) as caught:  # not Kind namespace/name
        excepts.parse(text.replace("Deployment kube-system/calico-*", "calico-typha"), "f")
    assert (caught.value.line, caught.value.key) == (3, "exceptions.0.objects.0")


def test_matches_nothing_only_where_the_stage_ran() -> None:
    """A fidelity exception without an upstream run, and a rules exception on a legacy
    version, are "not evaluated" notes, never "remove it"."""
    items = excepts.parse(
        "exceptions:\n"
        "  - rule: fidelity-changed\n    reason: a\n"
        "  - rule: typha-probes\n    versions: [v1]\n    reason: b\n"
        "  - rule: typha-probes\n    reason: c\n",
        "f",
    )
    applied = [excepts.Applied(e) for e in items.items]
    stages = {
        "v1": {"templates": "pass", "capability": "legacy", "rules": "skip"},
        "v2": {"templates": "pass", "capability": "pass", "rules": "pass"},
    }
    warnings, notes = excepts.verdicts(items, applied, stages)
    assert warnings == [
        "f:7: exception for rule typha-probes matches nothing on v2 (not evaluated on v1: "
        "legacy: release rules apply to Typha-capable versions); remove it"
    ]
    assert [n.split(" not evaluated ")[0] for n in notes] == [
        "f:2: exception for rule fidelity-changed",
        "f:4: exception for rule typha-probes on v1",
    ]
    assert "upstream directory" in notes[0] and "legacy" in notes[1]


def _many(count: int) -> list[str]:
    lines = ["exceptions:"]
    for i in range(count):
        lines += [
            "  - rule: typha-probes",
            f"    reason: reviewed {i}",
            f"    versions: [v3.{i % 100}.{i // 100}]",
        ]
    return lines


@pytest.mark.slow
def test_ten_thousand_exceptions_load_and_match_each_its_version() -> None:
    """A long reviewed file is read whole (each entry's line was found by parsing the
    file again: minutes for 10,000); the figures are benchmarks/large_inputs.py's."""
    items = excepts.parse("\n".join(_many(10_000)) + "\n", "f").items
    assert len(items) == 10_000
    assert excepts.match(items, "typha-probes", "v3.99.99") is items[9_999]
    assert excepts.match(items, "typha-probes", "v3.7.42") is items[4_207]


@pytest.mark.slow
def test_a_bad_entry_after_ten_thousand_is_named_by_its_line() -> None:
    lines = [*_many(10_000), "  - rule: typha-probes", "    reason: ''"]
    with pytest.raises(InputError) as caught:
        excepts.parse("\n".join(lines) + "\n", "f")
    assert (caught.value.line, caught.value.key) == (30_003, "exceptions.10000.reason")


# --- deviations from upstream --------------------------------------------------------

VXLAN_VALUE = "spec.template.spec.containers[calico-node].env[CALICO_IPV4POOL_VXLAN].value"
NODE = "DaemonSet kube-system/calico-node"
DEVIATIONS = f"""\
deviations:
  - versions: [v3.27.3]
    objects: ["{NODE}"]
    fields: ["{VXLAN_VALUE}"]
    reason: "BKE's VXLAN mode is Always"
"""


def _fidelity(rule: str, fld: str, obj: str = NODE) -> Finding:
    return Finding(rule, "error", "x", stage="fidelity", object=ObjectRef.parse(obj), field=fld)


def test_a_deviation_skips_fidelity_findings_on_its_objects_and_fields_only() -> None:
    """Field paths name list items in brackets: taken literally before as a pattern."""
    items = excepts.parse(DEVIATIONS, "f.yaml").items
    (d,) = items
    assert (d.kind, d.line, d.objects, d.fields) == ("deviation", 2, (NODE,), (VXLAN_VALUE,))
    found = [
        _fidelity("fidelity-changed", VXLAN_VALUE),
        _fidelity("fidelity-missing-field", VXLAN_VALUE),  # any fidelity rule
        _fidelity("fidelity-missing-field", VXLAN_VALUE.removesuffix(".value")),  # a typo's
        _fidelity("fidelity-extra-field", VXLAN_VALUE.replace("VXLAN]", "VXLANN]")),
        _fidelity("fidelity-changed", VXLAN_VALUE, "DaemonSet kube-system/other"),
        Finding(
            "typha-probes",
            "error",
            "x",
            stage="rules",
            object=ObjectRef.parse(NODE),
            field=VXLAN_VALUE,
        ),
    ]
    kept, counts = excepts.apply(found, items, "v3.27.3")
    assert kept == found[2:] and counts == {0: 2}
    assert excepts.apply(found, items, "v3.25.0")[0] == found  # scoped by version


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        (
            DEVIATIONS.replace("    reason:", "    rule: fidelity-changed\n    reason:"),
            2,
            "deviations.0",
        ),
        (
            DEVIATIONS.replace('    objects: ["DaemonSet kube-system/calico-node"]\n', ""),
            2,
            "deviations.0.objects",
        ),
        (
            DEVIATIONS.replace('reason: "BKE\'s VXLAN mode is Always"', "reason: ' '"),
            5,
            "deviations.0.reason",
        ),
    ],
)
def test_a_bad_deviation_names_its_line_and_key(text: str, line: int, key: str) -> None:
    with pytest.raises(InputError) as caught:
        excepts.parse(text, "f.yaml")
    assert (caught.value.file, caught.value.line, caught.value.key) == ("f.yaml", line, key)


def test_a_deviation_says_nothing_until_upstream_is_compared_then_warns_when_stale() -> None:
    items = excepts.parse(DEVIATIONS, "f")
    applied = [excepts.Applied(e) for e in items.items]
    without = {"v3.27.3": {"templates": "pass", "capability": "legacy"}}
    assert excepts.verdicts(items, applied, without) == ([], [])
    compared = {"v3.27.3": {**without["v3.27.3"], "fidelity": "pass"}}
    warnings, notes = excepts.verdicts(items, applied, compared)
    assert notes == [] and warnings == [
        f"f:2: deviation on v3.27.3 objects {NODE} fields {VXLAN_VALUE} matches nothing on "
        "v3.27.3; remove it"
    ]


REAL_LEGACY = Path(__file__).parents[1] / "fixtures" / "bke-real-legacy"
UPSTREAM = Path(__file__).parents[2] / "upstream" / "calico"


@pytest.fixture(scope="module")
def real_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BKE's whole Calico tree (v3.25.0, v3.27.3, v3.31.3) with the exceptions and
    deviations it declares, adopted (goldens written)."""
    root = tmp_path_factory.mktemp("real") / "bke-manifests"
    calico = root / "kubernetes" / "calico"
    fixtures = Path(__file__).parents[1] / "fixtures"
    for tree, version in (
        (REAL_LEGACY, "v3.25.0"),
        (fixtures / "bke-real-ipmod", "v3.27.3"),
        (fixtures / "bke-real", "v3.31.3"),
    ):
        shutil.copytree(tree / "kubernetes" / "calico" / version, calico / version)
    shutil.copy(REAL_LEGACY / "calico-render.yaml", root / ".calico-render.yaml")
    with pytest.raises(SystemExit) as done:
        main(["check", str(root), *KUBE, "--jobs", "1", "--update-golden"])
    assert done.value.code == 0
    return root


def test_the_real_tree_passes_upstream_fidelity_with_its_deviations_declared(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, real_tree: Path
) -> None:
    code, data = _check(capsys, real_tree, "--upstream", str(UPSTREAM), "--format", "json")
    assert code == 0, [
        f for v in data["versions"] for f in v["findings"] if f["severity"] == "error"
    ]
    fid = {v["version"]: v["fidelity"] for v in data["versions"]}
    assert {v: (f["errors"], f["warnings"]) for v, f in fid.items()} == {
        "v3.25.0": (0, 0),
        "v3.27.3": (0, 0),
        "v3.31.3": (0, 0),
    }
    assert (fid["v3.25.0"]["deviations"], fid["v3.27.3"]["deviations"]) == (7, 5)
    assert data["exceptions"]["warnings"] == [] and len(data["exceptions"]["deviations"]) == 5
    # the same deviations, applied alike, make capability's fidelity clean too
    r = run(capsys, "capability", "--manifests", str(real_tree), "--version", "v3.27.3", *KUBE,
            "--upstream", str(UPSTREAM), "--format", "json")  # fmt: skip
    cap = json.loads(r.out)["fidelity"]
    assert (cap["errors"], cap["warnings"], cap["deviations"]) == (0, 0, 5)
    # a new deviation stands out: a typo'd env name
    tree = tmp_path / "typo"
    shutil.copytree(real_tree, tree)
    path = tree / "kubernetes" / "calico" / "v3.27.3" / "calico.yaml"
    text = path.read_text(encoding="utf-8")
    vxlan = '- name: CALICO_IPV4POOL_VXLAN\n              value: "Always"'
    assert text.count(vxlan) == 1
    path.write_text(text.replace(vxlan, vxlan.replace("VXLAN\n", "VXLANN\n")), encoding="utf-8")
    code, data = _check(capsys, tree, "--upstream", str(UPSTREAM), "--format", "json")
    found = [
        (f["rule"], f["severity"], f["field"])
        for v in data["versions"]
        for f in v["findings"]
        if f["stage"] == "fidelity"
    ]
    assert code == 1 and found == [
        ("fidelity-missing-field", "error", VXLAN_VALUE.removesuffix(".value")),
        (
            "fidelity-extra-field",
            "warning",
            VXLAN_VALUE.removesuffix(".value").replace("VXLAN]", "VXLANN]"),
        ),
    ]
