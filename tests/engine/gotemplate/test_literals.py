"""Go literals in templates, read as Go's strconv reads them (values checked against
Go 1.24's ``strconv.ParseInt(s, 0, 64)``, ``ParseFloat`` and ``Unquote``)."""

from __future__ import annotations

import pytest

from renderer.engine.gotemplate import literals
from renderer.engine.gotemplate.literals import LiteralError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0x1F", 31),
        ("1_000", 1000),
        ("0b101", 5),
        ("0o17", 15),
        ("017", 15),  # a leading 0 is octal
        ("-0x10", -16),
        ("1__0", None),
        ("_1", None),
    ],
)
def test_integers_as_parse_int_base_0(text: str, value: int | None) -> None:
    assert literals.parse_go_int(text, signed=True) == value


@pytest.mark.parametrize(
    ("text", "value"), [("1e3", 1000.0), ("0x1p-2", 0.25), ("1_0.5", 10.5), (".", None)]
)
def test_floats_as_parse_float(text: str, value: float | None) -> None:
    assert literals.parse_go_float(text) == value


def test_strings_and_runes_unquote_as_go() -> None:
    assert literals.unquote('"a\\tb\\u00e9"') == "a\tbé"
    assert literals.unquote("`raw\\n`") == "raw\\n"  # a raw string keeps its backslash
    assert (literals.unquote_rune("'a'"), literals.unquote_rune("'\\n'")) == (97, 10)
    with pytest.raises(LiteralError):
        literals.unquote('"a')


def test_a_number_token_gets_gos_kind() -> None:
    assert literals.go_number("42", False, False).kind == "int"
    assert literals.go_number("1.5", False, False).kind == "float"
    assert literals.go_number("'a'", True, False).int_value == 97
    assert literals.go_number("1i", False, False).complex_value == 1j
    assert literals.go_number("1.5-2e1i", False, True).complex_value == complex(1.5, -20)
    assert literals.go_number("18446744073709551615", False, False).kind == "error"  # uint
    with pytest.raises(LiteralError):
        literals.go_number("99999999999999999999", False, False)  # overflows even uint64
