"""parse: a rendered text's objects as BKE's controller decodes them, kept once per text
(this process and the result cache), each use with its own containers."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.engine.compile import compile_source
from renderer.errors import InputError
from renderer.k8s import parse
from renderer.store.memo import clear_all


def _rows(objects: list[parse.K8sObject]) -> list[tuple[object, ...]]:
    return [(o.file, o.index, o.line, o.data, o.readings) for o in objects]


def test_a_text_is_parsed_once_and_objects_are_not_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text parsed before (this process, or the result cache) gives the same objects
    and readings, each use its own containers: a caller changing one changes no other."""
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    clear_all()
    text = "kind: A\na: 1\n---\nkind: ConfigMapList\nitems:\n- {x: yes}\n- {kind: B, x: 1.5}\n"
    first = parse.parse_stream(text, "one.yaml")
    first[0].data["a"] = 2
    again = parse.parse_stream(text, "two.yaml")
    yes = parse.Reading(6, ("items", 0, "x"), "yes", "true", '"yes"')
    assert [(o.file, o.index, o.line, o.data) for o in again] == [
        ("two.yaml", 0, 1, {"kind": "A", "a": 1}),
        ("two.yaml", 1, 4, {"x": True, "kind": "ConfigMap", "apiVersion": ""}),
        ("two.yaml", 2, 4, {"kind": "B", "x": 1.5}),
    ]
    assert [o.readings for o in again] == [(), (yes,), ()]
    assert list((tmp_path / "parse").rglob("*.json"))  # kept for the next process
    clear_all()  # a new process: from the result cache
    assert _rows(parse.parse_stream(text, "two.yaml")) == _rows(again)


@pytest.mark.parametrize(
    "text",
    [
        "kind: A\na: {b: [1]}\n---\nkind: A\na: {b: [1]}\n",  # one document twice
        "kind: A\nd: &x {e: [1]}\nf: *x\n",  # an alias: one object in two places
        "kind: A\nd: &x {e: 1}\nm:\n  <<: *x\n",  # a merge
    ],
)
def test_no_object_of_a_fresh_parse_is_shared(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects come back as new containers each time, whether parsed just now, read from
    the memo or repeated in the text: a caller changing one changes no other."""
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    clear_all()
    first = parse.parse_stream(text, "one.yaml")
    second = parse.parse_stream(text, "two.yaml")
    seen: set[int] = set()
    for objects in (first, second):
        stack: list[object] = [o.data for o in objects]
        while stack:
            node = stack.pop()
            if isinstance(node, dict | list):
                assert id(node) not in seen
                seen.add(id(node))
                stack.extend(node.values() if isinstance(node, dict) else node)
    assert [o.data for o in first] == [o.data for o in second]


def test_corrupt_parse_entry_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    clear_all()
    text = "kind: A\nv: on\n"
    expected = parse.parse_stream(text, "a.yaml")
    [entry] = list((tmp_path / "parse").rglob("*.json"))
    head = entry.read_bytes().split(b"\n", 1)[0]
    for forged in (
        b"[",
        b'[[1, {"kind": "B"}]]',
        head + b'\n[[1, {"kind": "B"}]]',
        head + b'\n[[1, {"kind": "A", "v": true}, [[2, ["v"], "on", "true"]]]]',
    ):
        entry.write_bytes(forged)
        clear_all()
        assert _rows(parse.parse_stream(text, "a.yaml")) == _rows(expected)


def test_invalid_yaml_is_never_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    for text in ("kind: A\na: [\n", "# a comment\n---\nkind: A\n", "kind: A\nv: .nan\n"):
        for _ in range(2):
            with pytest.raises(InputError):
                parse.parse_stream(text, "bad.yaml")
    assert not list(tmp_path.rglob("*.json"))


def test_objects_are_the_controllers_reading() -> None:
    """YAML 1.1 scalars, a key given twice keeping its last value, a ``kind: List``
    applied as it is (the controller unwraps only its six list kinds)."""
    text = (
        "kind: A\nv: [yes, 010, 0b11, 1_000, 1e3, 08, '010']\nk: 1\nk: 2\n"
        "---\nkind: List\nitems:\n- kind: B\n"
    )
    a, listed = parse.parse_stream(text, "f.yaml")
    assert a.data == {"kind": "A", "v": [True, 8, 3, 1000, 1000, 8, "010"], "k": 2}
    assert listed.data == {"kind": "List", "items": [{"kind": "B"}]}


def test_errors_name_the_template_line() -> None:
    """Where the controller fails, the error names the template line (the rendered
    line as context): here a first document of comments only."""
    template = "{{/* a header */}}\n# {{ .x }}\n---\nkind: A\n"
    compiled = compile_source(template, "t.yaml", "go")
    text, lines = compiled.render_mapped({"x": "y"})
    with pytest.raises(InputError) as caught:
        parse.parse_stream(text, "t.yaml", lines=lines)
    assert caught.value.line == 1
    assert "empty document" in caught.value.message
    assert "rendered line 1" in caught.value.message


def test_readings_carry_their_template_line() -> None:
    template = "kind: A\nmetadata:\n  labels:\n{{- range .labels }}\n    {{ . }}: on\n{{- end }}\n"
    compiled = compile_source(template, "t.yaml", "go")
    text, lines = compiled.render_mapped({"labels": ["a", "b"]})
    [obj] = parse.parse_stream(text, "t.yaml", lines=lines)
    assert obj.data["metadata"] == {"labels": {"a": True, "b": True}}
    assert [(r.path, r.line, r.source_line) for r in obj.readings] == [
        (("metadata", "labels", "a"), 4, 5),
        (("metadata", "labels", "b"), 5, 5),
    ]
