"""Go's fmt as ``printf``/``print`` in a template print it. Expected values are Go 1.19's
(``fmt.Sprintf`` and friends); the parity tests run the same against Go itself."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.engine.gotemplate import gofmt


@pytest.mark.parametrize(
    ("fmt", "args", "out"),
    [
        ("%d|%5s|%-4s|%q", [42, "ab", "x", "hi"], '42|   ab|x   |"hi"'),
        ("%x|%05.1f", [255, 3.14159], "ff|003.1"),
        ("%v %v %v %v", [True, None, 0.1, 1e21], "true <nil> 0.1 1e+21"),
        ("%d", ["x"], "%!d(string=x)"),  # a wrong verb is printed, not raised
        ("%d %d", [1], "1 %!d(MISSING)"),
        ("%d", [1, 2], "1%!(EXTRA int=2)"),
    ],
)  # fmt: skip
def test_sprintf_prints_as_go(fmt: str, args: list[Any], out: str) -> None:
    assert gofmt.sprintf(fmt, args) == out


def test_sprint_spaces_operands_only_between_non_strings() -> None:
    assert gofmt.sprint([1, 2, "a", "b", 3]) == "1 2ab3"
    assert gofmt.sprintln(["a", 1]) == "a 1\n"


def test_quote_escapes_as_strconv() -> None:
    assert gofmt.quote('a\tb"é\x01') == '"a\\tb\\"é\\x01"'
    assert gofmt.quote("é", ascii_only=True) == '"\\u00e9"'
