"""decode: a rendered stream as BKE's controller decodes it (the Go oracle is
tests/k8s/test_decode_parity.py; these say what it decides, with lines and readings)."""

from __future__ import annotations

import math

import pytest

from renderer.errors import InputError
from renderer.k8s.decode import (
    core_reading,
    decode_stream,
    format_float32,
    json_number,
    key_text,
    resolve,
)
from renderer.k8s.parse import Reading


def data(text: str) -> list[dict[str, object]]:
    return [d.data for d in decode_stream(text, "f.yaml")]


def fails(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        decode_stream(text, "f.yaml")
    assert caught.value.file == "f.yaml"
    return caught.value


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("yes", True),
        ("Yes", True),
        ("y", True),
        ("Y", True),
        ("on", True),
        ("ON", True),
        ("no", False),
        ("n", False),
        ("off", False),
        ("oFF", "oFF"),  # not a word of YAML 1.1's table
        ("true", True),
        ("~", None),
        ("010", 8),  # octal
        ("08", 8),  # not octal: a float, written back as the integer
        ("0o17", 15),
        ("0x1F", 31),
        ("0b101", 5),
        ("0b-101", -5),  # go-yaml's own binary branch
        ("1_000", 1000),
        ("+1", 1),
        ("1e3", 1000),  # a float whose JSON is an integer
        ("0.5", 0.5),
        (".5", 0.5),
        ("1.", 1),
        ("1e400", "1e400"),  # beyond float64: a string, as go-yaml leaves it
        ("1:20", "1:20"),  # no sexagesimal numbers
        ("2001-12-14", "2001-12-14"),  # a timestamp decodes to its text
        ("12345678901234567890", 12345678901234567890.0),  # uint64, a float in JSON
        ("1152921504606846976.0", 1152921504606847000),  # the float's shortest digits
        ("<<", "<<"),
    ],
)
def test_plain_scalars_are_yaml_1_1_as_go_yaml_reads_them(scalar: str, value: object) -> None:
    [doc] = data(f"kind: A\nv: {scalar}\n")
    assert doc["v"] == value and type(doc["v"]) is type(value)


@pytest.mark.parametrize("scalar", ["'yes'", '"010"', "|\n  on\n", "!!str yes", "! 010"])
def test_quoted_block_and_string_tagged_scalars_are_strings(scalar: str) -> None:
    [doc] = data(f"kind: A\nv: {scalar}")
    assert isinstance(doc["v"], str)


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("yes", "true"),
        ("n", "false"),
        ("010", "8"),
        ("1.5", "1.5"),
        ("1e6", "1e+06"),  # a float key prints as a 32-bit float
        ("0.1", "0.1"),
        ("123456.7", "123456.7"),
        ("1234567.8", "1.2345678e+06"),
        (".inf", ".inf"),
        ("3.4e39", ".inf"),  # beyond float32
        ("-0.0", "-0"),
    ],
)
def test_keys_become_the_strings_sigs_k8s_yaml_makes(key: str, text: str) -> None:
    [doc] = data(f"kind: A\n{key}: v\n")
    assert doc == {"kind": "A", text: "v"}


def test_format_float32_rounds_a_tie_to_an_even_digit() -> None:
    assert format_float32(-518449.377) == "-518449.38"
    assert format_float32(16777217.0) == "1.6777216e+07"
    assert format_float32(1e-5) == "1e-05" and format_float32(0.0001) == "0.0001"


def test_json_numbers_are_what_the_cluster_reads_back() -> None:
    assert json_number(1e3) == 1000 and type(json_number(1e3)) is int
    assert json_number(2.0**63) == 2.0**63 and type(json_number(2.0**63)) is float
    assert json_number(1e21) == 1e21 and type(json_number(1e21)) is float
    assert json_number(0.5) == 0.5


@pytest.mark.parametrize(
    ("tag", "text", "expected"),
    [
        ("tag:yaml.org,2002:int", "10", ("tag:yaml.org,2002:int", 10)),
        ("tag:yaml.org,2002:float", "1", ("tag:yaml.org,2002:float", 1.0)),
        ("tag:yaml.org,2002:bool", "on", ("tag:yaml.org,2002:bool", True)),
        ("!custom", "x", ("!custom", "x")),
    ],
)
def test_explicit_tags_resolve_as_go_yaml_resolves_them(
    tag: str, text: str, expected: tuple[str, object]
) -> None:
    assert resolve(tag, text) == expected


@pytest.mark.parametrize("text", ["!!int x", "!!bool 1", "!!null x", "!!float x", "!!binary '!'"])
def test_a_value_its_tag_refuses_fails_at_its_line(text: str) -> None:
    assert fails(f"kind: A\nv: {text}\n").line == 2


def test_the_stream_is_cut_at_lines_beginning_with_three_dashes() -> None:
    text = (
        "kind: A\n--- # a comment\nkind: B\n...\nignored: after the end marker\n---\nkind: C\n---\n"
    )
    assert [(d.line, d.data) for d in decode_stream(text, "f.yaml")] == [
        (1, {"kind": "A"}),
        (3, {"kind": "B"}),
        (7, {"kind": "C"}),
    ]
    assert decode_stream("", "f.yaml") == []


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("# a header\n---\nkind: A\n", 1),
        ("\n---\nkind: A\n", 1),
        ("---\n---\nkind: A\n", 1),
        ("kind: A\n---\n# a comment\n---\nkind: B\n", 3),
        ("kind: A\n---\nnull\n", 3),
        ("kind: A\n---\n\n", 3),
    ],
)
def test_a_document_without_content_fails(text: str, line: int) -> None:
    error = fails(text)
    assert error.line == line and "empty document" in error.message


@pytest.mark.parametrize("separator", ["--- x", "---x", "----", "--- |", "--- {}"])
def test_a_separator_line_with_more_than_a_comment_fails(separator: str) -> None:
    error = fails(f"kind: A\n{separator}\nkind: B\n")
    assert error.line == 2 and "document separator" in error.message


def test_keys_given_twice_and_merges_go_in_document_order() -> None:
    text = (
        "kind: A\nv: 1\nv: 2\nbase: &b {x: 1, z: 1}\n"
        "m:\n  x: 0\n  <<: *b\n  z: 2\n"
        "s:\n  <<: [{x: 1}, {x: 2, w: 2}]\n"
    )
    [doc] = data(text)
    assert doc["v"] == 2
    assert doc["m"] == {"x": 1, "z": 2}  # merged over the key before it, under the one after
    assert doc["s"] == {"x": 1, "w": 2}  # the first mapping of a sequence wins


def test_anchors_may_be_redefined_and_aliases_are_copies() -> None:
    [doc] = data("kind: A\na: &x [1]\nb: *x\nc: &x 2\nd: *x\n")
    assert doc == {"kind": "A", "a": [1], "b": [1], "c": 2, "d": 2}
    assert doc["a"] is not doc["b"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("kind: A\nv: *nope\n", "unknown anchor"),
        ("kind: A\nv: &x [*x]\n", "contains itself"),
        ("kind: A\nm:\n  <<: [1]\n", "map merge requires"),
        ("kind: A\n[a]: b\n", "mapping key"),
        ("kind: A\n~: b\n", "null mapping key"),
        ("kind: A\n18446744073709551615: b\n", "beyond int64"),
        ("kind: A\nv: .nan\n", ".nan and .inf"),
        ("kind: A\n1: a\n'1': b\n", "appears twice"),
    ],
)
def test_what_the_controller_fails_on_is_an_error(text: str, says: str) -> None:
    assert says in fails(text).message


def test_keys_equal_once_strings_with_one_value_are_kept() -> None:
    assert data("kind: A\n1: a\n'1': a\n") == [{"kind": "A", "1": "a"}]


@pytest.mark.parametrize(
    ("text", "says", "key"),
    [
        ("- a\n", "is a sequence", None),
        ("text\n", "is a string", None),
        ("apiVersion: v1\n", "has no kind", "kind"),
        ("kind: 7\n", "has no kind", "kind"),
        ("kind: A\nitems: {}\n", "items is not a list", "items"),
        ("kind: A\nitems: [1]\n", "items[0] is not an object", "items[0]"),
    ],
)
def test_a_document_that_is_not_an_object_fails(text: str, says: str, key: str | None) -> None:
    error = fails(text)
    assert says in error.message and error.key == key


def test_six_list_kinds_stand_for_their_items_and_items_take_the_list_kind() -> None:
    text = (
        "kind: ConfigMapList\napiVersion: v1\nitems:\n- metadata: {name: a}\n- kind: Secret\n"
        "---\nkind: List\napiVersion: v1\nitems:\n- kind: ConfigMap\n"
        "---\nkind: SecretList\n"
    )
    assert data(text) == [
        {"metadata": {"name": "a"}, "kind": "ConfigMap", "apiVersion": "v1"},
        {"kind": "Secret"},
        {"kind": "List", "apiVersion": "v1", "items": [{"kind": "ConfigMap"}]},
    ]


def test_a_stream_beginning_with_a_brace_is_json() -> None:
    assert data('{"kind": "A", "v": 1.0}\n{"kind": "B"}') == [{"kind": "A", "v": 1}, {"kind": "B"}]
    assert "invalid JSON" in fails('{"kind": "A"}\n---\n').message
    assert "invalid JSON" in fails('{"kind": "A", "v": NaN}').message


def test_lines_are_counted_in_the_stream_and_crlf_is_a_line_break() -> None:
    text = "kind: A\r\n---\r\n# c\r\nkind: B\r\nv: [\r\n"
    assert fails(text).line == 6


def test_nesting_is_bounded() -> None:
    assert "nests deeper" in fails("kind: A\nv: " + "[" * 200 + "]" * 200 + "\n").message


def test_readings_name_each_scalar_yaml_1_2_reads_otherwise() -> None:
    text = (
        "kind: A\nmetadata:\n  labels:\n    enabled: yes\n    on: x\n"
        "v: [010, 0b1, 1_0, 1e999, 'yes', true, 10, 0x1F, 1e3, '']\n"
    )
    [doc] = decode_stream(text, "f.yaml")
    assert doc.readings == (
        Reading(4, ("metadata", "labels", "enabled"), "yes", "true", '"yes"'),
        Reading(5, ("metadata", "labels", "true"), "on", '"true"', '"on"', key=True),
        Reading(6, ("v", 0), "010", "8", "10"),
        Reading(6, ("v", 1), "0b1", "1", '"0b1"'),
        Reading(6, ("v", 2), "1_0", "10", '"1_0"'),
        Reading(6, ("v", 3), "1e999", '"1e999"', ".inf"),
    )


def test_a_reading_is_noted_each_time_its_scalar_occurs() -> None:
    [doc] = decode_stream("kind: A\na: y\nb: y\n", "f.yaml")
    assert [(r.line, r.path) for r in doc.readings] == [(2, ("a",)), (3, ("b",))]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("False", False),
        ("~", None),
        ("010", 10),
        ("0o17", 15),
        ("0x1F", 31),
        ("1e3", 1000.0),
        ("yes", "yes"),
        ("0b1", "0b1"),
        ("1_0", "1_0"),
    ],
)
def test_the_yaml_1_2_reading_is_the_core_schema(text: str, value: object) -> None:
    assert core_reading(text) == value and type(core_reading(text)) is type(value)
    assert math.isinf(core_reading(".inf")) and math.isnan(core_reading(".nan"))


def test_key_text_refuses_what_json_has_no_key_for() -> None:
    assert key_text(True) == "true" and key_text(8) == "8"
    with pytest.raises(ValueError, match="null"):
        key_text(None)
