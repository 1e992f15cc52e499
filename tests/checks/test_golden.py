"""The golden stage: layout, atomic writes, text and object-level differences."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from renderer.checks import golden as compare
from renderer.checks.golden import ScenarioOutput, golden_files, object_changes
from renderer.k8s.diff import diff_values

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


def outputs(mtu: str = "0", a: str = "x") -> list[ScenarioOutput]:
    return [
        ScenarioOutput(
            name,
            {"scenario": name, "typhaReplicas": replicas},
            (
                ("000-crds.yaml", "kind: X\n"),
                (
                    "002-calico.yaml",
                    CM.format(mtu=mtu) + "---\n" + DS.format(a=a if name != "off" else "off"),
                ),
            ),
        )
        for name, replicas in (("off", "0"), ("on", "3"))
    ]


def test_layout_stores_identical_files_once_and_a_decision_per_scenario() -> None:
    files = golden_files(outputs())
    assert list(files) == [
        "common/000-crds.yaml",
        "off/002-calico.yaml",
        "off/decision.json",
        "on/002-calico.yaml",
        "on/decision.json",
    ]
    assert files["on/decision.json"] == '{\n  "scenario": "on",\n  "typhaReplicas": "3"\n}\n'


def test_a_rendering_shared_by_some_scenarios_is_stored_once_for_them() -> None:
    three = [
        ScenarioOutput(n, {"scenario": n}, (("a.yaml", "kind: A\n"), ("b.yaml", f"kind: {k}\n")))
        for n, k in (("s50", "Down"), ("s51", "Up"), ("s601", "Up"))
    ]
    files = golden_files(three)
    assert [p for p in files if not p.endswith("decision.json")] == [
        "common/a.yaml",
        "s50/b.yaml",
        "s51+s601/b.yaml",
    ]
    new = dict(files)
    new["s51+s601/b.yaml"] = "kind: Other\n"
    changes = object_changes(files, new, ["s50", "s51", "s601"])
    assert [(c.describe(), c.scenarios) for c in changes] == [
        ('b.yaml object 1 (no name): kind "Up" -> "Other"', ["s51", "s601"]),
    ]


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


def test_object_changes_name_kind_namespace_name_path_and_values_once() -> None:
    old = golden_files(outputs(mtu="0"))
    new = golden_files(outputs(mtu="1440"))
    changes = object_changes(old, new, ["off", "on"])
    assert [c.describe() for c in changes] == [
        'ConfigMap kube-system/calico-config: data.veth_mtu "0" -> "1440"'
    ]
    assert changes[0].scenarios == ["off", "on"]


def test_object_changes_within_named_list_items_and_added_objects() -> None:
    old = golden_files(outputs(a="x"))
    new = dict(golden_files(outputs(a="y")))
    new["on/002-calico.yaml"] += "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"
    described = [c.describe() for c in object_changes(old, new, ["off", "on"])]
    assert described == [
        "DaemonSet kube-system/calico-node: spec.template.spec.containers[name=calico-node]"
        '.env[name=A].value "x" -> "y"',
        "Service s: added",
    ]


def test_summary_lines_name_an_object_the_decision_or_a_whole_file() -> None:
    """No line without a subject: objects without kind or name are named by position, a
    decision change names decision.json and its key, a whole file is added or removed."""
    old = dict(golden_files(outputs()))
    new = dict(golden_files(outputs()))
    old["off/extra.yaml"] = "data: {a: 1}\n"  # a golden file the render no longer has
    new["on/new.yaml"] = CM.format(mtu="1")  # a file only the render has
    old["on/002-calico.yaml"] += "---\nkind: ConfigMap\ndata: {x: y}\n"  # no name
    new["on/decision.json"] = '{\n  "scenario": "on",\n  "typhaReplicas": "4"\n}\n'
    old["off/decision.json"] = "{not json"
    old["gone/decision.json"] = "{}\n"  # a scenario no longer rendered
    old["README"] = "x"
    described = [(c.describe(), c.scenarios) for c in object_changes(old, new, ["off", "on"])]
    assert described == [
        ("decision.json: golden is not valid JSON", ["off"]),
        ("extra.yaml: removed", ["off"]),
        ('decision.json: typhaReplicas "3" -> "4"', ["on"]),
        ("002-calico.yaml object 3 (no name): removed", ["on"]),
        ("new.yaml: added", ["on"]),
        ("README: removed", []),
        ("gone/decision.json: removed", []),
    ]
    assert all(not line.startswith((" ", ":")) for line, _ in described)
    whole = dict(old)
    whole.pop("on/decision.json")
    assert "decision.json: added" in [
        c.describe() for c in object_changes(whole, new, ["off", "on"])
    ]


def test_unified_diff_shows_both_lines() -> None:
    old = golden_files(outputs(mtu="0"))
    new = golden_files(outputs(mtu="1440"))
    diff = "".join(compare.file_diffs(old, new, "golden/v1").values())
    assert "--- a/golden/v1/off/002-calico.yaml" in diff
    assert '-  veth_mtu: "0"\n' in diff and '+  veth_mtu: "1440"\n' in diff


def test_write_golden_lists_changes_removes_stale_and_leaves_unchanged_alone(
    tmp_path: Path,
) -> None:
    first = golden_files(outputs())
    assert {c.change for c in compare.write_golden(tmp_path, first)} == {"added"}
    assert compare.load_golden(tmp_path) == first
    untouched = tmp_path / "common/000-crds.yaml"
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


def test_object_changes_reuse_files_already_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    from renderer.k8s.parse import parse_stream

    old = golden_files(outputs(mtu="0"))
    new = golden_files(outputs(mtu="1440"))
    name = "002-calico.yaml"
    renders = [new[f"{scenario}/{name}"] for scenario in ("off", "on")]
    known = {(name, text): parse_stream(text, name) for text in renders}
    parsed: list[str] = []

    def counting(text: str, file: str) -> list:  # type: ignore[type-arg]
        parsed.append(text)
        return parse_stream(text, file)

    monkeypatch.setattr(compare, "parse_stream", counting)
    changes = object_changes(old, new, ["off", "on"], known)
    assert [c.describe() for c in changes] == [
        'ConfigMap kube-system/calico-config: data.veth_mtu "0" -> "1440"'
    ]
    # Only the golden side is parsed, each file once: the renders were known.
    assert parsed == [old[f"off/{name}"], old[f"on/{name}"]]


def test_write_golden_uses_changes_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = golden_files(outputs())
    compare.write_golden(tmp_path, first)
    second = golden_files(outputs(mtu="9"))
    changes = compare.file_changes(first, second)

    def unused(directory: Path) -> None:
        raise AssertionError("goldens reloaded")

    monkeypatch.setattr(compare, "load_golden", unused)
    assert compare.write_golden(tmp_path, second, changes) == changes
    monkeypatch.undo()
    assert compare.load_golden(tmp_path) == second


def test_golden_linking_outside_its_directory_is_refused(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from renderer.checks.golden import read_golden
    from renderer.errors import InputError

    secret = tmp_path_factory.mktemp("outside") / "secret.yaml"
    secret.write_text("password: hunter2\n")
    golden = tmp_path / "v3.28.2" / "common"
    golden.mkdir(parents=True)
    (golden / "000-crds.yaml").symlink_to(secret)
    with pytest.raises(InputError) as err:
        read_golden(tmp_path / "v3.28.2")
    assert "hunter2" not in str(err.value) and str(secret) in err.value.message
