"""Go's ``fmt`` printing (Sprint, Sprintln, Sprintf) for template values.

Values are the JSON-like data the templates see: str, bool, int, float, complex (a
complex constant of the template), None (a nil interface), list (``[]interface {}``) and
dict (``map[string]interface {}``), and the typed values of :mod:`renderer.engine.govalues`
(``map[string]string``, ``int32``). The code follows ``fmt/print.go``, ``fmt/format.go``
and ``strconv/ftoa.go`` so that output, padding and the ``%!verb(type=value)``
complaints match Go byte for byte, the float verbs ``%b``, ``%x``, ``%X`` and the ``#``
flag included. ``%p`` of a list or map (a memory address in Go) is refused with
:class:`FormatError` instead of being approximated.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from renderer.engine.gotemplate.lexer import is_go_print
from renderer.engine.govalues import Int32, StringMap

NIL_ANGLE = "<nil>"


class FormatError(Exception):
    """A printf verb this engine does not reproduce."""


class StringList(list[str]):
    """A Go ``[]string`` (what ``split`` returns), distinct from ``[]interface {}``."""


class Byte(int):
    """A Go ``uint8``: what ``index`` takes from a string. It prints, compares and ranges
    as an int does; only its type name and ``%#v`` (hexadecimal) tell."""

    __slots__ = ()


#: Go's dynamic type of each context value type, as ``%T`` prints it.
_GO_TYPES: dict[type, str] = {
    type(None): NIL_ANGLE,
    bool: "bool",
    int: "int",
    Int32: "int32",
    float: "float64",
    complex: "complex128",
    str: "string",
    StringList: "[]string",
    Byte: "uint8",
    list: "[]interface {}",
    dict: "map[string]interface {}",
    StringMap: "map[string]string",
}


def type_name(value: Any) -> str:
    """The Go dynamic type of a context value, as ``%T`` prints it."""
    kind = type(value)
    return _GO_TYPES.get(kind) or kind.__name__


# --- float formatting (strconv.FormatFloat) --------------------------------------------


def _shortest_digits(v: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of |v| and the decimal point position.

    Python's repr and Go's strconv both pick the shortest digit string that reads back
    as the same float, so the digits agree; only the layout differs.
    """
    if v == 0:
        return "0", 1
    from decimal import Decimal  # printing a float: rare in manifests, and decimal is big

    _, digit_tuple, exp = Decimal(repr(abs(v))).as_tuple()
    assert isinstance(exp, int)
    digits = "".join(str(d) for d in digit_tuple).lstrip("0")
    trimmed = digits.rstrip("0")
    exp += len(digits) - len(trimmed)
    return trimmed, len(trimmed) + exp


def _fmt_e(neg: bool, digits: str, dp: int, prec: int, echar: str) -> str:
    first = digits[0] if digits else "0"
    out = ("-" if neg else "") + first
    if prec > 0:
        frac = digits[1 : 1 + prec]
        out += "." + frac + "0" * (prec - len(frac))
    exp = dp - 1 if digits != "0" else 0
    sign = "+" if exp >= 0 else "-"
    exp = abs(exp)
    return out + echar + sign + (f"{exp:02d}")


def _fmt_f(neg: bool, digits: str, dp: int, prec: int) -> str:
    out = "-" if neg else ""
    if dp > 0:
        whole = digits[:dp]
        out += whole + "0" * (dp - len(whole))
    else:
        out += "0"
    if prec > 0:
        frac = ""
        for i in range(prec):
            j = dp + i
            frac += digits[j] if 0 <= j < len(digits) else "0"
        out += "." + frac
    return out


def _float_bits(v: float) -> tuple[bool, int, int]:
    """genericFtoa's split of a finite float64: sign, integer mantissa (the implicit bit
    set) and binary exponent of its lowest bit plus 52 (Go's ``exp``)."""
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    neg = bool(bits >> 63)
    exp = (bits >> 52) & 0x7FF
    mant = bits & ((1 << 52) - 1)
    if exp == 0:
        exp += 1
    else:
        mant |= 1 << 52
    return neg, mant, exp - 1023


def _format_b(v: float) -> str:
    """strconv's %b: the decimal mantissa times a power of two, ``-ddddp±ddd``."""
    neg, mant, exp = _float_bits(v)
    exp -= 52
    return ("-" if neg else "") + f"{mant}p" + ("+" if exp >= 0 else "") + str(exp)


_MASK64 = (1 << 64) - 1


def _format_x(v: float, prec: int, verb: str) -> str:
    """strconv's %x/%X: ``-0x1.yyyyp±dd`` (rounded to ``prec`` hex digits when
    0 <= prec < 15, shortest when prec < 0)."""
    neg, mant, exp = _float_bits(v)
    if mant == 0:
        exp = 0
    mant = (mant << 8) & _MASK64  # the leading bit at 1 << 60
    while mant != 0 and mant & (1 << 60) == 0:
        mant = (mant << 1) & _MASK64
        exp -= 1
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mant << shift) & ((1 << 60) - 1)
        mant >>= 60 - shift
        if extra | (mant & 1) > 1 << 59:
            mant += 1
        mant = (mant << (60 - shift)) & _MASK64
        if mant & (1 << 61):
            mant >>= 1
            exp += 1
    digits = "0123456789ABCDEF" if verb == "X" else "0123456789abcdef"
    out = ["-" if neg else "", "0", verb, "1" if (mant >> 60) & 1 else "0"]
    mant = (mant << 4) & _MASK64
    if (prec < 0 and mant != 0) or prec > 0:
        out.append(".")
        count = prec
        while (count < 0 and mant != 0) or count > 0:
            out.append(digits[(mant >> 60) & 15])
            mant = (mant << 4) & _MASK64
            count -= 1
    out.append("P" if verb == "X" else "p")
    out.append("-" if exp < 0 else "+")
    out.append(f"{abs(exp):02d}")
    return "".join(out)


def format_float(v: float, fmt: str, prec: int) -> str:
    """strconv.FormatFloat(v, fmt, prec, 64) for fmt in b, e, E, f, g, G, x, X."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if fmt == "b":
        return _format_b(v)
    if fmt in "xX":
        return _format_x(v, prec, fmt)
    neg = math.copysign(1.0, v) < 0
    if prec < 0:
        digits, dp = _shortest_digits(v)
        if fmt in "eE":
            return _fmt_e(neg, digits, dp, max(len(digits) - 1, 0), fmt)
        if fmt == "f":
            return _fmt_f(neg, digits, dp, max(len(digits) - dp, 0))
        # g / G, shortest: %e when exp < -4 or exp >= 6 (Go uses 6 for the decision)
        exp = dp - 1
        if exp < -4 or exp >= 6:
            return _fmt_e(neg, digits, dp, len(digits) - 1, "e" if fmt == "g" else "E")
        return _fmt_f(neg, digits, dp, max(len(digits) - dp, 0))
    if fmt in "eE":
        return format(v, f".{prec}{fmt}")
    if fmt == "f":
        return format(v, f".{prec}f")
    # %g with an explicit precision: Python's %g follows the same rule as strconv
    text = format(v, f".{prec if prec > 0 else 1}{'g' if fmt == 'g' else 'G'}")
    return text.replace("inf", "Inf").replace("nan", "NaN")


def _sharp_float(num: str, verb: str, prec: int) -> str:
    """The ``#`` flag on a float (fmtFloat): a decimal point always, and for %g, %G and
    %x the trailing zeros up to ``prec`` significant digits (6 when shortest). ``num``
    carries its sign. Go counts every character that is not ``0`` as a digit here, the
    ``x`` of ``0x`` included, and so does this."""
    digits = (6 if prec == -1 else prec) if verb in "gGx" else 0
    tail = ""
    body = [num[0]]
    has_point = False
    nonzero = False
    for i in range(1, len(num)):
        ch = num[i]
        if ch == ".":
            has_point = True
        elif ch in "pP" or (ch in "eE" and verb not in "xX"):
            tail = num[i:]
            break
        else:
            if ch != "0":
                nonzero = True
            if nonzero:
                digits -= 1
        body.append(ch)
    if not has_point:
        if len(body) == 2 and body[1] == "0":
            digits -= 1
        body.append(".")
    if digits > 0:
        body.append("0" * digits)
    return "".join(body) + tail


# --- quoting (strconv.Quote and friends) -------------------------------------------------

_ESC = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def _quote_rune_into(out: list[str], ch: str, quote: str, ascii_only: bool) -> None:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a lone byte kept by surrogateescape
        out.append(f"\\x{code - 0xDC00:02x}")
        return
    if ch == quote or ch == "\\":
        out.append("\\" + ch)
        return
    if ascii_only:
        if code < 0x80 and is_go_print(ch):
            out.append(ch)
            return
    elif is_go_print(ch):
        out.append(ch)
        return
    if code in _ESC:
        out.append(_ESC[code])
    elif code < 0x20 or code == 0x7F:
        out.append(f"\\x{code:02x}")
    elif 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        out.append("\\ufffd")
    elif code < 0x10000:
        out.append(f"\\u{code:04x}")
    else:
        out.append(f"\\U{code:08x}")


def quote(s: str, ascii_only: bool = False) -> str:
    out = ['"']
    for ch in s:
        _quote_rune_into(out, ch, '"', ascii_only)
    out.append('"')
    return "".join(out)


def quote_rune(code: int, ascii_only: bool = False) -> str:
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code < 0:
        code = 0xFFFD
    out = ["'"]
    _quote_rune_into(out, chr(code), "'", ascii_only)
    out.append("'")
    return "".join(out)


def can_backquote(s: str) -> bool:
    for ch in s:
        code = ord(ch)
        if ch == "`" or code == 0xFEFF or 0xDC80 <= code <= 0xDCFF:
            return False
        if (code < 0x20 and ch != "\t") or code == 0x7F:
            return False
    return True


def to_bytes(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


# --- the printer ----------------------------------------------------------------------


class _Printer:
    """One fmt ``pp``: flags plus an output buffer."""

    def __init__(self) -> None:
        self.buf: list[str] = []
        self.clear()

    def clear(self) -> None:
        self.wid = 0
        self.prec = 0
        self.wid_present = False
        self.prec_present = False
        self.minus = False
        self.plus = False
        self.sharp = False
        self.space = False
        self.zero = False
        self.plus_v = False
        self.sharp_v = False

    # padding ---------------------------------------------------------------
    def write_padding(self, n: int) -> None:
        if n > 0:
            self.buf.append(("0" if self.zero else " ") * n)

    def pad(self, s: str) -> None:
        if not self.wid_present or self.wid == 0:
            self.buf.append(s)
            return
        width = self.wid - len(s)
        if not self.minus:
            self.write_padding(width)
            self.buf.append(s)
        else:
            self.buf.append(s)
            self.write_padding(width)

    # scalars ---------------------------------------------------------------
    def fmt_integer(self, v: int, base: int, verb: str, upper: bool = False) -> None:
        digits = "0123456789ABCDEFX" if upper else "0123456789abcdefx"
        negative = v < 0
        u = -v if negative else v
        prec = 0
        if self.prec_present:
            prec = self.prec
            if prec == 0 and u == 0:
                old = self.zero
                self.zero = False
                self.write_padding(self.wid)
                self.zero = old
                return
        elif self.zero and self.wid_present:
            prec = self.wid
            if negative or self.plus or self.space:
                prec -= 1
        if u == 0:
            body = "0"
        else:
            chars = []
            while u > 0:
                chars.append(digits[u % base])
                u //= base
            body = "".join(reversed(chars))
        if len(body) < prec:
            body = "0" * (prec - len(body)) + body
        if self.sharp:
            if base == 2:
                body = "0b" + body
            elif base == 8:
                if body[0] != "0":
                    body = "0" + body
            elif base == 16:
                body = "0" + digits[16] + body
        if verb == "O":
            body = "0o" + body
        if negative:
            body = "-" + body
        elif self.plus:
            body = "+" + body
        elif self.space:
            body = " " + body
        old = self.zero
        self.zero = False
        self.pad(body)
        self.zero = old

    def fmt_unicode(self, u: int) -> None:
        prec = 4
        if self.prec_present and self.prec > 4:
            prec = self.prec
        text = f"U+{u:0{prec}X}"
        if self.sharp and 0 <= u <= 0x10FFFF and not 0xD800 <= u <= 0xDFFF:
            ch = chr(u)
            if is_go_print(ch):
                text += " '" + ch + "'"
        old = self.zero
        self.zero = False
        self.pad(text)
        self.zero = old

    def truncate(self, s: str) -> str:
        if self.prec_present:
            return s[: self.prec]
        return s

    def fmt_sx(self, s: str, upper: bool) -> None:
        digits = "0123456789ABCDEFX" if upper else "0123456789abcdefx"
        data = to_bytes(s)
        length = len(data)
        if self.prec_present and self.prec < length:
            length = self.prec
        width = 2 * length
        if width > 0:
            if self.space:
                if self.sharp:
                    width *= 2
                width += length - 1
            elif self.sharp:
                width += 2
        else:
            if self.wid_present:
                self.write_padding(self.wid)
            return
        if self.wid_present and self.wid > width and not self.minus:
            self.write_padding(self.wid - width)
        out = []
        if self.sharp:
            out.append("0" + digits[16])
        for i in range(length):
            if self.space and i > 0:
                out.append(" ")
                if self.sharp:
                    out.append("0" + digits[16])
            c = data[i]
            out.append(digits[c >> 4] + digits[c & 0xF])
        self.buf.append("".join(out))
        if self.wid_present and self.wid > width and self.minus:
            self.write_padding(self.wid - width)

    def fmt_q(self, s: str) -> None:
        s = self.truncate(s)
        if self.sharp and can_backquote(s):
            self.pad("`" + s + "`")
            return
        self.pad(quote(s, ascii_only=self.plus))

    def fmt_float(self, v: float, verb: str, prec: int) -> None:
        """fmt's fmtFloat: ``verb`` one of b, e, E, f, g, G, x, X."""
        if self.prec_present:
            prec = self.prec
        num = format_float(v, verb, prec)
        if num[0] not in "+-":
            num = "+" + num
        if self.space and num[0] == "+" and not self.plus:
            num = " " + num[1:]
        if num[1] in "IN":
            old = self.zero
            self.zero = False
            if num[1] == "N" and not self.space and not self.plus:
                num = num[1:]
            self.pad(num)
            self.zero = old
            return
        if self.sharp and verb != "b":
            num = _sharp_float(num, verb, prec)
        if self.plus or num[0] != "+":
            if self.zero and self.wid_present and self.wid > len(num):
                self.buf.append(num[0])
                self.write_padding(self.wid - len(num))
                self.buf.append(num[1:])
                return
            self.pad(num)
            return
        self.pad(num[1:])

    def fmt_complex(self, v: complex, verb: str) -> None:
        """fmt's fmtComplex: ``(r+ji)``, each part as a float, the imaginary one signed."""
        if verb not in "vbgGxXfFeE":
            self.bad_verb(verb, v, True)
            return
        old_plus = self.plus
        self.buf.append("(")
        self.print_float(v.real, verb)
        self.plus = True
        self.print_float(v.imag, verb)
        self.buf.append("i)")
        self.plus = old_plus

    def print_float(self, v: float, verb: str) -> None:
        """pp.fmtFloat: the verb's default precision."""
        if verb == "v":
            self.fmt_float(v, "g", -1)
        elif verb in "bgGxX":
            self.fmt_float(v, verb, -1)
        elif verb in "efE":
            self.fmt_float(v, verb, 6)
        elif verb == "F":
            self.fmt_float(v, "f", 6)
        else:
            self.bad_verb(verb, v, True)

    # dispatch ----------------------------------------------------------------
    def bad_verb(self, verb: str, value: Any, has_value: bool) -> None:
        self.buf.append("%!" + verb + "(")
        if has_value and value is not None:
            self.buf.append(type_name(value) + "=")
            self.print_arg(value, "v")
        else:
            self.buf.append(NIL_ANGLE)
        self.buf.append(")")

    def print_arg(self, arg: Any, verb: str) -> None:
        if verb == "w":
            # Sprintf has no error to wrap: Go reports the whole argument as a bad verb
            # (a map or list too, not each element)
            self.bad_verb("w", arg, True)
            return
        if arg is None:
            if verb in "Tv":
                self.pad(NIL_ANGLE)
            else:
                self.bad_verb(verb, None, False)
            return
        if verb == "T":
            self.pad(self.truncate(type_name(arg)))
            return
        if verb == "p":
            if not isinstance(arg, list | dict):
                self.bad_verb(verb, arg, True)
                return
            raise FormatError("the %p verb (a memory address in Go) is not supported")
        self.print_value(arg, verb, 0)

    def print_value(self, v: Any, verb: str, depth: int) -> None:
        if v is None:  # a nil interface inside a slice or map
            if self.sharp_v:
                self.buf.append("interface {}(nil)")
            else:
                self.buf.append(NIL_ANGLE)
            return
        if isinstance(v, bool):
            if verb in "tv":
                self.pad("true" if v else "false")
            else:
                self.bad_verb(verb, v, True)
        elif isinstance(v, int):
            self.print_int(v, verb)
        elif isinstance(v, float):
            self.print_float(v, verb)
        elif isinstance(v, complex):
            self.fmt_complex(v, verb)
        elif isinstance(v, str):
            self.print_string(v, verb)
        elif isinstance(v, list):
            self.print_list(v, verb, depth)
        elif isinstance(v, dict):
            self.print_map(v, verb, depth)
        else:
            self.buf.append("?" + type(v).__name__ + "?")

    def print_int(self, v: int, verb: str) -> None:
        if verb == "v" and self.sharp_v and type(v) is Byte:  # fmt0x64: unsigned as 0x..
            self.sharp = True
            self.fmt_integer(v, 16, verb)
            self.sharp = False
        elif verb in "vd":
            self.fmt_integer(v, 10, verb)
        elif verb == "b":
            self.fmt_integer(v, 2, verb)
        elif verb in "oO":
            self.fmt_integer(v, 8, verb)
        elif verb == "x":
            self.fmt_integer(v, 16, verb)
        elif verb == "X":
            self.fmt_integer(v, 16, verb, upper=True)
        elif verb == "c":
            code = v if 0 <= v <= 0x10FFFF and not 0xD800 <= v <= 0xDFFF else 0xFFFD
            self.pad(chr(code))
        elif verb == "q":
            self.pad(quote_rune(v, ascii_only=self.plus))
        elif verb == "U":
            if v < 0:
                v &= (1 << 64) - 1
            self.fmt_unicode(v)
        else:
            self.bad_verb(verb, v, True)

    def print_string(self, v: str, verb: str) -> None:
        if verb == "v":
            if self.sharp_v:
                self.fmt_q(v)
            else:
                self.pad(self.truncate(v))
        elif verb == "s":
            self.pad(self.truncate(v))
        elif verb in "xX":
            self.fmt_sx(v, verb == "X")
        elif verb == "q":
            self.fmt_q(v)
        else:
            self.bad_verb(verb, v, True)

    def print_list(self, v: list[Any], verb: str, depth: int) -> None:
        if self.sharp_v:
            self.buf.append(type_name(v) + "{")
            for i, item in enumerate(v):
                if i:
                    self.buf.append(", ")
                self.print_value(item, verb, depth + 1)
            self.buf.append("}")
            return
        self.buf.append("[")
        for i, item in enumerate(v):
            if i:
                self.buf.append(" ")
            self.print_value(item, verb, depth + 1)
        self.buf.append("]")

    def print_map(self, v: dict[str, Any], verb: str, depth: int) -> None:
        self.buf.append(type_name(v) + "{" if self.sharp_v else "map[")
        for i, key in enumerate(sorted(v)):
            if i:
                self.buf.append(", " if self.sharp_v else " ")
            self.print_value(key, verb, depth + 1)
            self.buf.append(":")
            self.print_value(v[key], verb, depth + 1)
        self.buf.append("}" if self.sharp_v else "]")

    def text(self) -> str:
        return "".join(self.buf)


def sprint(args: list[Any]) -> str:
    """fmt.Sprint: spaces between operands when neither side is a string."""
    p = _Printer()
    prev_string = False
    for i, arg in enumerate(args):
        is_string = isinstance(arg, str)
        if i > 0 and not is_string and not prev_string:
            p.buf.append(" ")
        p.print_arg(arg, "v")
        prev_string = is_string
    return p.text()


def sprintln(args: list[Any]) -> str:
    p = _Printer()
    for i, arg in enumerate(args):
        if i > 0:
            p.buf.append(" ")
        p.print_arg(arg, "v")
    p.buf.append("\n")
    return p.text()


def _parsenum(s: str, start: int, end: int) -> tuple[int, bool, int]:
    if start >= end:
        return 0, False, end
    num = 0
    is_num = False
    i = start
    while i < end and "0" <= s[i] <= "9":
        if num > 1_000_000:  # tooLarge
            return 0, False, end
        num = num * 10 + ord(s[i]) - 48
        is_num = True
        i += 1
    return num, is_num, i


def _int_from_arg(args: list[Any], arg_num: int) -> tuple[int, bool, int]:
    num, is_int, new = 0, False, arg_num
    if arg_num < len(args):
        value = args[arg_num]
        if isinstance(value, int) and not isinstance(value, bool):
            num, is_int = value, True
        new = arg_num + 1
        if not -1_000_000 <= num <= 1_000_000:
            num, is_int = 0, False
    return num, is_int, new


def sprintf(fmt: str, args: list[Any]) -> str:
    """fmt.Sprintf, ported from ``doPrintf``."""
    p = _Printer()
    end = len(fmt)
    arg_num = 0
    after_index = False
    reordered = False
    good_arg_num = True
    i = 0

    def arg_number(arg_num: int, i: int) -> tuple[int, int, bool]:
        nonlocal reordered, good_arg_num
        if i >= end or fmt[i] != "[":
            return arg_num, i, False
        reordered = True
        # parseArgNumber
        sub = fmt[i:]
        index, wid, ok = 0, 1, False
        if len(sub) >= 3:
            for j in range(1, len(sub)):
                if sub[j] == "]":
                    width, okn, newi = _parsenum(sub, 1, j)
                    if not okn or newi != j:
                        index, wid, ok = 0, j + 1, False
                    else:
                        index, wid, ok = width - 1, j + 1, True
                    break
        if ok and 0 <= index < len(args):
            return index, i + wid, True
        good_arg_num = False
        return arg_num, i + wid, ok

    while i < end:
        good_arg_num = True
        last = i
        while i < end and fmt[i] != "%":
            i += 1
        if i > last:
            p.buf.append(fmt[last:i])
        if i >= end:
            break
        i += 1
        p.clear()
        simple_done = False
        while i < end:
            c = fmt[i]
            if c == "#":
                p.sharp = True
            elif c == "0":
                p.zero = not p.minus
            elif c == "+":
                p.plus = True
            elif c == "-":
                p.minus = True
                p.zero = False
            elif c == " ":
                p.space = True
            else:
                if "a" <= c <= "z" and arg_num < len(args):
                    if c in "vw":  # Go treats %w's flags as %v's (then reports it)
                        p.sharp_v, p.sharp = p.sharp, False
                        p.plus_v, p.plus = p.plus, False
                    p.print_arg(args[arg_num], c)
                    arg_num += 1
                    i += 1
                    simple_done = True
                break
            i += 1
        if simple_done:
            continue

        arg_num, i, after_index = arg_number(arg_num, i)
        if i < end and fmt[i] == "*":
            i += 1
            p.wid, p.wid_present, arg_num = _int_from_arg(args, arg_num)
            if not p.wid_present:
                p.buf.append("%!(BADWIDTH)")
            if p.wid < 0:
                p.wid = -p.wid
                p.minus = True
                p.zero = False
            after_index = False
        else:
            p.wid, p.wid_present, i = _parsenum(fmt, i, end)
            if after_index and p.wid_present:
                good_arg_num = False

        if i + 1 < end and fmt[i] == ".":
            i += 1
            if after_index:
                good_arg_num = False
            arg_num, i, after_index = arg_number(arg_num, i)
            if i < end and fmt[i] == "*":
                i += 1
                p.prec, p.prec_present, arg_num = _int_from_arg(args, arg_num)
                if p.prec < 0:
                    p.prec, p.prec_present = 0, False
                if not p.prec_present:
                    p.buf.append("%!(BADPREC)")
                after_index = False
            else:
                p.prec, p.prec_present, i = _parsenum(fmt, i, end)
                if not p.prec_present:
                    p.prec, p.prec_present = 0, True

        if not after_index:
            arg_num, i, after_index = arg_number(arg_num, i)

        if i >= end:
            p.buf.append("%!(NOVERB)")
            break

        verb = fmt[i]
        i += 1
        if verb == "%":
            p.buf.append("%")
        elif not good_arg_num:
            p.buf.append("%!" + verb + "(BADINDEX)")
        elif arg_num >= len(args):
            p.buf.append("%!" + verb + "(MISSING)")
        else:
            if verb in "vw":  # Go treats %w's flags as %v's (then reports it)
                p.sharp_v, p.sharp = p.sharp, False
                p.plus_v, p.plus = p.plus, False
            p.print_arg(args[arg_num], verb)
            arg_num += 1

    if not reordered and arg_num < len(args):
        p.clear()
        p.buf.append("%!(EXTRA ")
        for k, arg in enumerate(args[arg_num:]):
            if k:
                p.buf.append(", ")
            if arg is None:
                p.buf.append(NIL_ANGLE)
            else:
                p.buf.append(type_name(arg) + "=")
                p.print_arg(arg, "v")
        p.buf.append(")")
    return p.text()
