"""A rendered stream decoded as BKE's controller decodes it before applying it.

The controller (cluster-api-provider-bke, ``pkg/kube``) reads a rendered file with
apimachinery's ``YAMLOrJSONDecoder`` (v0.28.0, what its ``go.mod`` replaces v0.34.1
with), one ``runtime.RawExtension`` per document, then
``unstructured.UnstructuredJSONScheme``, and unwraps six list kinds. Each step decides
something a YAML 1.2 reading does not, all reproduced here:

- documents are cut at lines that begin with ``---`` (the rest may only be a comment,
  else the file fails); a cut document is handed to go-yaml v2 whole, which reads its
  first YAML document and ignores anything after ``...``;
- a document without content (blank, comments only, ``null``) fails the file: only a
  stream that is empty, or ends with a ``---`` line, has no such document;
- scalars are YAML 1.1 as go-yaml v2 resolves them (``yes``/``on``/``y`` are true,
  ``010`` is 8, ``0b11`` is 3, ``1_000`` is 1000), tags as it checks them;
- a key given twice keeps its last value, and ``<<`` merges in document order (a key
  merged in overrides one written before the ``<<``); anchors may be redefined;
- keys become strings (``1`` -> "1", ``yes`` -> "true", floats as 32-bit floats print),
  a null key, a key beyond int64 and ``.nan``/``.inf`` values fail;
- numbers are what the JSON the cluster receives says: integers beyond int64 and
  fractions are floats, whole floats are integers;
- the object needs a string ``kind``; a top-level ``items`` is read as a list's (an
  item without kind and apiVersion takes the list's), and the six list kinds the
  controller knows (ConfigMapList, SecretList, ...) stand for their items.

:func:`decode_stream` also reports each plain scalar whose YAML 1.1 reading (what the
cluster receives) is not its YAML 1.2 core-schema reading (what the text says to a
reader of YAML 1.2), so a render can warn of ``x: yes``.
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from renderer.errors import InputError
from renderer.k8s.libyaml import event_parser
from renderer.k8s.parse import Reading
from renderer.k8s.yamlio import MAX_DEPTH, MAX_EXPANDED_NODES, mark_error
from renderer.store.memo import Memo

#: The list kinds the controller applies item by item (its ``addonutil.GetListKinds``).
LIST_KINDS = frozenset(
    {
        "ConfigMapList",
        "SecretList",
        "ClusterRoleList",
        "ClusterRoleBindingList",
        "RoleList",
        "RoleBindingList",
    }
)

#: Go's ``unicode.IsSpace``: what ``strings.TrimSpace`` trims after a ``---``.
_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_GO_SPACES = "".join(sorted(_GO_SPACE))
#: The controller's decode buffer (``DefaultYamlDecoderBufferSize``): the bytes its
#: decoder looks at to tell a JSON stream (first non-space ``{``) from YAML.
_SNIFF = 4096

_INT64 = 1 << 63
_UINT64 = 1 << 64


@dataclass(frozen=True, slots=True)
class Document:
    """One object the controller applies: its first line in the stream, its JSON data,
    and the readings of its scalars that YAML 1.1 and 1.2 disagree on."""

    line: int
    data: dict[str, Any]
    readings: tuple[Reading, ...] = ()


def decode_stream(text: str, file: str) -> list[Document]:
    """The objects BKE's controller applies of ``text``, in order.

    Raises InputError (file and line) where the controller's decoding fails: the
    controller then applies nothing of the file.
    """
    if _json_stream(text):
        return _decode_json(text, file)
    out: list[Document] = []
    plain: dict[str, Any] = {}  # a render repeats most plain scalars
    for first, chunk in _chunks(text, file):
        out.extend(_objects(_decoded(chunk, first, file, plain), file))
    return out


#: Documents decoded in this process, by their text and file: the renders of a version
#: (the Typha verdict's three and the one asked for) repeat most documents, the CRDs
#: above all. Kept as JSON with lines counted from the document's first, so that every
#: use gets its own objects, wherever in its stream the document stands.
_DOCUMENTS: Memo[tuple[str, str], tuple[int, str, tuple[Reading, ...]]] = Memo(
    "k8s.decode.documents", 1024
)


def _decoded(
    chunk: str, first: int, file: str, plain: dict[str, Any]
) -> tuple[int, Any, tuple[Reading, ...]]:
    """:meth:`_ChunkDecoder.decode`, once per document text (a document that fails is
    decoded again each time, so that its error names its own line)."""
    known = _DOCUMENTS.get((chunk, file))
    if known is not None:
        line, encoded, readings = known
        return (
            first + line,
            json.loads(encoded),
            tuple(replace(r, line=first + r.line) for r in readings),
        )
    line, data, readings = _ChunkDecoder(chunk, first, file, plain).decode()
    try:
        encoded = json.dumps(data)
    except (TypeError, ValueError):
        return line, data, readings
    relative = tuple(replace(r, line=r.line - first) for r in readings)
    _DOCUMENTS[(chunk, file)] = (line - first, encoded, relative)
    # decoded anew: an alias (``*x``) gives each place its own containers, as every
    # later use of this document gets them
    return line, json.loads(encoded), readings


# --- the stream: JSON or YAML, and YAML cut into documents -----------------------------


def _json_stream(text: str) -> bool:
    """Whether the decoder reads ``text`` as JSON: the first non-space character of its
    first 4096 bytes is ``{`` (apimachinery's ``GuessJSONStream``)."""
    head = text[:_SNIFF]
    stripped = head.lstrip(_GO_SPACES)
    if not stripped.startswith("{"):
        return False
    return len(text[: len(head) - len(stripped) + 1].encode("utf-8", "surrogatepass")) <= _SNIFF


#: A line beginning with ``---`` (in a text whose lines all end with ``\n``).
_SEPARATOR = re.compile(r"^---([^\n]*)\n", re.M)


def _chunks(text: str, file: str) -> Iterator[tuple[int, str]]:
    """The documents of a YAML stream as apimachinery's ``YAMLReader`` cuts them, each
    with the line of the stream it begins on: a line beginning with ``---`` ends the
    document before it (and is left out of the next one, unless the next one begins
    with it); what follows ``---`` may only be space or a comment. Lines are as Go's
    ``LineReader`` gives them: ``\r\n`` made ``\n``, the last one ended by ``\n``."""
    text = text.replace("\r\n", "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    start, first = 0, 1  # where the document being read begins, and its line
    at, number = 0, 1  # lines counted up to ``at``
    for sep in _SEPARATOR.finditer(text):
        number += text.count("\n", at, sep.start())
        at = sep.start()
        rest = sep.group(1).strip(_GO_SPACES)
        if rest and rest[0] != "#":
            raise InputError(
                f"invalid document separator '---{sep.group(1).rstrip()}': BKE's controller "
                "reads a line beginning with --- as one, with only a comment after it",
                file=file,
                line=number,
            )
        if sep.start() > start:  # it ends the document read so far
            yield first, text[start : sep.start()]
            start, first = sep.end(), number + 1
        # else the document begins with it
    if start < len(text):
        yield first, text[start:]


# --- one document, as go-yaml v2 decodes it into interface{} -----------------------------

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_BINARY = "tag:yaml.org,2002:binary"
_MERGE = "tag:yaml.org,2002:merge"
_RESOLVABLE = frozenset({"", _STR, _BOOL, _INT, _FLOAT, _NULL, _TIMESTAMP})


class _Uint(int):
    """An integer go-yaml holds as uint64 (above int64): not a valid map key."""

    __slots__ = ()


class _Bad(float):
    """A float JSON cannot hold (``.nan``, ``.inf``): fails the document if it is in
    the mapping when the document is converted to JSON."""

    __slots__ = ()


#: go-yaml v2's resolve table: the first character of a plain scalar decides what it
#: may be (S sign, D digit, M a word of the map below, "." a float).
_HINT = {
    **dict.fromkeys("+-", "S"),
    **dict.fromkeys("0123456789", "D"),
    **dict.fromkeys("yYnNtTfFoO~", "M"),
    ".": ".",
}
_WORDS: dict[str, Any] = {
    **dict.fromkeys(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"], True),
    **dict.fromkeys(["on", "On", "ON"], True),
    **dict.fromkeys(["n", "N", "no", "No", "NO", "false", "False", "FALSE"], False),
    **dict.fromkeys(["off", "Off", "OFF"], False),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], None),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], _Bad(math.nan)),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], _Bad(math.inf)),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], _Bad(-math.inf)),
}
_WORD_TAGS = {True: _BOOL, False: _BOOL, None: _NULL}

#: Go's ``strconv.ParseInt(s, 0, 64)`` syntax (underscores already removed): a sign,
#: then hex, octal (``0o`` or a leading 0), binary or decimal digits.
_GO_INT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)\Z")
_GO_BASE = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
#: ``strconv.ParseFloat`` on a scalar beginning with ``.`` (underscores between digits).
_DOT_FLOAT = re.compile(r"\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?\Z")
_BINARY_DIGITS = re.compile(r"([+-]?)([01]+)\Z")


def _go_int(body: str, signed: bool) -> int | None:
    """``strconv.ParseInt(body, 0, 64)`` (``signed``) or ``ParseUint``; None on error."""
    m = _GO_INT.match(body)
    if m is None or (m.group(1) and not signed):
        return None
    digits = m.group(2)
    if len(digits) > 2 and digits[0] == "0" and digits[1] in _GO_BASE:
        value = int(digits[2:], _GO_BASE[digits[1]])
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits[1:], 8)
    else:
        value = int(digits)
    if m.group(1) == "-":
        value = -value
    if signed:
        return value if -_INT64 <= value < _INT64 else None
    return value if value < _UINT64 else None


def _go_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` of a text already known to be a decimal float;
    None where Go reports it out of range."""
    value = float(text)
    return None if math.isinf(value) else value


def _number(text: str, tag: str) -> tuple[str, Any] | None:
    """go-yaml v2's reading of a scalar that begins with a digit or a sign."""
    if tag in ("", _TIMESTAMP) and _timestamp(text):
        return _TIMESTAMP, text
    plain = text.replace("_", "")
    value = _go_int(plain, True)
    if value is not None:
        return _INT, value
    value = _go_int(plain, False)
    if value is not None:
        return _INT, _Uint(value)
    if _YAML_FLOAT.match(plain):
        parsed = _go_float(plain)
        if parsed is not None:
            return _FLOAT, parsed
    if plain.startswith("0b"):
        m = _BINARY_DIGITS.match(plain[2:])
        if m is not None:
            value = int(m.group(2), 2) * (-1 if m.group(1) == "-" else 1)
            if -_INT64 <= value < _INT64:
                return _INT, value
            if not m.group(1) and value < _UINT64:
                return _INT, _Uint(value)
    elif plain.startswith("-0b"):
        m = _BINARY_DIGITS.match(plain[3:])
        if m is not None and not m.group(1):
            value = -int(m.group(2), 2)
            if value >= -_INT64:
                return _INT, value
    return None


#: The layouts go-yaml v2 tries for a timestamp (time.Parse's), as patterns: a date of
#: 1- or 2-digit month and day, then ``T``/``t``/space and a time.
_TIMESTAMP_FORM = re.compile(
    r"(?P<y>[0-9]{4})-(?P<m>[0-9]{1,2})-(?P<d>[0-9]{1,2})"
    r"(?:(?P<sep>[Tt ])(?P<H>[0-9]{1,2}):(?P<M>[0-9]{1,2}):(?P<S>[0-9]{1,2})(?:\.[0-9]+)?"
    r"(?P<z>Z|[+-][0-9]{2}:[0-9]{2})?)?\Z"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _timestamp(text: str) -> bool:
    """Whether go-yaml v2 reads ``text`` as a timestamp. Only an explicit ``!!timestamp``
    tag makes this decide anything: a timestamp decodes to its text, as a string would."""
    if not (len(text) > 4 and text[:4].isascii() and text[:4].isdigit() and text[4] == "-"):
        return False
    m = _TIMESTAMP_FORM.match(text)
    if m is None:
        return False
    year, month, day = int(m["y"]), int(m["m"]), int(m["d"])
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1]:
        return False
    if month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        return False
    if m["sep"] is None:
        return True
    if m["sep"] == " " and m["z"] is not None:
        return False
    if m["sep"] != " " and m["z"] is None:
        return False
    return int(m["H"]) < 24 and int(m["M"]) < 60 and int(m["S"]) < 60


def resolve(tag: str, text: str) -> tuple[str, Any]:
    """go-yaml v2's ``resolve``: the tag and value of a scalar (``tag`` "" when plain and
    untagged). Raises ValueError where go-yaml fails (a value its explicit tag refuses)."""
    if tag not in _RESOLVABLE:
        return tag, text
    rtag: str = _STR
    value: Any = text
    hint = _HINT.get(text[0]) if text else "N"
    if hint is not None and tag != _STR:
        if text in _WORDS:
            value = _WORDS[text]
            rtag = _FLOAT if isinstance(value, _Bad) else _WORD_TAGS[value]
        elif hint == ".":
            if _DOT_FLOAT.match(text):
                parsed = _go_float(text.replace("_", ""))
                if parsed is not None:
                    rtag, value = _FLOAT, parsed
        elif hint in "DS":
            found = _number(text, tag)
            if found is not None:
                rtag, value = found
    if tag in ("", rtag, _STR):
        return rtag, value
    if tag == _FLOAT and rtag == _INT and not isinstance(value, _Uint):
        return _FLOAT, float(value)
    raise ValueError(f"cannot decode {_short(rtag)} `{text}` as a {_short(tag)}")


def _short(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:") :] if tag.startswith("tag:yaml.org,2002:") else tag


def _scalar_value(tag: str, text: str) -> Any:
    """What go-yaml v2 decodes a scalar to into an ``interface{}`` (a timestamp stays
    its text; ``!!binary`` is its bytes as a string)."""
    if tag == _BINARY:
        return _binary(text)
    rtag, value = resolve(tag, text)
    if rtag == _TIMESTAMP:
        return text
    return value


def _binary(text: str) -> str:
    """A ``!!binary`` scalar: base64 (line breaks ignored, as Go's decoder does) to
    bytes, made text as Go's JSON writes a string (each invalid byte U+FFFD)."""
    try:
        data = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
    except ValueError:
        raise ValueError("!!binary value contains invalid base64 data") from None
    return _go_text(data)


def _go_text(data: bytes) -> str:
    """``data`` as Go's JSON encoder writes a string: valid UTF-8 kept, every byte of
    an invalid sequence replaced by U+FFFD."""
    out: list[str] = []
    i = 0
    while i < len(data):
        for width in (1, 2, 3, 4):
            try:
                out.append(data[i : i + width].decode("utf-8"))
            except UnicodeDecodeError:
                continue
            i += width
            break
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def json_number(value: Any) -> Any:
    """A YAML number as the controller's object holds it once written as JSON and read
    back: whole numbers within int64 are integers (``1e3`` is 1000), other numbers
    floats (beyond int64, or with a fraction). A whole float is the integer its shortest
    digits write (``1152921504606846976.0`` is 1152921504606847000)."""
    if type(value) is int:
        return value
    if isinstance(value, int):  # uint64, or a bool's int
        return value if isinstance(value, bool) or value < _INT64 else float(value)
    if value.is_integer() and abs(value) < 1e21:
        # Go writes the float's shortest digits (as Python's repr), padded with zeros
        written = _written(value)
        if -_INT64 <= written < _INT64:
            return written
    return value


def _written(value: float) -> int:
    """A whole float as the integer its shortest digits (``repr``) write."""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = int(whole + fraction)
    shift = int(exponent or 0) - len(fraction)
    written: int = digits * 10**shift if shift >= 0 else digits // 10 ** (-shift)
    return -written if value < 0 else written


def key_text(value: Any) -> str:
    """A decoded key as sigs.k8s.io/yaml makes it a JSON key; ValueError for the keys it
    refuses (null, uint64)."""
    if type(value) is str:
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        raise ValueError("a null mapping key has no JSON form")
    if isinstance(value, _Uint):
        raise ValueError(f"mapping key {int(value)} is beyond int64 and has no JSON form")
    if isinstance(value, int):
        return str(value)
    return format_float32(float(value))


def format_float32(value: float) -> str:
    """Go's ``strconv.FormatFloat(value, 'g', -1, 32)`` with infinities and NaN as YAML
    writes them: how a float key becomes a JSON key."""
    if math.isnan(value):
        return ".nan"
    try:
        (single,) = struct.unpack("<f", struct.pack("<f", value))
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    digits, point = _shortest32(abs(single))
    sign = "-" if single < 0 else ""
    exp = point - 1
    if exp < -4 or exp >= 6:  # Go's %g with the shortest digits uses %e from 1e6 on
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


#: Every float32 is a whole multiple of 2**-149; bounds are half or a quarter step:
#: at this scale every quantity below is an integer.
_SCALE = 1 << 151


def _shortest32(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as the float32 ``value`` (> 0), the
    closest such (of two as close, the one ending in an even digit, as Go's Ryu), and
    the decimal point's place (``0.d1d2... x 10**point``); exact integer arithmetic."""
    num, den = value.as_integer_ratio()
    exact = num * (_SCALE // den)
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2**exponent, 0.5 <= m < 1
    if exponent - 24 < -149:  # subnormal: steps of 2**-149
        step = _SCALE >> 149
        even = (exact // step) % 2 == 0
        low = high = step // 2
    else:
        step = _SCALE >> (24 - exponent) if exponent < 24 else _SCALE << (exponent - 24)
        bits = int(mantissa * (1 << 24))
        even = bits % 2 == 0
        high = step // 2
        low = step // 4 if bits == 1 << 23 and exponent - 24 > -149 else step // 2
    lo_bound, hi_bound = exact - low, exact + high
    if exact >= _SCALE:
        top = len(str(exact // _SCALE))
    else:
        top = 0
        while exact * 10 ** (1 - top) < _SCALE:
            top -= 1
    for count in range(1, 18):
        shift = count - top  # candidates are whole numbers of 10**-shift
        up, down = (10**shift, 1) if shift >= 0 else (1, 10**-shift)
        floor = (exact * up) // (_SCALE * down)
        found = []
        for digits in (floor, floor + 1):
            scaled = digits * down * _SCALE  # the candidate times _SCALE * up
            inside = lo_bound * up <= scaled <= hi_bound * up
            if not even:
                inside = lo_bound * up < scaled < hi_bound * up
            if digits > 0 and inside:
                found.append((abs(scaled - exact * up), digits % 2, digits))
        if found:
            digits = min(found)[2]
            text = str(digits)
            return text.rstrip("0") or "0", top + (len(text) - count)
    raise AssertionError("no float32 has more than 17 significant digits")


# --- YAML 1.2's reading of a plain scalar (for the warning) ---------------------------------

_CORE_INT = re.compile(r"[-+]?[0-9]+\Z")
_CORE_OCT = re.compile(r"0o[0-7]+\Z")
_CORE_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_CORE_FLOAT = _YAML_FLOAT
_CORE_WORDS: dict[str, Any] = {
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], None),
    **dict.fromkeys(["true", "True", "TRUE"], True),
    **dict.fromkeys(["false", "False", "FALSE"], False),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], math.nan),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], math.inf),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], -math.inf),
}


def core_reading(text: str) -> Any:
    """A plain scalar as YAML 1.2's core schema reads it."""
    if text in _CORE_WORDS:
        return _CORE_WORDS[text]
    if _CORE_INT.match(text):
        return int(text)
    if _CORE_OCT.match(text):
        return int(text[2:], 8)
    if _CORE_HEX.match(text):
        return int(text[2:], 16)
    if _CORE_FLOAT.match(text):
        return float(text)
    return text


def _same(a: Any, b: Any) -> bool:
    """Whether two scalars are one JSON value (numbers by value, booleans apart)."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    return bool(a == b)


# --- the document: events to data ---------------------------------------------------

#: go-yaml v2's limit on alias expansion, by the decoding operations done so far.
_ALIAS_LOW, _ALIAS_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(count: int) -> float:
    if count <= _ALIAS_LOW:
        return 0.99
    if count >= _ALIAS_HIGH:
        return 0.10
    return 0.99 - 0.89 * (count - _ALIAS_LOW) / (_ALIAS_HIGH - _ALIAS_LOW)


class _Frame:
    """An open mapping or sequence: its data, its pending key and whether that is
    ``<<``, its anchor and the decoding operations before it."""

    __slots__ = ("anchor", "data", "key", "key_is_merge", "start")

    def __init__(self, data: Any, anchor: str | None, start: int):
        self.data = data
        self.key: Any = _NO_KEY
        self.key_is_merge = False
        self.anchor = anchor
        self.start = start


_NO_KEY = object()


class _ChunkDecoder:
    """One cut document decoded as go-yaml v2 decodes it into ``interface{}`` and as
    sigs.k8s.io/yaml then makes it JSON, in one pass over libyaml's events."""

    def __init__(self, chunk: str, first: int, file: str, plain: dict[str, Any]) -> None:
        self.chunk = chunk
        self.first = first
        self.file = file
        #: Anchors: a value and its decoding operations, or the frame still open.
        self.anchors: dict[str, tuple[Any, int] | _Frame] = {}
        self.readings: list[Reading] = []
        #: Mappings holding keys other than strings (converted once the document is built).
        self.typed: list[dict[Any, Any]] = []
        self.bad = False
        #: go-yaml's decoding operations and those under an alias.
        self.count = 0
        self.alias_count = 0
        #: Plain scalars of the stream decoded so far (:data:`_READING`: noted each time).
        self.plain = plain

    def fail(self, message: str, line: int | None) -> InputError:
        return InputError(message, file=self.file, line=line)

    def _line(self, event: Any) -> int:
        mark = event.start_mark
        return self.first + mark.line if mark is not None else self.first

    def decode(self) -> tuple[int, Any, tuple[Reading, ...]]:
        """(first line, JSON data or None, readings) of the chunk's first document."""
        try:
            return self._decode()
        except YAMLError as exc:
            error = mark_error(exc, self.file)
            if error.line is not None:
                error.line += self.first - 1
            raise error from None
        except RecursionError:
            raise self.fail(f"YAML nests deeper than {MAX_DEPTH} levels", self.first) from None

    def _decode(self) -> tuple[int, Any, tuple[Reading, ...]]:
        get = event_parser(self.chunk).get_event
        get()  # stream start
        event = get()
        if type(event) is StreamEndEvent:
            return self.first, None, ()
        if type(event) is not DocumentStartEvent:  # pragma: no cover - libyaml's order
            raise self.fail("invalid YAML: no document", self._line(event))
        self.count += 1  # the document node
        stack: list[_Frame] = []
        root: Any = _NO_KEY
        line = self.first
        plain = self.plain
        while True:
            event = get()
            kind = type(event)
            if kind is MappingEndEvent or kind is SequenceEndEvent:
                frame = stack.pop()
                value = frame.data
                if frame.anchor is not None and self.anchors.get(frame.anchor) is frame:
                    self.anchors[frame.anchor] = (value, self.count - frame.start)
            elif kind is ScalarEvent:
                if event.ctag is None and event.anchor is None and stack:  # most scalars
                    self.count += 1
                    text = event.value
                    if not event.implicit[0]:  # quoted or a block: its text
                        value = text
                    else:
                        value = plain.get(text, _NO_KEY)
                        if value is _NO_KEY or value is _READING:
                            value = self._plain(event, stack, text)
                    top = stack[-1]
                    container = top.data
                    if type(container) is dict and type(value) is str:
                        key = top.key
                        if key is _NO_KEY:
                            if value != "<<" or not event.implicit[0]:
                                top.key, top.key_is_merge = value, False
                                continue
                        elif type(key) is str and not top.key_is_merge:
                            container[key] = value
                            top.key = _NO_KEY
                            continue
                else:
                    value = self._scalar(event, stack)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                self.count += 1
                frame = _Frame(
                    {} if kind is MappingStartEvent else [], event.anchor, self.count - 1
                )
                if event.anchor is not None:  # go-yaml registers it as the node opens
                    self.anchors[event.anchor] = frame
                if not stack:
                    line = self._line(event)
                stack.append(frame)
                if len(stack) > MAX_DEPTH:
                    raise self.fail(f"YAML nests deeper than {MAX_DEPTH} levels", self._line(event))
                continue
            elif kind is AliasEvent:
                value = self._alias(event)
            else:  # the document's end: events after it are not read
                break
            if not stack:
                root = json_number(value) if isinstance(value, (int, float)) else value
                if kind is not MappingEndEvent and kind is not SequenceEndEvent:
                    line = self._line(event)
                continue
            self._place(stack[-1], value, event, kind)
        if self.count > MAX_EXPANDED_NODES:
            raise self.fail(
                f"YAML expands to more than {MAX_EXPANDED_NODES} nodes (alias bomb?)", line
            )
        if root is _NO_KEY or root is None:  # no content: where the document begins
            root, line = None, self.first
        self._finish(root, line)
        return line, root, tuple(self.readings)

    @staticmethod
    def _path(stack: list[_Frame]) -> tuple[str | int, ...]:
        """Where the next value goes: each open collection's pending key or next index
        (a frame opened as a key adds nothing)."""
        path: list[str | int] = []
        for frame in stack:
            if type(frame.data) is list:
                path.append(len(frame.data))
            elif frame.key is not _NO_KEY:
                key = frame.key
                path.append(key if type(key) is str else _key_repr(key))
        return tuple(path)

    def _scalar(self, event: Any, stack: list[_Frame]) -> Any:
        """A scalar with a tag or an anchor, or the document's root (counted)."""
        self.count += 1
        tag = event.tag or ""
        text = event.value
        if tag == "" and not event.implicit[0]:
            value: Any = text
        elif tag == "":
            value = self.plain.get(text, _NO_KEY)
            if value is _NO_KEY or value is _READING:
                value = self._plain(event, stack, text)
        else:
            try:
                value = _scalar_value(tag, text)
            except ValueError as exc:
                raise self.fail(str(exc), self._line(event)) from None
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        return value

    def _plain(self, event: Any, stack: list[_Frame], text: str) -> Any:
        """A plain untagged scalar not decoded before, or one whose readings differ
        (noted at each place it occurs)."""
        if self.plain.get(text) is _READING:
            return self._plain_with_reading(event, stack, text)
        value = _scalar_value("", text)
        if isinstance(value, _Bad):
            self.bad = True
        if _differs(text, value):
            self.plain[text] = _READING
            return self._plain_with_reading(event, stack, text)
        self.plain[text] = value
        return value

    def _plain_with_reading(self, event: Any, stack: list[_Frame], text: str) -> Any:
        """A plain scalar whose YAML 1.1 and 1.2 readings differ: its value, noted."""
        value = _scalar_value("", text)
        top = stack[-1] if stack else None
        is_key = top is not None and isinstance(top.data, dict) and top.key is _NO_KEY
        if is_key:
            assert top is not None
            try:
                eleven: Any = key_text(value)
            except ValueError:
                return value  # fails as a key: the error says so
            twelve = core_reading(text)
            twelve = twelve if isinstance(twelve, str) else _core_key(twelve)
            if eleven == twelve:
                return value
            path = (*self._path(stack), eleven)
        else:
            eleven = json_number(value) if isinstance(value, (int, float)) else value
            twelve = core_reading(text)
            path = self._path(stack)
        reading = Reading(self._line(event), path, text, shown(eleven), shown(twelve), is_key)
        self.readings.append(reading)
        return value

    def _alias(self, event: Any) -> Any:
        name = event.anchor
        self.count += 1
        found = self.anchors.get(name)
        if found is None:
            raise self.fail(f"unknown anchor '{name}' referenced", self._line(event))
        if isinstance(found, _Frame):
            raise self.fail(f"anchor '{name}' value contains itself", self._line(event))
        value, size = found
        self.count += size
        self.alias_count += size
        if (
            self.alias_count > 100
            and self.count > 1000
            and self.alias_count / self.count > _allowed_alias_ratio(self.count)
        ):
            raise self.fail("document contains excessive aliasing", self._line(event))
        if self.count > MAX_EXPANDED_NODES:
            raise self.fail(
                f"YAML expands to more than {MAX_EXPANDED_NODES} nodes (alias bomb?)",
                self._line(event),
            )
        return self._copy(value)

    def _copy(self, value: Any) -> Any:
        """A fresh copy of an anchored value (go-yaml decodes the anchored node again)."""
        if isinstance(value, dict):
            copied = {k: self._copy(v) for k, v in value.items()}
            if any(type(k) is not str for k in copied):
                self.typed.append(copied)
            return copied
        if isinstance(value, list):
            return [self._copy(v) for v in value]
        return value

    def _place(self, top: _Frame, value: Any, event: Any, kind: type) -> None:
        """``value`` into the open collection: an item, a key, or a key's value."""
        container = top.data
        if type(container) is list:
            if type(value) is not str and isinstance(value, (int, float)):
                value = json_number(value)
            container.append(value)
            return
        if top.key is _NO_KEY:
            if isinstance(value, (dict, list)):
                raise self.fail(
                    "a mapping or sequence as a mapping key has no JSON form", self._line(event)
                )
            top.key_is_merge = (
                kind is ScalarEvent
                and event.value == "<<"
                and (event.implicit[0] or event.tag == _MERGE)
            )
            if top.key_is_merge:
                self.count -= 1  # go-yaml does not decode a merge key
            top.key = value
            return
        key = top.key
        top.key = _NO_KEY
        if type(value) is not str and isinstance(value, (int, float)):
            value = json_number(value)
        if top.key_is_merge:
            self._merge(container, value, kind, event)
            return
        if type(key) is not str:
            key = _Key.of(key)
            if not any(type(k) is _Key for k in container):
                self.typed.append(container)
        container[key] = value

    def _merge(self, container: dict[Any, Any], value: Any, kind: type, event: Any) -> None:
        """``<<: value`` as go-yaml v2 merges: the mapping's keys set in order over the
        keys so far; a sequence's mappings from last to first (the first wins)."""
        if isinstance(value, dict):
            maps = [value]
        elif isinstance(value, list) and kind is SequenceEndEvent:
            self.count -= 1  # go-yaml decodes the items, not the sequence
            maps = list(reversed(value))
        else:
            maps = [value]
        if any(not isinstance(m, dict) for m in maps):
            raise self.fail(
                "map merge requires map or sequence of maps as the value", self._line(event)
            )
        for merged in maps:
            for key, item in merged.items():
                if type(key) is _Key and not any(type(k) is _Key for k in container):
                    self.typed.append(container)
                container[key] = item

    def _finish(self, root: Any, line: int) -> None:
        """The document made JSON: keys strings, no NaN or infinity."""
        for mapping in self.typed:
            items = list(mapping.items())
            mapping.clear()
            for key, value in items:
                text = key.text(self.file, line) if type(key) is _Key else key
                if text in mapping and mapping[text] != value:
                    raise self.fail(
                        f"key {text!r} appears twice once keys are strings (as in JSON): "
                        "BKE's controller keeps either value",
                        line,
                    )
                mapping[text] = value
        if self.bad and _holds_bad(root):
            raise self.fail(".nan and .inf have no JSON form: BKE's controller fails on them", line)


_READING = object()


def _differs(text: str, value: Any) -> bool:
    """Whether a plain scalar's YAML 1.1 value is not its YAML 1.2 reading."""
    if isinstance(value, _Bad):
        return False  # an error either way
    if type(value) is str:
        return bool(text) and text[0] in _HINT and not isinstance(core_reading(text), str)
    twelve = core_reading(text)
    return not _same(json_number(value) if isinstance(value, (int, float)) else value, twelve)


def shown(value: Any) -> str:
    """A scalar reading as a message shows it: JSON, and YAML's words for what JSON
    has none for (``.inf``, ``.nan``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    return json.dumps(value)


def _core_key(value: Any) -> str:
    """A YAML 1.2 reading as a JSON key, written as the YAML 1.1 keys are."""
    if value is True or value is False or value is None:
        return json.dumps(value)
    return key_text(value) if math.isfinite(value) else format_float32(value)


def _key_repr(value: Any) -> str:
    try:
        return key_text(value)
    except ValueError:
        return str(value)


class _Key:
    """A mapping key that is not a string, kept apart from the string it becomes (and
    from ``True`` and ``1``, equal in Python, distinct in Go) until the document is
    made JSON."""

    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value: Any) -> None:
        self.kind = kind
        self.value = value

    @classmethod
    def of(cls, value: Any) -> _Key:
        if isinstance(value, bool) or value is None:
            return cls("bool" if value is not None else "null", value)
        if isinstance(value, _Uint):
            return cls("uint", int(value))
        if isinstance(value, int):
            return cls("int", value)
        return cls("float", float(value))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Key) or other.kind != self.kind:
            return False
        if self.kind == "float" and math.isnan(self.value):
            return False  # Go's map keeps every NaN key apart
        return bool(self.value == other.value)

    def __hash__(self) -> int:
        return hash((self.kind, self.value))

    def text(self, file: str, line: int) -> str:
        try:
            return key_text(_Uint(self.value) if self.kind == "uint" else self.value)
        except ValueError as exc:
            raise InputError(f"{exc}: BKE's controller fails on it", file=file, line=line) from None


def _holds_bad(root: Any) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Bad):
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


# --- JSON numbers, the unstructured object, the list step -----------------------------------


def _objects(doc: tuple[int, Any, tuple[Reading, ...]], file: str) -> list[Document]:
    """The objects the controller applies of one decoded document (the unstructured
    decoding and its list step), or the error it fails with."""
    line, data, readings = doc
    if data is None:
        raise InputError(
            "empty document (only blank lines, comments or null before the next ---): "
            "BKE's controller fails on it",
            file=file,
            line=line,
        )
    if not isinstance(data, dict):
        name = {list: "sequence", str: "string", bool: "boolean"}.get(type(data), "number")
        raise InputError(
            f"document is a {name}, not a Kubernetes object: BKE's controller fails on it",
            file=file,
            line=line,
        )
    if "items" in data:
        data = _list_items(data, file, line)
    kind = data.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError(
            "object has no kind (a non-empty string): BKE's controller fails on it",
            file=file,
            line=line,
            key="kind",
        )
    if kind in LIST_KINDS:  # its items (none without items); the readings go with the first
        items = data.get("items", [])
        return [Document(line, item, readings if i == 0 else ()) for i, item in enumerate(items)]
    return [Document(line, data, readings)]


def _list_items(data: dict[str, Any], file: str, line: int) -> dict[str, Any]:
    """A document with a top-level ``items`` as apimachinery reads a list: items must
    be objects (null: an empty one); an item without kind and apiVersion takes the
    list's apiVersion and its kind without ``List``."""
    items = data["items"]
    if items is None:
        items = []
    if not isinstance(items, list):
        raise InputError(
            "items is not a list: BKE's controller fails on it", file=file, line=line, key="items"
        )
    kind = data.get("kind")
    api = data.get("apiVersion")
    item_kind = kind.removesuffix("List") if isinstance(kind, str) else ""
    out: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if item is None:
            item = {}
        if not isinstance(item, dict):
            raise InputError(
                f"items[{index}] is not an object: BKE's controller fails on it",
                file=file,
                line=line,
                key=f"items[{index}]",
            )
        if not _text_field(item, "kind") and not _text_field(item, "apiVersion"):
            item["kind"] = item_kind
            item["apiVersion"] = api if isinstance(api, str) else ""
        out.append(item)
    data = dict(data)
    del data["items"]
    data["items"] = out
    return data


def _text_field(data: dict[str, Any], key: str) -> str:
    """``data[key]`` when it is a string, else "" (apimachinery's ``NestedString``)."""
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _decode_json(text: str, file: str) -> list[Document]:
    """A JSON stream (the first non-space character is ``{``): one object per JSON
    value, as Go's JSON decoder reads them one after another."""
    decoder = json.JSONDecoder(
        parse_constant=_no_constant, parse_float=_json_float, parse_int=_json_int
    )
    out: list[Document] = []
    at = 0
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at == len(text):
            return out
        line = text.count("\n", 0, at) + 1
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"invalid JSON: {exc}", file=file, line=line) from None
        out.extend(_objects((line, value, ()), file))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_int(text: str) -> Any:
    return json_number(int(text)) if -_INT64 <= int(text) < _INT64 else _json_float(text)


def _json_float(text: str) -> Any:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is beyond float64")
    return json_number(value)
