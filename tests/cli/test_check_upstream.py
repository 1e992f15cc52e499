"""``calico-render check --upstream DIR`` and ``capability --upstream DIR`` end to end.

Upstream folders are built from the version's own renders (so a test can make one
deviation at a time), from the committed upstream manifests, or are broken on purpose.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from renderer.calico import fidelity
from renderer.checks.renders import fidelity_renderer
from renderer.cli import main
from renderer.data import schemas
from renderer.manifests.tree import resolve_version
from tests.clihelp import Result, one_error, ref, run

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures"
HANDWRITTEN = FIXTURES / "handwritten"
BKE_REAL = FIXTURES / "bke-real"
UPSTREAM = REPO_ROOT / "upstream" / "calico"
CALICO = Path("kubernetes") / "calico"
KUBE = ("--kube-version", "1.30")
VERSION = "v3.29.3"


def check(capsys: pytest.CaptureFixture[str], root: Path, golden: Path, *args: str) -> Result:
    """``check`` in this process (``--jobs 1``) unless ``args`` name other jobs."""
    return run(
        capsys,
        "check",
        "--manifests",
        str(root),
        "--golden",
        str(golden),
        *KUBE,
        "--jobs",
        "1",
        *args,
    )


@pytest.fixture(scope="module")
def own_upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An upstream folder holding the hand-written v3.29.3's own renders: no deviation."""
    directory = tmp_path_factory.mktemp("upstream")
    vdir = resolve_version(VERSION, HANDWRITTEN)
    render = fidelity_renderer(vdir)
    (directory / VERSION).mkdir()
    for s in (fidelity.TYPHA_OFF, fidelity.TYPHA_ON, fidelity.VXLAN):
        docs = [json.dumps(o.data) for o in render(s.values)]
        (directory / VERSION / s.upstream_file).write_text(_stream(docs), encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def goldens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The goldens ``--update-golden`` writes for ``tree``'s version, written once."""
    root = tmp_path_factory.mktemp("adopted") / "bke-manifests"
    shutil.copytree(HANDWRITTEN / CALICO / VERSION, root / CALICO / VERSION)
    golden = root.parent / "golden"
    argv = ["check", "--manifests", str(root), "--golden", str(golden), *KUBE, "--jobs", "1"]
    with pytest.raises(SystemExit) as done:
        main([*argv, "--update-golden"])
    assert done.value.code == 0
    return golden


@pytest.fixture
def tree(tmp_path: Path, goldens: Path) -> tuple[Path, Path]:
    """A one-version tree (hand-written v3.29.3) and goldens that match it."""
    root = tmp_path / "bke-manifests"
    shutil.copytree(HANDWRITTEN / CALICO / VERSION, root / CALICO / VERSION)
    golden = tmp_path / "golden"
    shutil.copytree(goldens, golden)
    return root, golden


def _edit_upstream(source: Path, dest: Path, edit: Any) -> Path:
    shutil.copytree(source, dest)
    path = dest / VERSION / "calico.yaml"
    docs = [json.loads(d) for d in path.read_text(encoding="utf-8").split("---\n") if d]
    edit(docs)
    path.write_text(_stream([json.dumps(d) for d in docs]), encoding="utf-8")
    return dest


def _stream(docs: list[str]) -> str:
    """JSON documents as a YAML stream, each after a ``---`` (a stream beginning with
    ``{`` would be read as JSON, which has no ``---``)."""
    return "".join(f"---\n{d}\n" for d in docs)


def _kube_controllers(docs: list[dict[str, Any]]) -> dict[str, Any]:
    dep = next(
        d
        for d in docs
        if d["kind"] == "Deployment" and d["metadata"]["name"] == "calico-kube-controllers"
    )
    container: dict[str, Any] = dep["spec"]["template"]["spec"]["containers"][0]
    return container


def test_own_renders_as_upstream_pass_with_a_fidelity_column(
    capsys: pytest.CaptureFixture[str], tree: tuple[Path, Path], own_upstream: Path
) -> None:
    r = check(capsys, *tree, "--upstream", str(own_upstream), "--format", "text")
    assert r.code == 0, r.out
    header = next(line for line in r.out.splitlines() if line.startswith("VERSION"))
    assert header.split() == [
        "VERSION",
        "DIALECT",
        "TEMPLATES",
        "CAPABLE",
        "RULES",
        "SCHEMA",
        "COVERAGE",
        "GOLDENS",
        "FIDELITY",
        "RESULT",
    ]
    row = next(line for line in r.out.splitlines() if line.startswith(VERSION))
    assert row.split()[-2:] == ["ok", "pass"]
    assert f"and upstream {own_upstream}" in r.out.splitlines()[0]


def test_warnings_pass_and_errors_fail_the_version(
    capsys: pytest.CaptureFixture[str],
    tree: tuple[Path, Path],
    own_upstream: Path,
    tmp_path: Path,
) -> None:
    def drop_env(docs: list[dict[str, Any]]) -> None:  # ours then has an extra env
        c = _kube_controllers(docs)
        c["env"] = [e for e in c["env"] if e["name"] != "ENABLED_CONTROLLERS"]

    def change_env(docs: list[dict[str, Any]]) -> None:
        c = _kube_controllers(docs)
        c["env"] = [
            {**e, "value": "changed"} if e["name"] == "ENABLED_CONTROLLERS" else e for e in c["env"]
        ]

    fld = "spec.template.spec.containers[calico-kube-controllers].env[ENABLED_CONTROLLERS]"
    for edit, code, status, rule, severity, path in (
        (drop_env, 0, "pass", "fidelity-extra-field", "warning", fld),
        (change_env, 1, "fail", "fidelity-changed", "error", f"{fld}.value"),
    ):
        upstream = _edit_upstream(own_upstream, tmp_path / edit.__name__, edit)
        r = check(capsys, *tree, "--upstream", str(upstream), "--format", "json")
        assert r.code == code, r.out
        (v,) = json.loads(r.out)["versions"]
        assert v["stages"]["fidelity"] == status
        found = [
            (f["rule"], f["severity"], ref(f["object"]), f["field"], tuple(f["scenarios"]))
            for f in v["findings"]
            if f["stage"] == "fidelity"
        ]
        obj = "Deployment kube-system/calico-kube-controllers"
        assert found == [(rule, severity, obj, path, ("typha-off",))]
        assert v["fidelity"]["errors"] == (severity == "error")
        assert v["fidelity"]["warnings"] == (severity == "warning")


def test_a_version_dir_lacks_is_no_upstream_to_compare(
    capsys: pytest.CaptureFixture[str], tree: tuple[Path, Path], tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    r = check(capsys, *tree, "--upstream", str(empty), "--format", "text")
    assert r.code == 0, r.out
    assert f"  fidelity: {fidelity.NO_UPSTREAM} in {empty}" in r.out
    r = check(capsys, *tree, "--upstream", str(empty), "--format", "json")
    (v,) = json.loads(r.out)["versions"]
    assert v["stages"]["fidelity"] == "skip" and v["passed"]
    assert v["fidelity"]["note"].startswith(fidelity.NO_UPSTREAM)


def test_without_upstream_the_report_has_no_trace_of_the_stage(
    capsys: pytest.CaptureFixture[str], tree: tuple[Path, Path]
) -> None:
    r = check(capsys, *tree, "--format", "json")
    data = json.loads(r.out)
    assert "upstream" not in data
    (v,) = data["versions"]
    assert "fidelity" not in v and "fidelity" not in v["stages"]
    assert "FIDELITY" not in check(capsys, *tree, "--format", "text").out


def test_json_is_the_same_whatever_jobs_and_matches_its_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("--upstream", str(UPSTREAM), "--format", "json")
    golden = HANDWRITTEN / "no-goldens"
    one = check(capsys, HANDWRITTEN, golden, *args, "--jobs", "1")
    two = check(capsys, HANDWRITTEN, golden, *args, "--jobs", "3")
    assert one.code == two.code == 1
    assert one.out == two.out
    data = json.loads(one.out)
    schemas.validate_output("check-report.schema.json", data)
    assert [v["stages"]["fidelity"] for v in data["versions"]] == ["fail"] * 3


def test_whole_json_report_regression(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data_regression: Any,
) -> None:
    monkeypatch.chdir(REPO_ROOT)
    r = run(
        capsys,
        "check",
        "--manifests",
        "tests/fixtures/handwritten",
        "--golden",
        "tests/fixtures/handwritten/no-goldens",
        "--upstream",
        "upstream/calico",
        *KUBE,
        "--jobs",
        "1",
        "--format",
        "json",
    )
    assert r.code == 1
    data_regression.check(json.loads(r.out))


def test_junit_names_the_failed_fidelity_stage_and_its_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    r = check(
        capsys,
        HANDWRITTEN,
        HANDWRITTEN / "no-goldens",
        "--upstream",
        str(UPSTREAM),
        "--format",
        "junit",
    )
    suites = {s.get("name"): s for s in ET.fromstring(r.out).iter("testsuite")}
    case = suites["calico v3.31.3"].find("testcase[@name='v3.31.3']")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    lines = failure.text.splitlines()
    assert "stage fidelity: fail" in lines
    assert "fidelity" in failure.get("message", "")
    assert any(": error: [fidelity-missing-permission] " in line for line in lines)


@pytest.mark.parametrize(
    ("layout", "named"),
    [
        (None, "missing"),
        ("file", "upstream"),
        ({f"{VERSION}/calico-typha.yaml": "kind: List\n"}, f"{VERSION}/calico.yaml"),
        ({f"{VERSION}/calico.yaml": "a: [\n", f"{VERSION}/calico-typha.yaml": ""}, ""),
    ],
    ids=["missing", "a file", "no calico.yaml", "unparsable"],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bad_upstream_dir_exits_2_with_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    layout: Any,
    named: str,
    jobs: str,
) -> None:
    upstream = tmp_path / ("missing" if layout is None else "upstream")
    if layout == "file":
        upstream.write_text("x", encoding="utf-8")
    elif isinstance(layout, dict):
        for rel, text in layout.items():
            (upstream / rel).parent.mkdir(parents=True, exist_ok=True)
            (upstream / rel).write_text(text, encoding="utf-8")
    root = tmp_path / "tree"
    shutil.copytree(HANDWRITTEN / CALICO / VERSION, root / CALICO / VERSION)
    r = check(capsys, root, tmp_path / "golden", "--upstream", str(upstream), "--jobs", jobs)
    expected = upstream / named if named not in ("missing", "upstream") else upstream
    if not named:
        expected = upstream / VERSION / "calico.yaml"
    one_error(r, file=expected)
    assert r.out == ""
    assert not (tmp_path / "golden").exists()


def test_capability_shows_the_same_findings(
    capsys: pytest.CaptureFixture[str], file_regression: Any
) -> None:
    base = ("capability", "--version", "v3.31.3", "--manifests", str(HANDWRITTEN), *KUBE)
    r = run(capsys, *base, "--upstream", str(UPSTREAM), "--format", "json")
    assert r.code == 1
    data = json.loads(r.out)
    schemas.validate_output("capability-report.schema.json", data)
    fid = data["fidelity"]
    assert fid["status"] == "fail" and not data["release_ready"]
    assert [s["name"] for s in fid["scenarios"]] == ["typha-off", "typha-on", "vxlan"]
    found = [f for f in data["findings"] if f["stage"] == "fidelity"]
    keys = {(f["rule"], ref(f["object"]), f.get("field", "")) for f in found}
    assert (
        "fidelity-missing-permission",
        "ClusterRole calico-kube-controllers",
        "rules[crd.projectcalico.org/kubecontrollersconfigurations]",
    ) in keys
    gate = check(
        capsys,
        HANDWRITTEN,
        HANDWRITTEN / "no-goldens",
        "--upstream",
        str(UPSTREAM),
        "--format",
        "json",
    )
    v = next(v for v in json.loads(gate.out)["versions"] if v["version"] == "v3.31.3")
    gate_findings = [f for f in v["findings"] if f["stage"] == "fidelity"]
    assert [(f["rule"], f["message"]) for f in gate_findings] == [
        (f["rule"], f["message"]) for f in found
    ]
    text = run(capsys, *base, "--upstream", str(UPSTREAM))
    assert text.code == 1  # the fidelity section and a verdict that names the deviation
    out = text.out.replace(str(UPSTREAM), "UPSTREAM").replace(str(HANDWRITTEN), "MANIFESTS")
    file_regression.check(out, basename="capability_with_upstream", extension=".txt")
    plain = run(capsys, *base, "--format", "json")
    assert "fidelity" not in json.loads(plain.out)


def test_capability_bad_upstream_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    r = run(
        capsys,
        "capability",
        "--version",
        "v3.31.3",
        "--manifests",
        str(BKE_REAL),
        "--upstream",
        str(tmp_path / "nope"),
    )
    one_error(r, file=tmp_path / "nope")
    assert r.out == ""


def test_bke_real_v3_31_3_passes_fidelity_in_the_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    r = check(
        capsys, BKE_REAL, tmp_path / "golden", "--upstream", str(UPSTREAM), "--format", "json"
    )
    (v,) = json.loads(r.out)["versions"]
    assert v["stages"]["fidelity"] == "pass"
    assert [f for f in v["findings"] if f["stage"] == "fidelity"] == []


def test_a_reachable_value_that_fails_to_render_fails_the_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """calicoMode=ipip breaks the render: the gate's scenarios, derived from what the
    templates compare, render it too, so the templates stage fails there, naming the
    template line, before fidelity compares anything."""
    root = tmp_path / "tree"
    dest = root / CALICO / VERSION
    shutil.copytree(HANDWRITTEN / CALICO / VERSION, dest)
    crds = dest / "000-crds.yaml"
    crds.write_text(
        '{{ if eq .calicoMode "ipip" }}{{ index .calicoMode 99 }}{{ end }}\n'
        + crds.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    r = check(capsys, root, tmp_path / "golden", "--upstream", str(UPSTREAM), "--format", "json")
    assert r.code == 1
    (v,) = json.loads(r.out)["versions"]
    assert v["stages"]["templates"] == "fail"
    [error] = [f for f in v["findings"] if f["stage"] == "templates"]
    assert (error["rule"], error["location"]["path"], error["location"]["line"]) == (
        "templates-error",
        f"kubernetes/calico/{VERSION}/000-crds.yaml",
        1,
    )


def test_an_exception_downgrades_a_fidelity_error(
    capsys: pytest.CaptureFixture[str],
    tree: tuple[Path, Path],
    own_upstream: Path,
    tmp_path: Path,
) -> None:
    def change_env(docs: list[dict[str, Any]]) -> None:
        c = _kube_controllers(docs)
        c["env"] = [
            {**e, "value": "changed"} if e["name"] == "ENABLED_CONTROLLERS" else e for e in c["env"]
        ]

    upstream = _edit_upstream(own_upstream, tmp_path / "changed", change_env)
    reviewed = tmp_path / "reviewed.yaml"
    reviewed.write_text(
        "exceptions:\n  - rule: fidelity-changed\n    versions: [v3.29.3]\n"
        "    severity: warning\n    reason: our controllers list is deliberate\n",
        encoding="utf-8",
    )
    args = ("--upstream", str(upstream), "--format", "json")
    assert check(capsys, *tree, *args).code == 1
    r = check(capsys, *tree, *args, "--exceptions", str(reviewed))
    assert r.code == 0, r.out
    (v,) = json.loads(r.out)["versions"]
    assert v["stages"]["fidelity"] == "pass"
    assert (v["fidelity"]["errors"], v["fidelity"]["warnings"]) == (0, 1)
    found = [
        (f["rule"], f["severity"], f["exception"])
        for f in v["findings"]
        if f["stage"] == "fidelity"
    ]
    assert found == [("fidelity-changed", "warning", "our controllers list is deliberate")]
