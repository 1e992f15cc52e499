"""load: a YAML stream's documents, their first content lines and its errors, in one pass."""

from __future__ import annotations

import pytest

from renderer.errors import InputError
from renderer.k8s.load import load_documents


def test_documents_come_with_their_first_content_line_and_empty_ones_as_none() -> None:
    text = "a: 1\n---\n\n# c\n---\nb: [1, {c: d}]\n...\n"
    assert load_documents(text, "f.yaml") == [
        (1, {"a": 1}),
        (5, None),
        (6, {"b": [1, {"c": "d"}]}),
    ]
    assert load_documents("", "f.yaml") == []
    assert load_documents("---\n", "f.yaml") == [(2, None)]


def test_values_resolve_as_yaml_1_2_and_aliases_share_their_anchor() -> None:
    text = "a: yes\nb: 0o17\nc: ~\nd: &x {e: 1}\nf: *x\n"
    [(line, doc)] = load_documents(text, "f.yaml")
    assert line == 1
    assert doc == {"a": "yes", "b": 15, "c": None, "d": {"e": 1}, "f": {"e": 1}}
    assert doc["d"] is doc["f"]


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("a: 1\nb: [\n", 3, 1),  # a syntax error
        ("a: 1\na: 2\n", 2, 1),  # a duplicate key
        ("a: 1\n---\nb: *undefined\n", 3, 4),  # an undefined alias in the second document
        ("a: &x 1\nb: &x 2\n", 2, 4),  # a duplicate anchor, at its second occurrence
        ("a: 1\n---\nb: *undefined\n---\n[unclosed\n", 6, 1),  # the syntax error wins
    ],
)
def test_errors_name_the_file_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(InputError) as info:
        load_documents(text, "bad.yaml")
    assert (info.value.file, info.value.line, info.value.column) == ("bad.yaml", line, column)


def test_depth_bound_comes_before_composing() -> None:
    with pytest.raises(InputError, match="nests deeper") as info:
        load_documents("a: 1\n---\n" + "[" * 100_000, "deep.yaml")
    assert info.value.line == 3
