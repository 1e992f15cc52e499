"""The golden stage: layout, containment, atomic writes, and what changed (field by
field, at the template line that renders it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from renderer.checks import golden as compare
from renderer.checks.golden import GoldenInput, ScenarioOutput, golden_files
from renderer.checks.options import CheckOptions
from renderer.engine.sourcemap import SourceMap
from renderer.errors import InputError
from renderer.finding import ERROR, WARNING, Finding
from renderer.k8s.diff import diff_values
from renderer.k8s.parse import K8sObject, parse_stream

CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: calico-config
  namespace: kube-system
data:
  veth_mtu: "{mtu}"
"""
DS = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: calico-node
  namespace: kube-system
spec:
  template:
    spec:
      containers:
        - name: calico-node
          env:
            - name: A
              value: "{a}"
            - name: B
              value: "b"
"""
SVC = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: kube-system\n"
FILES = ["000-crds.yaml", "002-calico.yaml"]


def outputs(mtu: str = "0", a: str = "x", extra: str = "") -> list[ScenarioOutput]:
    return [
        ScenarioOutput(
            name,
            {"scenario": name, "typhaReplicas": replicas},
            (
                ("000-crds.yaml", "kind: X\n"),
                (
                    "002-calico.yaml",
                    CM.format(mtu=mtu)
                    + "---\n"
                    + DS.format(a=a if name != "off" else "off")
                    + (extra if name == "on" else ""),
                ),
            ),
        )
        for name, replicas in (("off", "0"), ("on", "3"))
    ]


def given(outs: list[ScenarioOutput], decision_at: tuple[str, int] | None = None) -> GoldenInput:
    """The renders as the gate parsed them, each line its own template line."""
    parsed: dict[tuple[str, str], list[K8sObject]] = {}
    maps: dict[tuple[str, str], SourceMap] = {}
    for out in outs:
        for name, text in out.files:
            maps[name, text] = SourceMap.identity(text)
            parsed[name, text] = parse_stream(text, name, lines=maps[name, text])
    return GoldenInput(outs, parsed, maps, FILES, decision_at)


def changed(old: dict[str, str], outs: list[ScenarioOutput], **kw: object) -> list[Finding]:
    return compare.compare(old, given(outs), "v3.28.2", "golden/calico/v3.28.2", **kw).findings  # type: ignore[arg-type]


def lines(found: list[Finding]) -> list[str]:
    return [str(f) for f in found]


def test_one_directory_per_scenario_named_by_the_scenario_whatever_renders_alike() -> None:
    files = golden_files(outputs())
    assert list(files) == [
        "off/000-crds.yaml",
        "off/002-calico.yaml",
        "off/decision.json",
        "on/000-crds.yaml",
        "on/002-calico.yaml",
        "on/decision.json",
    ]
    assert files["off/000-crds.yaml"] == files["on/000-crds.yaml"]
    assert files["on/decision.json"] == '{\n  "scenario": "on",\n  "typhaReplicas": "3"\n}\n'


def test_the_merged_layout_of_earlier_releases_reads_as_each_scenarios_files() -> None:
    disk = {
        "common/000-crds.yaml": "kind: X\n",
        "off/decision.json": "{}\n",
        "on/decision.json": "{}\n",
        "off+on/002-calico.yaml": "kind: Y\n",
    }
    files, merged = compare.expand(disk)
    assert merged == ("common", "off+on")
    assert files == {
        "off/000-crds.yaml": "kind: X\n",
        "off/002-calico.yaml": "kind: Y\n",
        "off/decision.json": "{}\n",
        "on/000-crds.yaml": "kind: X\n",
        "on/002-calico.yaml": "kind: Y\n",
        "on/decision.json": "{}\n",
    }
    assert compare.expand(files) == (files, ())


def test_field_paths_use_names_for_named_items_indexes_otherwise_and_quote_odd_keys() -> None:
    old = {
        "spec": {
            "env": [{"name": "A", "value": "1"}],
            "args": ["a", "b"],
            "annotations": {"k8s.io/x": "1"},
        }
    }
    new = {
        "spec": {
            "env": [{"name": "A", "value": "2"}],
            "args": ["a", "c"],
            "annotations": {"k8s.io/x": "2"},
        }
    }
    assert diff_values(old, new) == [
        ('spec.annotations["k8s.io/x"]', '"1"', '"2"'),
        ("spec.args[1]", '"b"', '"c"'),
        ("spec.env[name=A].value", '"1"', '"2"'),
    ]
    assert diff_values({"a": 1}, {"a": "1"}) == [("a", "1", '"1"')]
    assert diff_values({"a": 1}, {}) == [("a", "1", None)]


def test_a_field_change_is_one_finding_at_the_template_line_listing_every_scenario() -> None:
    found = changed(golden_files(outputs(mtu="0")), outputs(mtu="1440"))
    assert lines(found) == [
        "kubernetes/calico/v3.28.2/002-calico.yaml:7: error: [golden-changed] ConfigMap "
        'kube-system/calico-config data.veth_mtu: "0" → "1440" (scenarios off, on)'
    ]
    f = found[0]
    assert (f.rule, f.severity, f.stage, f.field) == (
        "golden-changed",
        ERROR,
        "goldens",
        "data.veth_mtu",
    )
    assert f.object is not None and f.object.api_version == "v1"


def test_a_field_in_a_named_list_item_is_located_at_its_own_line() -> None:
    found = changed(golden_files(outputs(a="x")), outputs(a="y"))
    assert [(f.field, f.line, f.message, f.scenarios) for f in found] == [
        (
            "spec.template.spec.containers[name=calico-node].env[name=A].value",
            21,
            '"x" → "y"',
            ("on",),
        )
    ]


def test_added_and_removed_objects_are_located_where_they_are_and_were() -> None:
    added = changed(golden_files(outputs()), outputs(extra=SVC))
    assert [(str(f.object), f.message, f.line) for f in added] == [
        ("Service kube-system/s", "added: rendered, not in the golden", 25)
    ]
    old = golden_files(outputs())
    old["on/002-calico.yaml"] = CM.format(mtu="0") + SVC + "---\n" + DS.format(a="x")
    removed = changed(old, outputs())
    # above the object that followed it in the golden (the DaemonSet, now line 9)
    assert [(str(f.object), f.message, f.line) for f in removed] == [
        ("Service kube-system/s", "removed: in the golden, not rendered", 9)
    ]


def test_values_that_differ_per_scenario_at_one_line_are_one_finding() -> None:
    old = golden_files(outputs())
    old["off/002-calico.yaml"] = old["off/002-calico.yaml"].replace('"0"', '"1"')
    old["on/002-calico.yaml"] = old["on/002-calico.yaml"].replace('"0"', '"2"')
    found = changed(old, outputs())
    assert [f.message for f in found] == ['"1" → "0" (off); "2" → "0" (on)']
    assert found[0].scenarios == ("off", "on")


def test_a_decision_change_is_located_where_the_contract_failed_else_at_the_change() -> None:
    old = golden_files(outputs())
    new = outputs(mtu="9")
    new[1] = ScenarioOutput("on", {"scenario": "on", "typhaReplicas": "4"}, new[1].files)
    decision = [f for f in changed(old, new) if "decision" in f.message or not f.object]
    assert [(f.message, f.file, f.line, f.scenarios) for f in decision] == [
        (
            'decision.json typhaReplicas: "3" → "4"',
            "kubernetes/calico/v3.28.2/002-calico.yaml",
            7,
            ("on",),
        )
    ]
    at = compare.compare(old, given(new, ("002-calico.yaml", 12)), "v3.28.2", "g").findings
    assert [f.line for f in at if f.object is None] == [12]
    alone = outputs()
    alone[1] = ScenarioOutput("on", {"scenario": "on", "typhaReplicas": "4"}, alone[1].files)
    [only] = changed(old, alone)
    assert (only.file, only.line) == ("kubernetes/calico/v3.28.2/000-crds.yaml", 1)


def test_whole_files_and_scenarios_added_or_removed_are_named_once() -> None:
    old = golden_files(outputs())
    old["off/extra.yaml"] = "kind: Gone\n"
    old["gone/decision.json"] = "{}\n"
    found = changed(old, outputs())
    assert [(f.message, f.file, f.line, f.scenarios) for f in found] == [
        (
            "extra.yaml: removed: in the golden, not rendered",
            "kubernetes/calico/v3.28.2/000-crds.yaml",
            1,
            ("off",),
        ),
        (
            "goldens of a scenario no longer rendered",
            "kubernetes/calico/v3.28.2/000-crds.yaml",
            1,
            ("gone",),
        ),
    ]
    new_scenario = [o for o in outputs() if o.name == "off"]
    only_off = {k: v for k, v in golden_files(new_scenario).items()}
    found = changed(only_off, outputs())
    assert [(f.message, f.scenarios) for f in found] == [
        ("a scenario rendered with no goldens yet", ("on",))
    ]


def test_text_only_changes_are_one_warning_naming_the_template_lines() -> None:
    old = golden_files(outputs())
    for s in ("off", "on"):
        old[f"{s}/002-calico.yaml"] = old[f"{s}/002-calico.yaml"].replace(
            "\ndata:\n", "\n# a comment\ndata:\n"
        )
    [f] = changed(old, outputs())
    assert (f.rule, f.severity, f.file, f.line, f.scenarios) == (
        "golden-text-changed",
        WARNING,
        "kubernetes/calico/v3.28.2/002-calico.yaml",
        6,
        ("off", "on"),
    )
    assert "line 6" in f.message and f.object is None
    [strict] = changed(old, outputs(), strict=True)
    assert strict.severity == ERROR


def test_key_order_alone_is_a_text_change() -> None:
    old = golden_files(outputs())
    old["on/002-calico.yaml"] = old["on/002-calico.yaml"].replace(
        "  name: calico-config\n  namespace: kube-system\n",
        "  namespace: kube-system\n  name: calico-config\n",
    )
    assert [f.rule for f in changed(old, outputs())] == ["golden-text-changed"]


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [("on/002-calico.yaml", "a: [b\n", None), ("on/decision.json", "{\n  not json", 2)],
)
def test_a_golden_that_is_not_yaml_or_json_is_bad_input_naming_it(
    path: str, text: str, line: int | None
) -> None:
    old = golden_files(outputs())
    old[path] = text
    with pytest.raises(InputError) as err:
        changed(old, outputs())
    assert err.value.file == f"golden/calico/v3.28.2/{path}"
    if line is not None:
        assert err.value.line == line
    # an update replaces it
    assert changed(old, outputs(), lenient=True)


def test_unified_diff_only_of_files_both_sides_have() -> None:
    old = golden_files(outputs(mtu="0"))
    new = dict(golden_files(outputs(mtu="1440")))
    new["on/new.yaml"] = "kind: Big\n" * 1000
    diffs = compare.file_diffs(old, new, "golden/v1")
    assert sorted(diffs) == ["off/002-calico.yaml", "on/002-calico.yaml"]
    diff = "".join(diffs.values())
    assert "--- a/golden/v1/off/002-calico.yaml" in diff
    assert '-  veth_mtu: "0"\n' in diff and '+  veth_mtu: "1440"\n' in diff


def test_write_golden_lists_changes_removes_stale_and_leaves_unchanged_alone(
    tmp_path: Path,
) -> None:
    first = golden_files(outputs())
    assert {c.change for c in compare.write_golden(tmp_path, first)} == {"added"}
    assert compare.load_golden(tmp_path) == first
    untouched = tmp_path / "on/000-crds.yaml"
    before = untouched.stat().st_mtime_ns
    second = dict(golden_files(outputs(mtu="9")))
    second.pop("off/decision.json")
    changes = compare.write_golden(tmp_path, second)
    assert [(c.path, c.change) for c in changes] == [
        ("off/002-calico.yaml", "modified"),
        ("off/decision.json", "removed"),
        ("on/002-calico.yaml", "modified"),
    ]
    assert compare.load_golden(tmp_path) == second
    assert untouched.stat().st_mtime_ns == before


def test_rewriting_the_merged_layout_leaves_one_directory_per_scenario(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "common/000-crds.yaml").write_text("kind: X\n")
    new = golden_files(outputs())
    for path, text in new.items():
        if not path.endswith("000-crds.yaml"):
            (tmp_path / path).parent.mkdir(exist_ok=True)
            (tmp_path / path).write_text(text)
    read = compare.read_goldens(tmp_path, tmp_path)
    assert read is not None and read.merged == ("common",) and read.files == new
    compare.write_golden(tmp_path, new, compare.file_changes(read.disk, new))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["off", "on"]
    assert compare.load_golden(tmp_path) == new


def test_interrupted_update_leaves_every_old_golden_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = golden_files(outputs())
    compare.write_golden(tmp_path, old)
    real_replace = os.replace
    calls = {"n": 0}

    def flaky(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(KeyboardInterrupt):
        compare.write_golden(tmp_path, golden_files(outputs(mtu="1440", a="z")))
    monkeypatch.setattr(os, "replace", real_replace)
    now = compare.load_golden(tmp_path)
    assert now is not None and set(now) == set(old)
    for path, text in now.items():
        assert text in (old[path], golden_files(outputs(mtu="1440", a="z"))[path])
    assert not [p for p in tmp_path.rglob(".*") if p.is_file()], "temp files left behind"


def test_load_golden_none_when_missing(tmp_path: Path) -> None:
    assert compare.load_golden(tmp_path / "nope") is None


def test_only_the_golden_side_is_parsed_the_renders_are_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = golden_files(outputs(mtu="0"))
    name = "002-calico.yaml"
    parsed: list[str] = []

    def counting(text: str, file: str) -> list:  # type: ignore[type-arg]
        parsed.append(text)
        return parse_stream(text, file)

    inputs = given(outputs(mtu="1440"))
    monkeypatch.setattr(compare, "parse_stream", counting)
    found = compare.compare(old, inputs, "v3.28.2", "g").findings
    assert [f.field for f in found] == ["data.veth_mtu"]
    assert parsed == [old[f"off/{name}"], old[f"on/{name}"]]


def test_write_golden_uses_changes_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = golden_files(outputs())
    compare.write_golden(tmp_path, first)
    second = golden_files(outputs(mtu="9"))
    changes = compare.file_changes(first, second)

    def unused(*args: object, **kw: object) -> None:
        raise AssertionError("goldens reloaded")

    monkeypatch.setattr(compare, "read_goldens", unused)
    assert compare.write_golden(tmp_path, second, changes) == changes
    monkeypatch.undo()
    assert compare.load_golden(tmp_path) == second


def test_golden_linking_outside_its_directory_is_refused(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    secret = tmp_path_factory.mktemp("outside") / "secret.yaml"
    secret.write_text("password: hunter2\n")
    golden = tmp_path / "v3.28.2" / "nodes-50"
    golden.mkdir(parents=True)
    (golden / "000-crds.yaml").symlink_to(secret)
    with pytest.raises(InputError) as err:
        compare.read_goldens(tmp_path / "v3.28.2", tmp_path)
    assert "hunter2" not in str(err.value) and "symbolic link" in err.value.message
    assert err.value.file is not None and err.value.file.endswith("nodes-50/000-crds.yaml")


@pytest.mark.parametrize("inside", [True, False])
def test_a_linked_scenario_directory_is_refused_wherever_it_points(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, inside: bool
) -> None:
    (tmp_path / "v3.28.2").mkdir()
    target = tmp_path / "v3.28.2" / "real" if inside else tmp_path_factory.mktemp("out")
    target.mkdir(parents=True, exist_ok=True)
    (tmp_path / "v3.28.2" / "nodes-50").symlink_to(target, target_is_directory=True)
    with pytest.raises(InputError) as err:
        compare.read_goldens(tmp_path / "v3.28.2", tmp_path)
    assert err.value.file is not None and err.value.file.endswith("nodes-50")


def test_a_scenario_directory_that_is_a_file_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "v3.28.2").mkdir()
    (tmp_path / "v3.28.2" / "nodes-50").write_text("x\n")
    with pytest.raises(InputError) as err:
        compare.read_goldens(tmp_path / "v3.28.2", tmp_path)
    assert err.value.file is not None and err.value.file.endswith("v3.28.2/nodes-50")
    assert "not a directory" in err.value.message


def test_a_link_above_the_goldens_inside_root_is_refused(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "calico").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError) as err:
        compare.refuse_links(tmp_path / "golden" / "calico" / "v3.28.2", tmp_path)
    assert err.value.file is not None and err.value.file.endswith("golden/calico")
    with pytest.raises(InputError):
        compare.write_golden(
            tmp_path / "golden" / "calico" / "v3.28.2", golden_files(outputs()), root=tmp_path
        )
    assert not any(elsewhere.iterdir()), "written through the link"


def test_each_addon_has_its_golden_directory_and_calicos_may_be_named(tmp_path: Path) -> None:
    tree = CheckOptions(tmp_path, tmp_path / "golden" / "calico", manifests_arg="t")
    assert tree.golden_dir("coredns") == tmp_path / "golden" / "coredns"
    assert compare.golden_label(tree, ("calico", "coredns")) == (
        f"{tmp_path / 'golden' / 'calico'} and {tmp_path / 'golden'}/<addon>"
    )
    assert compare.golden_label(tree, ("coredns",)) == f"{tmp_path / 'golden'}/<addon>"
    assert compare.golden_path(tree, "v1.0.0", "coredns") == "golden/coredns/v1.0.0"
    assert compare.lock_dirs(tree, ("calico", "coredns", "kubeproxy")) == [
        tmp_path / "golden",
        tmp_path / "golden" / "calico",
    ]
    named = CheckOptions(tmp_path, tmp_path / "mine", golden_arg="mine")
    assert named.golden_dir() == tmp_path / "mine"
    assert named.golden_dir("coredns") == tmp_path / "golden" / "coredns"
    assert compare.golden_path(named, "v1.0.0", "coredns") == "golden/coredns/v1.0.0"


def test_a_tree_adopted_for_calico_only_has_goldens_of_calico_alone(tmp_path: Path) -> None:
    options = CheckOptions(tmp_path, tmp_path / "golden" / "calico")
    assert not compare.adopted_for_calico_only(options, ("calico", "coredns"))  # no goldens
    (tmp_path / "golden" / "calico" / "v3.28.2").mkdir(parents=True)
    assert compare.adopted_for_calico_only(options, ("calico", "coredns"))
    (tmp_path / "golden" / "other").mkdir()  # an addon not checked does not count
    assert compare.adopted_for_calico_only(options, ("calico", "coredns"))
    (tmp_path / "golden" / "coredns" / "v1.0.0").mkdir(parents=True)
    assert not compare.adopted_for_calico_only(options, ("calico", "coredns"))
    assert compare.stale_addons(options, ("calico", "coredns")) == ["other"]
