"""load: a YAML stream's documents, their first content lines and its errors, in one pass."""

from __future__ import annotations

import pytest

from renderer.errors import InputError
from renderer.k8s.load import load_documents, resolve_plain


def test_documents_come_with_their_first_content_line_and_empty_ones_as_none() -> None:
    text = "a: 1\n---\n\n# c\n---\nb: [1, {c: d}]\n...\n"
    assert load_documents(text, "f.yaml") == [
        (1, {"a": 1}),
        (5, None),
        (6, {"b": [1, {"c": "d"}]}),
    ]
    assert load_documents("", "f.yaml") == []
    assert load_documents("---\n", "f.yaml") == [(2, None)]


#: Scalars of every kind the resolver tells apart, plain and quoted, as values and keys.
SCALARS = [
    "abc", "Abc", "a1", "yes", "no", "on", "off", "y", "True", "true", "FALSE", "Null",
    "null", "~", "", "0", "017", "0o17", "0x1F", "-0x1", "1_000", "+1", "-1", "1.5",
    "1e3", "-.5", ".inf", "-.Inf", ".NaN", ".", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
    "12:30:00", "=", "1:2", "-", "+", "<x", "~x", "'1'", '"2"', "'true'", '"null"',
    "'~'", '"0o17"', "'=x'", "|\n  1\n", ">-\n  yes\n", "café", "t", "f", "n",
    "N", "T", "F", "10.0.0.1", "3.31.3", "2001-1-2 3:04:05", "2001-12-14 21:59:43.10",
    "20011-12-14", "2001_12-14", "\u0662001-12-14",
]  # fmt: skip


@pytest.mark.parametrize("scalar", SCALARS)
def test_every_scalar_is_ruamel_s_own_value(scalar: str) -> None:
    from renderer.k8s.libyaml import SAFE

    text = f"v: {scalar}\n"
    if "\n" not in scalar:  # in a flow sequence, and as a key
        text += f"l: [{scalar}]\n" + (f"{scalar}: k\n" if scalar else "")
    try:
        [expected] = SAFE.load_all(text)
    except Exception:  # what ruamel refuses is refused
        with pytest.raises(InputError):
            load_documents(text, "f.yaml")
        return
    [(_, doc)] = load_documents(text, "f.yaml")
    assert doc == expected
    assert [type(v) for v in doc.values()] == [type(v) for v in expected.values()]
    assert [type(k) for k in doc] == [type(k) for k in expected]


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


def test_built_documents_are_marked_json_like_only_when_they_are() -> None:
    from renderer.k8s.load import load_marked

    text = "a: 1\nb: [x, 2.5, true, null]\n---\n1: x\n---\nwhen: 2001-12-14\n---\n"
    marks = [(line, json_like) for line, _, json_like in load_marked(text, "f.yaml")]
    # an int key, a date value: converting changes them; an empty document is None
    assert marks == [(1, True), (4, False), (6, False), (8, True)]


def test_a_built_document_over_the_node_limit_is_refused_as_the_walk_refuses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The builder counts a plain document's values instead of walking it again; the
    limit and the error are the walk's (:func:`renderer.k8s.yamlio.check_expansion`)."""
    from renderer.k8s import load

    monkeypatch.setattr(load, "MAX_EXPANDED_NODES", 5)
    ok = "a: [1, 2, 3]\n---\n"  # 5 values: the root, the list, three items
    assert load.load_documents(ok + "b: 1\n", "f.yaml")[0] == (1, {"a": [1, 2, 3]})
    with pytest.raises(InputError, match="more than 5 nodes") as info:
        load.load_documents(ok + "c: [1, 2, 3, 4]\n", "f.yaml")
    assert info.value.file == "f.yaml"


@pytest.mark.parametrize("version", ["1.2", "1.1"])
def test_a_plain_scalar_gets_the_tag_ruamel_s_resolver_gives(version: str) -> None:
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    loader = VersionedResolver(version=tuple(int(p) for p in version.split(".")))
    plain = [s for s in SCALARS if s[:1] not in "'\"|>"]
    for value in [*plain, "1234-", "1234-5", "9999-99-99", "0000-00-00 00:00:00Z"]:
        assert resolve_plain(loader, value) == loader.resolve(ScalarNode, value, (True, False))
