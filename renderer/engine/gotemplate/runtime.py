"""Go ``text/template`` execution semantics, called by the tree interpreter (:mod:`.interp`).

Value model (mirrors Go's reflect.Value distinctions that change behaviour):

* ``MISSING`` is Go's invalid ``reflect.Value``: a missing map key, or nil after a
  pipeline strips the interface. It prints ``<no value>`` and ``.x`` on it is
  ``MISSING`` again, without error.
* ``None`` is a nil *interface* still inside a container (a JSON null map value, list
  element or range element). ``.x`` on it is Go's "nil pointer evaluating" error.
* str, bool, int, float, complex, list and dict are Go's string, bool, int, float64,
  complex128 (only a template's complex constants), ``[]interface {}`` and
  ``map[string]interface {}``; :mod:`renderer.engine.govalues` adds the typed
  ``map[string]string`` and ``int32`` the controller passes.

Data is only ever read with ``isinstance`` checks and dict/list indexing, never with
attribute access, so a template cannot reach Python internals.
"""

from __future__ import annotations

import base64
import re
import sys
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from renderer.engine import limits
from renderer.engine.gotemplate import gofmt
from renderer.engine.gotemplate.gofmt import Byte, FormatError, StringList, type_name
from renderer.engine.gotemplate.lexer import is_go_print
from renderer.engine.govalues import Int32, StringMap

MAX_EXEC_DEPTH = 100000


class _Missing:
    """Go's invalid reflect.Value (a missing key or an un-interfaced nil)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<no value>"

    def __bool__(self) -> bool:
        return False


MISSING = _Missing()


class ExecError(Exception):
    """An execution error; the interpreter adds where it happened (Go's ``at <...>``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FuncError(Exception):
    """A function returned an error: Go reports ``error calling NAME: ...``."""


class Cell:
    """A Go template variable: mutable so ``$x = v`` in a range body updates it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


# --- helpers on values ---------------------------------------------------------------


def is_true(value: Any) -> bool:
    """Go's truth: false, 0, nil, and empty string/slice/map are false."""
    if value is None or value is MISSING:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | complex):
        return value != 0
    if isinstance(value, str | list | dict):
        return len(value) > 0
    return True


def go_type(value: Any) -> str:
    if value is None:
        return "interface {}"
    return type_name(value)


def describe(value: Any, verb: str = "v") -> str:
    """A value as ``%v`` (or ``verb``) shows it inside error messages."""
    if value is MISSING:
        return "<invalid reflect.Value>" if verb == "s" else "<nil>"
    return gofmt.sprintf("%" + verb, [value])


def value_string(value: Any) -> str:
    """What a reflect.Value's String method gives: a string itself, else ``<T Value>``."""
    if isinstance(value, str):
        return value
    if value is MISSING:
        return "<invalid Value>"
    return f"<{go_type(value)} Value>"


def print_value(value: Any) -> str:
    """What an action prints (Go's printValue): ``<no value>`` for an invalid value."""
    if value is MISSING:
        return "<no value>"
    return gofmt.sprint([value])


# --- range, template calls ------------------------------------------------------------


def range_items(value: Any) -> list[tuple[Any, Any]]:
    """walkRange: (index, element) pairs; maps in sorted key order; nil is empty."""
    if value is MISSING or value is None:
        return []
    if isinstance(value, list):
        return list(enumerate(value))
    if isinstance(value, dict):
        return [(k, value[k]) for k in sorted(value)]
    raise ExecError(f"range can't iterate over {describe(value)}")


def stack_depth() -> int:
    """How many Python frames the current thread's stack holds."""
    frame = sys._getframe()
    count = 0
    while frame is not None:
        count += 1
        frame = frame.f_back  # type: ignore[assignment]
    return count


def enter_template(depth: int, limit: int) -> int:
    """walkTemplate's depth check: Go stops at 100,000 nested template calls; the
    interpreter stops at ``limit`` when its stack holds fewer (a recursion in deeply
    nested blocks), with a positioned error rather than a RecursionError."""
    if depth >= MAX_EXEC_DEPTH:
        raise ExecError(f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
    if depth >= limit:
        raise ExecError(f"exceeded maximum template depth ({depth} nested template calls)")
    return depth + 1


# --- builtins ---------------------------------------------------------------------------


def _indirect(value: Any) -> Any:
    """indirectInterface: a nil interface is the zero (invalid) value."""
    return MISSING if value is None else value


#: reflect's basic kinds that eq and lt compare; any other value is "invalid" there.
_BASIC_KINDS: dict[type, str] = {
    bool: "bool",
    int: "int",
    Int32: "int",
    Byte: "int",  # uint8 or int32 against int: Go compares the numbers, as Python does
    float: "float",
    complex: "complex",
    str: "string",
}


def _basic_kind(value: Any) -> str:
    return _BASIC_KINDS.get(type(value), "invalid")


def _kind(value: Any) -> str:
    """reflect.Kind for the non-basic values eq meets."""
    if value is MISSING:
        return "invalid"
    if isinstance(value, list):
        return "slice"
    if isinstance(value, dict):
        return "map"
    return "other"


def fn_eq(arg1: Any, *rest: Any) -> bool:
    arg1 = _indirect(arg1)
    if not rest:
        raise FuncError("missing argument for comparison")
    k1 = _basic_kind(arg1)
    for arg in rest:
        arg = _indirect(arg)
        k2 = _basic_kind(arg)
        truth = False
        if k1 != k2:
            if arg1 is not MISSING and arg is not MISSING:
                raise FuncError("incompatible types for comparison")
        elif k1 != "invalid":
            truth = arg1 == arg
        else:
            # maps, slices and invalid values
            kind1, kind2 = _kind(arg1), _kind(arg)
            if kind1 != kind2 and arg1 is not MISSING and arg is not MISSING:
                raise FuncError(
                    f"non-comparable types {describe(arg1, 's')}: {go_type(arg1)}, "
                    f"{go_type(arg)}: {describe(arg)}"
                )
            if arg1 is MISSING or arg is MISSING:
                truth = (arg1 is MISSING) == (arg is MISSING)
            else:
                raise FuncError(f"non-comparable type {describe(arg, 's')}: {go_type(arg)}")
        if truth:
            return True
    return False


def fn_ne(arg1: Any, arg2: Any) -> bool:
    return not fn_eq(arg1, arg2)


def fn_lt(arg1: Any, arg2: Any) -> bool:
    arg1 = _indirect(arg1)
    k1 = _basic_kind(arg1)
    if k1 == "invalid":
        raise FuncError("invalid type for comparison")
    arg2 = _indirect(arg2)
    k2 = _basic_kind(arg2)
    if k2 == "invalid":
        raise FuncError("invalid type for comparison")
    if k1 != k2:
        raise FuncError("incompatible types for comparison")
    if k1 == "bool" or k1 == "complex":
        raise FuncError("invalid type for comparison")
    if k1 == "string":
        return gofmt.to_bytes(arg1) < gofmt.to_bytes(arg2)
    return bool(arg1 < arg2)


def fn_le(arg1: Any, arg2: Any) -> bool:
    if fn_lt(arg1, arg2):
        return True
    return fn_eq(arg1, arg2)


def fn_gt(arg1: Any, arg2: Any) -> bool:
    return not fn_le(arg1, arg2)


def fn_ge(arg1: Any, arg2: Any) -> bool:
    return not fn_lt(arg1, arg2)


def fn_not(arg: Any) -> bool:
    return not is_true(arg)


def fn_len(item: Any) -> int:
    if item is None:
        raise FuncError("len of nil pointer")
    if item is MISSING:
        raise FuncError("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(item, str):
        return len(gofmt.to_bytes(item))
    if isinstance(item, list | dict):
        return len(item)
    raise FuncError(f"len of type {go_type(item)}")


class Interface:
    """A value Go still holds as ``interface {}`` (a map value or range element).

    Only ``slice`` sees the difference: it does not unwrap its index arguments.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def as_interface(value: Any) -> Any:
    return value if value is MISSING else Interface(value)


def _operand(item: Any, what: str) -> Any:
    """The item ``index`` or ``slice`` works on; an invalid one is Go's untyped nil."""
    item = _indirect(item)
    if item is MISSING:
        raise FuncError(f"{what} of untyped nil")
    return item


def _index_arg(index: Any, cap: int) -> int:
    if isinstance(index, Interface):
        raise FuncError("cannot index slice/array with type interface {}")
    if isinstance(index, int) and not isinstance(index, bool):
        x = index
    elif index is MISSING:
        raise FuncError("cannot index slice/array with nil")
    else:
        raise FuncError(f"cannot index slice/array with type {go_type(index)}")
    if x < 0 or x > cap:
        raise FuncError(f"index out of range: {x}")
    return x


def fn_index(item: Any, *indexes: Any) -> Any:
    item = _operand(item, "index")
    for index in indexes:
        index = _indirect(index)
        if item is None:
            raise FuncError("index of nil pointer")
        if isinstance(item, str | list):
            data: Any = gofmt.to_bytes(item) if isinstance(item, str) else item
            x = _index_arg(index, len(data))
            if x == len(data):
                kind = "string" if isinstance(item, str) else "slice"
                raise FuncError(f"reflect: {kind} index out of range")
            item = Byte(data[x]) if isinstance(item, str) else data[x]
        elif isinstance(item, dict):
            if index is MISSING:
                raise FuncError("value is nil; should be of type string")
            if not isinstance(index, str):
                raise FuncError(f"value has type {go_type(index)}; should be string")
            # a missing key gives the element type's zero: "" or a nil interface
            item = item.get(index, "" if isinstance(item, StringMap) else None)
        else:
            raise FuncError(f"can't index item of type {go_type(item)}")
    return item


def fn_slice(item: Any, *indexes: Any) -> Any:
    item = _operand(item, "slice")
    if len(indexes) > 3:
        raise FuncError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise FuncError("cannot 3-index slice a string")
        data: Any = gofmt.to_bytes(item)
    elif isinstance(item, list):
        data = item
    else:
        raise FuncError(f"can't slice item of type {go_type(item)}")
    cap = len(data)
    idx = [0, len(data), 0]
    for i, index in enumerate(indexes):
        idx[i] = _index_arg(_indirect(index), cap)
    if idx[0] > idx[1]:
        raise FuncError(f"invalid slice index: {idx[0]} > {idx[1]}")
    if len(indexes) == 3 and idx[1] > idx[2]:
        raise FuncError(f"invalid slice index: {idx[1]} > {idx[2]}")
    result = data[idx[0] : idx[1]]
    if isinstance(item, str):
        return result.decode("utf-8", "surrogateescape")
    return StringList(result) if isinstance(item, StringList) else list(result)


def fn_call(name: str, fn: Any, *args: Any) -> Any:
    """Go's call builtin, named ``name`` in its errors: no value is a function here."""
    fn = _indirect(fn)
    if fn is MISSING:
        raise FuncError("call of nil")
    raise FuncError(f"non-function {name} of type {go_type(fn)}")


def fn_and_or(*args: Any) -> Any:  # pragma: no cover - the interpreter short-circuits
    raise AssertionError("and/or are evaluated by the interpreter")


def fn_print(*args: Any) -> str:
    return gofmt.sprint(list(args))


def fn_println(*args: Any) -> str:
    return gofmt.sprintln(list(args))


def fn_printf(fmt: str, *args: Any) -> str:
    return gofmt.sprintf(fmt, list(args))


def _eval_args(args: tuple[Any, ...]) -> str:
    """text/template's evalArgs: like Sprint, but a nil argument prints ``<no value>``."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return gofmt.sprint(["<no value>" if a is None else a for a in args])


_HTML_ESCAPES = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}


def fn_html(*args: Any) -> str:
    return "".join(_HTML_ESCAPES.get(ch, ch) for ch in _eval_args(args))


def fn_js(*args: Any) -> str:
    s = _eval_args(args)
    out = []
    for ch in s:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(ch)  # a stray byte: Go writes it unchanged
        elif ch in "\\'\"<>&=":
            out.append(
                {
                    "\\": "\\\\",
                    "'": "\\'",
                    '"': '\\"',
                    "<": "\\u003C",
                    ">": "\\u003E",
                    "&": "\\u0026",
                    "=": "\\u003D",
                }[ch]
            )
        elif code < 0x20:
            out.append(f"\\u00{code:02X}")
        elif code < 0x80 or is_go_print(ch):
            out.append(ch)
        else:
            out.append(f"\\u{code:04X}")
    return "".join(out)


def fn_urlquery(*args: Any) -> str:
    return urllib.parse.quote_plus(gofmt.to_bytes(_eval_args(args)), safe="")


# --- the BKE controller's functions -----------------------------------------------------


def fn_default_false(x: Any) -> str:
    return "true" if gofmt.sprint([x]) == "true" else "false"


def fn_b64encode(x: Any) -> str:
    return base64.b64encode(gofmt.to_bytes(gofmt.sprint([x]))).decode("ascii")


def _go_split(s: str, sep: str) -> list[str]:
    if sep == "":
        return list(s)
    return s.split(sep)


def fn_split(s: str, sep: str) -> StringList:
    return StringList(_go_split(s, sep))


def fn_string_to_slice_string(s: str, sep: str) -> str:
    if s == "":
        return "[]"
    return '["' + '","'.join(_go_split(s, sep)) + '"]'


_ATOI = re.compile(r"[+-]?[0-9]+")


def fn_int(s: str) -> int:
    """strconv.Atoi, with 0 for anything it rejects."""
    if not _ATOI.fullmatch(s):
        return 0
    value = int(s)
    return value if -(1 << 63) <= value < (1 << 63) else 0


def fn_indent(s: str, prefix: str) -> str:
    return s.replace("\n", "\n" + prefix)


#: Go's unicode.IsSpace: what strings.TrimSpace removes (Python's isspace() also takes
#: U+001C..U+001F, which Go keeps).
_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_DIGITS = re.compile(r"[0-9]*")
_ALNUM = re.compile(r"[0-9A-Za-z-]*")
_UINT64_MAX = (1 << 64) - 1


class _BadVersion(Exception):
    """blang/semver refused the string; the controller then compares 0.0.0."""


#: One pre-release identifier: (is numeric, number, text). Numeric identifiers order
#: below alphanumeric ones, numbers by value, text by bytes (ASCII here).
PreRelease = tuple[bool, int, str]
#: A parsed version: major, minor, patch and the pre-release identifiers (build metadata
#: is parsed, for its errors, and then ignored by every comparison).
Version = tuple[int, int, int, tuple[PreRelease, ...]]

_ZERO: Version = (0, 0, 0, ())


def _go_trim_space(s: str) -> str:
    start, end = 0, len(s)
    while start < end and s[start] in _GO_SPACE:
        start += 1
    while end > start and s[end - 1] in _GO_SPACE:
        end -= 1
    return s[start:end]


def _uint(part: str) -> int:
    """A major, minor or patch number: ASCII digits, no leading zero, 64 bits."""
    if not _DIGITS.fullmatch(part) or (len(part) > 1 and part[0] == "0"):
        raise _BadVersion
    if part == "" or int(part) > _UINT64_MAX:
        raise _BadVersion
    return int(part)


def _pre_release(ident: str) -> PreRelease:
    if ident == "":
        raise _BadVersion
    if _DIGITS.fullmatch(ident):
        if len(ident) > 1 and ident[0] == "0":
            raise _BadVersion
        if int(ident) > _UINT64_MAX:
            raise _BadVersion
        return (True, int(ident), "")
    if _ALNUM.fullmatch(ident):
        return (False, 0, ident)
    raise _BadVersion


def _parse_strict(s: str) -> Version:
    """blang/semver v4 ``Parse``: strict semver 2.0."""
    if s == "":
        raise _BadVersion
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise _BadVersion
    major, minor = _uint(parts[0]), _uint(parts[1])
    patch_text = parts[2]
    build: list[str] = []
    plus = patch_text.find("+")
    if plus != -1:
        build = patch_text[plus + 1 :].split(".")
        patch_text = patch_text[:plus]
    pre: list[str] = []
    dash = patch_text.find("-")
    if dash != -1:
        pre = patch_text[dash + 1 :].split(".")
        patch_text = patch_text[:dash]
    patch = _uint(patch_text)
    parsed_pre = tuple(_pre_release(p) for p in pre)
    if any(b == "" or not _ALNUM.fullmatch(b) for b in build):
        raise _BadVersion
    return (major, minor, patch, parsed_pre)


def parse_version(s: str) -> Version:
    """The controller's version reading: blang/semver v4 ``ParseTolerant``, errors ignored.

    Tolerant means: surrounding Unicode space trimmed, one lower-case ``v`` dropped,
    leading zeros of each dot-separated part dropped, a missing minor or patch filled with
    0 (a short version carrying ``-`` or ``+`` is an error); the result must then be
    strict semver 2.0. Anything refused compares as 0.0.0, as in the controller.
    """
    s = _go_trim_space(s)
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, part in enumerate(parts):
        # Go counts bytes: one non-ASCII character is already "longer than one"
        if len(part) > 1 or (part and ord(part[0]) > 0x7F):
            part = part.lstrip("0")
            if part == "" or part[0] not in "0123456789":
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            return _ZERO
        parts += ["0"] * (3 - len(parts))
    try:
        return _parse_strict(".".join(parts))
    except _BadVersion:
        return _ZERO


def _pre_cmp(a: PreRelease, b: PreRelease) -> int:
    if a[0] != b[0]:
        return -1 if a[0] else 1
    if a[0]:
        return (a[1] > b[1]) - (a[1] < b[1])
    return (a[2] > b[2]) - (a[2] < b[2])


def compare_versions(a: Version, b: Version) -> int:
    """blang/semver ``Compare``: numbers, then a release above its pre-releases, then the
    pre-release identifiers one by one (more identifiers win a tie)."""
    if a[:3] != b[:3]:
        return 1 if a[:3] > b[:3] else -1
    pa, pb = a[3], b[3]
    if not pa or not pb:
        return (not pa) - (not pb)
    for x, y in zip(pa, pb, strict=False):
        c = _pre_cmp(x, y)
        if c:
            return c
    return (len(pa) > len(pb)) - (len(pa) < len(pb))


def _vcmp(a: str, b: str) -> int:
    return compare_versions(parse_version(a), parse_version(b))


def fn_vgt(a: str, b: str) -> bool:
    return _vcmp(a, b) > 0


def fn_vlt(a: str, b: str) -> bool:
    return _vcmp(a, b) < 0


def fn_veq(a: str, b: str) -> bool:
    return _vcmp(a, b) == 0


def fn_vgte(a: str, b: str) -> bool:
    return _vcmp(a, b) >= 0


def fn_vlte(a: str, b: str) -> bool:
    return _vcmp(a, b) <= 0


def fn_vne(a: str, b: str) -> bool:
    return _vcmp(a, b) != 0


#: name -> (implementation, fixed parameter kinds, variadic kind or None).
#: Kinds: "value" (reflect.Value: sees invalid values), "any" (interface{}), "string".
FUNCS: dict[str, tuple[Callable[..., Any], tuple[str, ...], str | None]] = {
    "and": (fn_and_or, ("value",), "value"),
    "or": (fn_and_or, ("value",), "value"),
    "call": (fn_call, ("value",), "value"),
    "html": (fn_html, (), "any"),
    "index": (fn_index, ("value",), "value"),
    "slice": (fn_slice, ("value",), "value"),
    "js": (fn_js, (), "any"),
    "len": (fn_len, ("value",), None),
    "not": (fn_not, ("value",), None),
    "print": (fn_print, (), "any"),
    "printf": (fn_printf, ("string",), "any"),
    "println": (fn_println, (), "any"),
    "urlquery": (fn_urlquery, (), "any"),
    "eq": (fn_eq, ("value",), "value"),
    "ge": (fn_ge, ("value", "value"), None),
    "gt": (fn_gt, ("value", "value"), None),
    "le": (fn_le, ("value", "value"), None),
    "lt": (fn_lt, ("value", "value"), None),
    "ne": (fn_ne, ("value", "value"), None),
    "defaultFalse": (fn_default_false, ("any",), None),
    "b64encode": (fn_b64encode, ("any",), None),
    "split": (fn_split, ("string", "string"), None),
    "stringToSliceString": (fn_string_to_slice_string, ("string", "string"), None),
    "int": (fn_int, ("string",), None),
    "indent": (fn_indent, ("string", "string"), None),
    "vgt": (fn_vgt, ("string", "string"), None),
    "vlt": (fn_vlt, ("string", "string"), None),
    "veq": (fn_veq, ("string", "string"), None),
    "vgte": (fn_vgte, ("string", "string"), None),
    "vlte": (fn_vlte, ("string", "string"), None),
    "vne": (fn_vne, ("string", "string"), None),
}


#: Largest string one function call may return. Go has no limit, but a template that
#: doubles a value in a loop (``$x = printf "%s%s" $x $x``) must fail, not exhaust memory.
MAX_RESULT_CHARS = 16 * 1024 * 1024


def _bounded(name: str, result: Any) -> Any:
    if isinstance(result, str) and len(result) > MAX_RESULT_CHARS:
        raise ExecError(f"error calling {name}: result longer than {MAX_RESULT_CHARS} characters")
    return result


def _size(value: Any, budget: int = MAX_RESULT_CHARS + 1) -> int:
    """About how many characters ``value`` prints as, without printing it: strings by
    length, containers by their items (walked until ``budget`` is passed)."""
    total = 0
    stack = [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, str | bytes):
            total += len(item) + 1
        elif isinstance(item, dict):
            total += 2 + len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            total += 2 + len(item)
            stack.extend(item)
        else:
            total += 24
    return total


_WIDTHS = re.compile(r"%[-+# 0]*(\d+)?(?:\.(\d+))?")


def _estimate(name: str, args: list[Any]) -> int:
    """An upper bound of the characters (or items) function ``name`` makes from
    ``args``: every function that builds a string is checked before it allocates, as
    ``indent`` over a million newlines would peak at gigabytes."""
    if name == "indent" and len(args) == 2 and isinstance(args[0], str):
        text, prefix = args[0], args[1] if isinstance(args[1], str) else ""
        return len(text) + text.count("\n") * len(prefix)
    if name == "printf" and args and isinstance(args[0], str):
        fmt = args[0]
        widths = sum(int(w or 0) + int(p or 0) for w, p in _WIDTHS.findall(fmt))
        stars = [a for a in args[1:] if isinstance(a, int) and not isinstance(a, bool)]
        widths += fmt.count("*") * min(max(stars, default=0), limits.MAX_FORMAT_WIDTH)
        largest = max((_size(a) for a in args[1:]), default=0)
        return len(fmt) + fmt.count("%") * largest + widths
    if name in ("split", "stringToSliceString") and len(args) == 2 and isinstance(args[0], str):
        text, sep = args
        parts = len(text) + 1 if sep == "" else text.count(sep) + 1 if isinstance(sep, str) else 1
        return len(text) + 3 * parts + 4
    size = sum(_size(a) for a in args)
    if name in ("html", "js", "urlquery"):
        return 9 * size  # one character may become six (\u003C) or nine (%E2%80%A8)
    if name == "b64encode":
        return 4 * size + 4  # UTF-8 bytes, then 4 characters per 3 bytes
    return size


def _check_before(name: str, args: list[Any]) -> None:
    if name not in _BUILDERS:
        return
    size = _estimate(name, args)
    if size > MAX_RESULT_CHARS:
        raise ExecError(f"error calling {name}: result longer than {MAX_RESULT_CHARS} characters")
    limits.check_size(size)


#: The functions whose result grows with their arguments.
_BUILDERS = frozenset(
    {"print", "printf", "println", "html", "js", "urlquery", "b64encode", "indent", "split"}
    | {"stringToSliceString"}
)


def invoke(name: str, impl: Callable[..., Any], args: list[Any]) -> Any:
    """Call function ``name`` (``impl``) with checked arguments; a failure is Go's
    ``error calling NAME: ...``."""
    try:
        _check_before(name, args)
        return _bounded(name, impl(*args))
    except (FuncError, FormatError) as exc:
        raise ExecError(f"error calling {name}: {exc}") from None


#: The classes :func:`normalize` returns as they are (exactly these, not subclasses).
_ITSELF = frozenset({str, bool, float, type(None)})


def normalize(value: Any, path: str = "") -> Any:
    """Copy context data into the JSON-like shapes the engine understands.

    Ints outside int64 become floats (as a JSON decoder feeding Go would make them);
    tuples become lists; the typed values of :mod:`renderer.engine.govalues` stay typed.
    Anything else is rejected with ValueError.
    """
    if value is None or isinstance(value, bool | str | float):
        return value
    if isinstance(value, Int32):  # typed by the controller: in range, and kept typed
        return value
    if isinstance(value, int):
        return value if -(1 << 63) <= value < (1 << 63) else float(value)
    if isinstance(value, StringMap):
        return StringMap({str(k): str(v) for k, v in value.items()})
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"context key {key!r} at {path or '.'} is not a string")
            # a string, bool, float or None is itself (most of a context): no call and no
            # path per key (a values file of 200,000 keys, once per file)
            if item.__class__ in _ITSELF:
                out[key] = item
            else:
                out[key] = normalize(item, f"{path}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [normalize(item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise ValueError(f"context value at {path or '.'} has unsupported type {type(value).__name__}")
