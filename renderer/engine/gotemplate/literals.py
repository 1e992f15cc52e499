"""Go literal syntax: strconv.Unquote/UnquoteChar and the number rules of parse.newNumber.

Strings are built as bytes and decoded with ``surrogateescape`` so that ``"\\xff"``
(a lone byte, legal in Go strings) survives and is written back as the same byte.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from renderer.engine.gotemplate.lexer import go_quote

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1

_SIMPLE = {
    "a": 7,
    "b": 8,
    "f": 12,
    "n": 10,
    "r": 13,
    "t": 9,
    "v": 11,
    "\\": 92,
}


class LiteralError(ValueError):
    """The literal is not valid Go syntax (strconv's ErrSyntax)."""


def decode_bytes(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def unquote_char(s: str, i: int, quote: str) -> tuple[int, bool, int]:
    """strconv.UnquoteChar on ``s[i:]``: (value, is_rune, next index).

    ``is_rune`` is false for ``\\x``/octal escapes, which denote single bytes in strings.
    """
    if i >= len(s):
        raise LiteralError("invalid syntax")
    c = s[i]
    if c == quote and quote in "'\"":
        raise LiteralError("invalid syntax")
    if c != "\\":
        return ord(c), True, i + 1
    if i + 1 >= len(s):
        raise LiteralError("invalid syntax")
    c = s[i + 1]
    i += 2
    if c in _SIMPLE:
        return _SIMPLE[c], True, i
    if c in "xuU":
        n = {"x": 2, "u": 4, "U": 8}[c]
        digits = s[i : i + n]
        if len(digits) < n or not all(d in "0123456789abcdefABCDEF" for d in digits):
            raise LiteralError("invalid syntax")
        v = int(digits, 16)
        if c == "x":
            return v, False, i + n
        if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
            raise LiteralError("invalid syntax")
        return v, True, i + n
    if c in "01234567":
        digits = s[i : i + 2]
        if len(digits) < 2 or not all(d in "01234567" for d in digits):
            raise LiteralError("invalid syntax")
        v = int(c + digits, 8)
        if v > 255:
            raise LiteralError("invalid syntax")
        return v, False, i + 2
    if c in "'\"":
        if c != quote:
            raise LiteralError("invalid syntax")
        return ord(c), True, i
    raise LiteralError("invalid syntax")


def unquote(text: str) -> str:
    """strconv.Unquote for a double-quoted or back-quoted Go string literal."""
    if len(text) < 2 or text[0] != text[-1]:
        raise LiteralError("invalid syntax")
    quote = text[0]
    body = text[1:-1]
    if quote == "`":
        if "`" in body:
            raise LiteralError("invalid syntax")
        return body.replace("\r", "")
    if quote != '"':
        raise LiteralError("invalid syntax")
    if "\\" not in body and "\n" not in body:
        if '"' in body:
            raise LiteralError("invalid syntax")
        return body
    out = bytearray()
    i = 0
    while i < len(body):
        if body[i] == "\n":
            raise LiteralError("invalid syntax")
        value, is_rune, i = unquote_char(body, i, '"')
        if is_rune:
            out += chr(value).encode("utf-8", "surrogateescape")
        else:
            out.append(value)
    return decode_bytes(bytes(out))


def unquote_rune(text: str) -> int:
    """A character constant like ``'a'`` or ``'\\n'``: its code point."""
    value, _, end = unquote_char(text, 1, "'")
    if text[end:] != "'":
        raise LiteralError(f"malformed character constant: {text}")
    return value


def _underscore_ok(s: str) -> bool:
    """strconv.underscoreOK: underscores only between digits (or after a base prefix)."""
    saw = "^"
    i = 0
    if s[:1] in ("-", "+"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i = 2
        saw = "0"
        hexa = s[1].lower() == "x"
    while i < len(s):
        ch = s[i]
        if "0" <= ch <= "9" or (hexa and "a" <= ch.lower() <= "f"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
        i += 1
    return saw != "_"


def parse_go_int(text: str, signed: bool) -> int | None:
    """strconv.ParseInt/ParseUint with base 0 and 64 bits; None when Go fails."""
    s = text
    neg = False
    if s[:1] in ("+", "-"):
        if not signed:
            return None
        neg = s[0] == "-"
        s = s[1:]
    if not s:
        return None
    base = 10
    digits = s
    if s[0] == "0":
        if len(s) >= 3 and s[1] in "xX":
            base, digits = 16, s[2:]
        elif len(s) >= 3 and s[1] in "oO":
            base, digits = 8, s[2:]
        elif len(s) >= 3 and s[1] in "bB":
            base, digits = 2, s[2:]
        else:
            base, digits = 8, s[1:] or "0"
    allowed = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}[base]
    plain = digits.replace("_", "")
    if not plain or not all(ch in allowed for ch in plain):
        return None
    if "_" in digits and not _underscore_ok(text):
        return None
    value = int(plain, base)
    if neg:
        value = -value
    if signed:
        return value if INT64_MIN <= value <= INT64_MAX else None
    return value if value <= UINT64_MAX else None


_DEC_FLOAT = re.compile(r"[+-]?(?=[0-9_]*\.?[0-9])[0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9][0-9_]*)?")
_HEX_FLOAT = re.compile(
    r"[+-]?0[xX](?=[0-9a-fA-F_]*\.?[0-9a-fA-F])[0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?[pP][+-]?[0-9][0-9_]*"
)


def parse_go_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64) for decimal and hexadecimal forms; None on failure."""
    if _HEX_FLOAT.fullmatch(text):
        if "_" in text and not _underscore_ok(text):
            return None
        body = text.replace("_", "")
        try:
            value = float.fromhex(body)
        except (ValueError, OverflowError):
            return None
    elif _DEC_FLOAT.fullmatch(text):
        if "_" in text and not _underscore_ok(text):
            return None
        try:
            value = float(text.replace("_", ""))
        except ValueError:
            return None
    else:
        return None
    if math.isinf(value):
        return None
    return value


class GoNumber(NamedTuple):
    """What parse.newNumber and exec's idealConstant make of a numeric literal (a named
    tuple: cheaper to define than a frozen dataclass, and the engine loads with every
    cold render)."""

    kind: str  # "int", "float", "complex" or "error"
    int_value: int | None
    float_value: float | None
    error: str = ""
    complex_value: complex = 0j


class _Scan:
    """fmt's scanner over ``text``: accept one character of a set, as ``ss.accept``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def accept(self, chars: str) -> bool:
        if self.pos < len(self.text) and self.text[self.pos] in chars:
            self.pos += 1
            return True
        return False

    def float_token(self) -> str:
        """fmt's floatToken: NaN, a sign, Inf, digits (hexadecimal after 0x) with
        underscores, a fraction and an exponent (p after 0x); what it reads of a
        failed NaN or Inf stays read, as in fmt."""
        start = self.pos
        if self.accept("nN") and self.accept("aA") and self.accept("nN"):
            return self.text[start : self.pos]
        self.accept("+-")
        if self.accept("iI") and self.accept("nN") and self.accept("fF"):
            return self.text[start : self.pos]
        digits, exp = "0123456789_", "eEpP"
        if self.accept("0") and self.accept("xX"):
            digits, exp = "0123456789aAbBcCdDeEfF_", "pP"
        while self.accept(digits):
            pass
        if self.accept("."):
            while self.accept(digits):
                pass
        if self.accept(exp):
            self.accept("+-")
            while self.accept("0123456789_"):
                pass
        return self.text[start : self.pos]


def _scan_float(token: str) -> float:
    """fmt's convertFloat of a float token (with ParseFloat's errors)."""
    value = parse_go_float(token)
    if value is not None:
        return value
    try:
        huge = float(token.replace("_", "")) if "x" not in token.lower() else None
    except ValueError:
        huge = None
    reason = "value out of range" if huge is not None and math.isinf(huge) else "invalid syntax"
    raise LiteralError(f"strconv.ParseFloat: parsing {go_quote(token)}: {reason}")


def scan_complex(text: str) -> complex:
    """fmt.Sscan of a complex constant such as ``1+2i`` (the lexer's itemComplex)."""
    scan = _Scan(text)
    real = scan.float_token()
    sign_at = scan.pos
    if not scan.accept("+-"):
        raise LiteralError("syntax error scanning complex number")
    imag = text[sign_at : scan.pos] + scan.float_token()
    if not scan.accept("i"):
        raise LiteralError("syntax error scanning complex number")
    return complex(_scan_float(real), _scan_float(imag))


def go_number(text: str, is_char: bool, is_complex: bool) -> GoNumber:
    """Classify a number token; raises LiteralError where Go's parser rejects it."""
    if is_char:
        value = unquote_rune(text)
        return GoNumber("int", value, float(value))
    if is_complex:
        return GoNumber("complex", None, None, "", scan_complex(text))
    if text.endswith("i"):
        imag = parse_go_float(text[:-1])
        if imag is not None:
            return GoNumber("complex", None, None, "", complex(0, imag))
    as_uint = parse_go_int(text, signed=False)
    as_int = parse_go_int(text, signed=True)
    is_int = as_int is not None
    is_uint = as_uint is not None
    is_float = False
    fval: float | None = None
    if is_int:
        is_float, fval = True, float(as_int)  # type: ignore[arg-type]
    elif is_uint:
        is_float, fval = True, float(as_uint)  # type: ignore[arg-type]
    else:
        f = parse_go_float(text)
        if f is not None:
            if not any(ch in text for ch in ".eEpP"):
                raise LiteralError(f'integer overflow: "{text}"')
            is_float, fval = True, f
            if f == int(f) and INT64_MIN <= int(f) <= INT64_MAX:
                is_int, as_int = True, int(f)
            if f == int(f) and 0 <= int(f) <= UINT64_MAX:
                is_uint = True
    if not (is_int or is_uint or is_float):
        raise LiteralError(f'illegal number syntax: "{text}"')
    is_hex_int = (
        len(text) > 2 and text[0] == "0" and text[1] in "xX" and not any(c in text for c in "pP")
    )
    if is_float and not is_hex_int and any(ch in text for ch in ".eEpP"):
        return GoNumber("float", as_int, fval)
    if is_int:
        return GoNumber("int", as_int, fval)
    return GoNumber("error", None, fval, f"{text} overflows int")
