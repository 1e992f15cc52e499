"""Go's fmt as ``printf``/``print`` in a template print it. Expected values are Go 1.24's
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


@pytest.mark.parametrize(
    ("fmt", "args", "out"),
    [
        ("%x %X %b", [1.5, 2.5, 3.0], "0x1.8p+00 0X1.4P+01 6755399441055744p-51"),
        ("%x|%x|%x|%b|%b", [0.0, -0.0, 1e-310, 0.0, 1e-310],
         "0x0p+00|-0x0p+00|0x1.2688b70e62bp-1030|0p-1074|20240225330731p-1074"),
        # rounding to a precision, carrying into the exponent
        ("%.0x|%.1x|%.2x|%.15x", [1.96875, 1.96875, 1.03125, 1.1],
         "0x1p+01|0x1.0p+01|0x1.08p+00|0x1.199999999999a00p+00"),
        # "#": a point always; for %g and %x the zeros up to the precision (Go counts the
        # x of 0x as a digit, and so does the engine)
        ("%#g|%#e|%#.0f|%#.0e|%#.3g|%#g|%#v", [1.0, 1.0, 1.0, 1.0, 0.5, 100.0, 1.5],
         "1.00000|1.000000e+00|1.|1.e+00|0.500|100.000|1.5"),
        ("%#x|%#X|%#.0x|%#x|%#X", [1.5, 1.5, 1.5, 0.0, 0.0],
         "0x1.8000p+00|0X1.8P+00|0x1.p+01|0x0.0000p+00|0X0.P+00"),
        ("%+x|% x|%010x|%-12x|%#08.3x", [1.5, 1.5, 1.5, 1.5, -1.5],
         "+0x1.8p+00| 0x1.8p+00|00x1.8p+00|0x1.8p+00   |-0x1.800p+00"),
        ("%#12.4g|%#-12.4g|%#+g|%# g", [3.0, 3.0, 3.0, 3.0],
         "       3.000|3.000       |+3.00000| 3.00000"),
        # complex constants: each part a float, the imaginary one signed
        ("%v %.2f %x %T %d", [1j, 1.5 - 2j, 2j, 3j, 1j],
         "(0+1i) (1.50-2.00i) (0x0p+00+0x1p+01i) complex128 %!d(complex128=(0+1i))"),
        # %p of a value that is no pointer is a bad verb, as in Go
        ("%p|%p|%p", [1, "x", None], "%!p(int=1)|%!p(string=x)|%!p(<nil>)"),
    ],
)  # fmt: skip
def test_float_verbs_and_flags_print_as_go(fmt: str, args: list[Any], out: str) -> None:
    assert gofmt.sprintf(fmt, args) == out


def test_a_uint8_prints_as_an_int_but_in_hexadecimal_under_sharp_v() -> None:
    byte = gofmt.Byte(97)
    assert gofmt.sprintf("%T %v %#v %d %c %q", [byte] * 6) == "uint8 97 0x61 97 a 'a'"
