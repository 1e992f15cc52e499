"""Bounded YAML input: bad files fail fast with a location, never a traceback."""

from __future__ import annotations

import gc
import io
import random
import re
from pathlib import Path
from typing import Any

import pytest

from renderer.errors import InputError
from renderer.k8s import yamlio
from renderer.k8s.libyaml import SAFE
from renderer.k8s.parse import parse_stream
from renderer.k8s.yamlio import load_mapping_file

BOMB = """
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
"""


def test_alias_bomb_rejected_fast(tmp_path: Path) -> None:
    f = tmp_path / "bomb.yaml"
    f.write_text(BOMB)
    with pytest.raises(InputError) as err:  # bounded by a node budget, not by time
        load_mapping_file(f)
    assert "alias" in str(err.value)


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("a: 1\nb: [1, 2\nc: 3\n")
    with pytest.raises(InputError) as err:
        load_mapping_file(f)
    assert err.value.file == str(f) and err.value.line is not None and err.value.line >= 2


def test_objects_remember_their_line() -> None:
    text = "---\n# head\nkind: A\nmetadata: {name: a, namespace: ns}\n---\n\nkind: B\n"
    objs = parse_stream(text, "f.yaml")
    assert [(o.kind, o.line, o.index) for o in objs] == [("A", 3, 0), ("B", 7, 1)]
    assert objs[0].ref == "A ns/a"


def test_error_line_is_absolute_in_stream() -> None:
    text = "kind: A\n---\nkind: B\nx: [\n"
    with pytest.raises(InputError) as err:
        parse_stream(text, "f.yaml")
    assert err.value.line is not None and err.value.line >= 4


def test_scalar_document_is_not_an_object() -> None:
    with pytest.raises(InputError) as err:
        parse_stream("just text\n", "f.yaml")
    assert (err.value.file, err.value.line) == ("f.yaml", 1)
    assert re.search(r"\bstring\b", err.value.message)  # names what the document is instead


LOCATE_TEXT = """\
a: 1
---
kind: X
spec:
  items:
    - name: one
    - name: two
      role: [master]
"""


@pytest.mark.parametrize(
    ("doc", "path", "line"),
    [
        (0, [], 1),
        (0, ["a"], 1),
        (1, ["kind"], 3),
        (1, ["spec", "items"], 5),
        (1, ["spec", "items", 1], 7),
        (1, ["spec", "items", 1, "role"], 8),
        (1, ["spec", "items", 1, "missing"], 7),
        (1, ["spec", "items", 9], 5),
        (1, ["kind", "deeper"], 3),
    ],
)
def test_locate_names_the_deepest_existing_key(doc: int, path: list[str | int], line: int) -> None:
    assert yamlio.locate(LOCATE_TEXT, doc, path) == line


def test_locate_on_invalid_yaml_or_missing_document_is_none() -> None:
    assert yamlio.locate("a: [unclosed\n", 0, ["a"]) is None
    assert yamlio.locate(LOCATE_TEXT, 5, []) is None
    assert yamlio.load_with_positions("a: [\n") is None


@pytest.mark.parametrize(
    "text",
    ["a: " + "[" * 30000 + "]" * 30000 + "\n", "".join(f"{'  ' * i}k{i}:\n" for i in range(300))],
)
def test_deep_nesting_is_bad_input_not_a_crash(tmp_path: Path, text: str) -> None:
    f = tmp_path / "deep.yaml"
    f.write_text(text)
    with pytest.raises(InputError) as err:
        load_mapping_file(f)
    assert "deeper than" in str(err.value) and err.value.file == str(f)


def test_deep_nesting_in_rendered_output_names_the_line() -> None:
    text = "kind: A\n---\nkind: B\nx: " + "[" * 200 + "]" * 200 + "\n"
    with pytest.raises(InputError) as err:
        parse_stream(text, "f.yaml")
    assert err.value.line == 4


def _values(tmp_path: Path, text: str, name: str = "values.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_values_parse_as_json(tmp_path: Path) -> None:
    text = '{"a": "\\ud83d\\ude00 \\u00e9 \\/ \\t", "b": [1, 2.5, true, null], "c": {"d": "e"}}'
    for name in ("values.json", "values.yaml"):  # by suffix, or content starting with {
        assert load_mapping_file(_values(tmp_path, text, name)) == {
            "a": "\U0001f600 é / \t",
            "b": [1, 2.5, True, None],
            "c": {"d": "e"},
        }


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"a": NaN}', "a"),
        ('{"x": {"a": -Infinity}}', "x.a"),
        ("a: .nan\n", "a"),
        ("b:\n  a: .inf\n", "b.a"),
        ("a: 2024-01-01\n", "a"),
        ("a:\n- 2024-01-01 10:00:00\n", "a.0"),
        ("a: !!binary aGk=\n", "a"),
    ],
)
def test_values_that_are_not_plain_data_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(InputError) as err:
        load_mapping_file(_values(tmp_path, text, "v.json" if text.startswith("{") else "v.yaml"))
    assert err.value.key == key
    assert "datetime" not in str(err.value) and "nan" not in str(err.value)


@pytest.mark.parametrize(
    "text", ['{"a": "x\ny"}', '{"a": 1,}', '{"a": 1, "a": 2}', "[" * 5000 + "]" * 5000]
)
def test_invalid_json_is_one_line_bad_input(tmp_path: Path, text: str) -> None:
    with pytest.raises(InputError) as err:
        load_mapping_file(_values(tmp_path, text, "v.json"))
    assert "\n" not in str(err.value)


def test_mixed_type_keys_are_refused_without_type_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        load_mapping_file(_values(tmp_path, "x: d\ntrue: a\nnull: b\n2: c\n"))
    assert err.value.key in ("true", "null", "2") and "\n" not in str(err.value)


def test_loading_restores_the_garbage_collector(tmp_path: Path) -> None:
    assert gc.isenabled()
    load_mapping_file(_values(tmp_path, "a: 1\n"))
    with pytest.raises(InputError):
        load_mapping_file(_values(tmp_path, "a: [\n"))
    assert gc.isenabled()


def test_a_lone_surrogate_escape_becomes_the_replacement_character(tmp_path: Path) -> None:
    """As Go's JSON and YAML decoders make it (the controller never sees one)."""
    path = tmp_path / "v.json"
    path.write_text('{"a": ["x\\ud800y"]}')
    assert yamlio.load_mapping_file(path) == {"a": ["x\ufffdy"]}


PLAIN_STREAMS = [
    "",
    "---\n",
    "---\n---\n",
    "a: 1\nb: [1, 2.5, .inf, -.nan, 0o17, 0x1f, 1_000, true, False, null, ~, '', \"x\"]\n",
    "a: |\n  x\n  y\nb: >-\n  z\n",
    "- - - 1\n",
    "{a: 1, b: {c: [d, {e: f}]}}\n",
    "x\n---\ny\n...\n---\n# c\nz: 1\n",
    "a: 1\n b\n",
    "yes: no\non: off\n",
    "1.5: 1\n'1': 2\n1: 3\n",
    "a: 12345678901234567890\n",
    "kind: BKENode\nmetadata:\n  name: n0\nspec:\n  role: [node]\n---\nkind: BKENode\n",
]
NOT_PLAIN_STREAMS = [
    "a: &x 1\nb: *x\n",
    "a: 1\na: 2\n",
    "true: 1\n1: 2\n",
    "<<: {a: 1}\n",
    "!!str 1\n",
    "a: !foo x\n",
    "? [1]\n: 2\n",
    "2001-12-14: x\n",
    "= : 1\n",
    "a: [\n",
    "a: " + "9" * 5000 + "\n",
    "[" * 200 + "]" * 200 + "\n",
]


def _full_load(text: str) -> Any:
    try:
        starts = yamlio.scan(text, "f")
        return list(zip(starts, SAFE.load_all(io.StringIO(text)), strict=True))
    except Exception as exc:  # the error is part of what is compared
        return type(exc)


@pytest.mark.parametrize("text", PLAIN_STREAMS)
def test_the_one_pass_builder_loads_what_ruamel_loads(text: str) -> None:
    built = yamlio._plain_load_all(text)
    assert built is not None
    assert repr(built) == repr(_full_load(text))  # repr: NaN equals itself there
    assert repr(yamlio.load_all_lines(text, "f")) == repr(built)


@pytest.mark.parametrize("text", NOT_PLAIN_STREAMS)
def test_the_one_pass_builder_leaves_the_rest_to_ruamel(text: str) -> None:
    assert yamlio._plain_load_all(text) is None
    try:
        loaded: Any = yamlio.load_all_lines(text, "f")
    except InputError as exc:  # errors are worded by the full load, with their line
        loaded = InputError
        assert exc.file == "f"
    expected = _full_load(text)
    assert loaded is InputError or repr(loaded) == repr(expected)


#: Lines that are, are nearly, or hide separators; and the line breaks ``splitlines``
#: knows besides ``\n`` (a text with one is split line by line).
_PIECES = ["---", "--- # c", "---\t x", "---x", "----", " ---", "a: 1", "", "  ", "# c",
           "--- ", "--- a: 1", "---\xa0", "b: |", "  ---", "\r", "x\ry", "\u2028", "\x0c",
           "---\r", "k: v\r", "--- #"]  # fmt: skip


def test_split_documents_in_one_search_is_the_split_line_by_line() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        lines = rng.choices(_PIECES, k=rng.randint(0, 9))
        text = "\n".join(lines) + rng.choice(["", "\n", "\n\n"])
        assert list(yamlio.split_documents(text)) == list(yamlio._split_by_line(text)), text


LOCATED_STREAMS = [
    *PLAIN_STREAMS,
    "a: 1\n---\nb:\n  c: [1, 2]\n  d:\n  - e: 1\n    f:\n      - x\n      -   y\n  - [q, {r: s}]\n",
    '{"a": {"b": [1, {"c": 2}]},\n "d": 3}\n',
    "list:\n- a\n-\n  b: 1\n- - 1\n  - 2\n",
    "? a\n: 1\n'b': |\n  x\n\"c\":\n  - 1\n",
    "a: &x {b: 1}\nc: *x\n",  # not plain: the round-trip loader answers
]
LOCATED_PATHS: list[list[str | int]] = [
    [],
    ["a"],
    ["a", "b", 1, "c"],
    ["b", "c", 1],
    ["b", "d", 0, "f", 1],
    ["b", "d", 1, 1, "r"],
    ["list", 1, "b"],
    ["list", 2, 1],
    ["c", 0],
    ["c", "b"],
    ["z"],
    [0],
    ["1"],
]


@pytest.mark.parametrize("text", LOCATED_STREAMS)
def test_lines_from_one_event_pass_are_the_round_trip_loaders(text: str) -> None:
    slow, fast = yamlio.load_with_positions(text), yamlio.positions(text)
    for index in range(len(slow or [None])):
        for path in LOCATED_PATHS:
            assert yamlio.locate_in(fast, index, path) == yamlio.locate_in(slow, index, path)
