"""BKE's controller's decoding (tests/go/decode) beside ours, for the decode parity tests
and the measurement script: run the Go program on many streams at once, and say where
two decodings of a stream differ."""

from __future__ import annotations

import json
import math
import random
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renderer.errors import InputError


@dataclass(frozen=True)
class Decoded:
    """What a decoder made of a stream: the objects it applies, or its error."""

    objects: tuple[Any, ...] | None
    error: str | None = None


def run_go(binary: Path, streams: Sequence[str]) -> list[Decoded]:
    """The controller's decoding of each stream (one run of the Go program)."""
    result = subprocess.run(
        [str(binary), "-batch"],
        input=json.dumps(list(streams)).encode("utf-8"),
        capture_output=True,
        check=False,
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"the Go decoder failed: {result.stderr.decode(errors='replace')}")
    out = []
    for found in json.loads(result.stdout):
        if found["error"] is not None:
            out.append(Decoded(None, found["error"]))
        else:
            out.append(Decoded(tuple(found["objects"])))
    return out


def our_decode(parse: Callable[[str], Sequence[Any]], text: str) -> Decoded:
    """``parse`` (a stream to its objects' data) as a :class:`Decoded`."""
    try:
        return Decoded(tuple(parse(text)))
    except InputError as exc:
        return Decoded(None, str(exc))


def canonical(value: Any) -> Any:
    """A JSON value compared as the cluster receives it: numbers within int64 that are
    integers as integers, every other number as a float (Go writes a float64 without a
    fraction as an integer's digits), booleans apart from numbers, objects unordered."""
    if isinstance(value, dict):
        return ("object", sorted((k, canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", [canonical(v) for v in value])
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, int) and -(1 << 63) <= value < 1 << 63:
        return ("int", value)
    if isinstance(value, float) and math.isfinite(value) and abs(value) >= 1 << 63:
        return ("float", value)
    if isinstance(value, float) and value.is_integer():
        return ("int", int(value))
    return ("float", float(value))


def difference(go: Decoded, ours: Decoded) -> str | None:
    """How our decoding differs from the controller's (None: they agree): the same
    objects, JSON-equal, or both an error."""
    if go.objects is None or ours.objects is None:
        if go.objects is None and ours.objects is None:
            return None
        if go.objects is None:
            return f"Go fails ({go.error}), ours gives {list(ours.objects or ())}"
        return f"Go gives {list(go.objects)}, ours fails ({ours.error})"
    if len(go.objects) != len(ours.objects):
        return f"Go gives {len(go.objects)} objects, ours {len(ours.objects)}"
    for i, (a, b) in enumerate(zip(go.objects, ours.objects, strict=True)):
        if canonical(a) != canonical(b):
            return f"object {i}: Go {json.dumps(a)[:300]}, ours {json.dumps(b)[:300]}"
    return None


# --- the scalar fuzz -------------------------------------------------------------------------

_WORDS = [
    "y",
    "Y",
    "n",
    "N",
    "yes",
    "Yes",
    "YES",
    "yEs",
    "no",
    "No",
    "NO",
    "nO",
    "on",
    "On",
    "ON",
    "oN",
    "off",
    "Off",
    "OFF",
    "oFf",
    "true",
    "True",
    "TRUE",
    "tRUE",
    "false",
    "False",
    "FALSE",
    "null",
    "Null",
    "NULL",
    "nULL",
    "~",
    ".nan",
    ".NaN",
    ".NAN",
    ".inf",
    ".Inf",
    ".INF",
    "+.inf",
    "-.inf",
    "-.Inf",
    "+.INF",
    ".iNf",
    "inf",
    "nan",
    "Infinity",
    "<<",
]
_TEXT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_TAIL = _TEXT + "0123456789_.-+:/~=@%$()"


def _digits(rng: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def _underscored(rng: random.Random, text: str) -> str:
    """``text`` with an underscore put in here and there (go-yaml drops them)."""
    out = []
    for c in text:
        out.append(c)
        if rng.random() < 0.15:
            out.append("_")
    return "".join(out)


def _number(rng: random.Random) -> str:
    sign = rng.choice(["", "", "", "-", "+"])
    shape = rng.randrange(12)
    if shape == 0:
        body = "0" + _digits(rng, "01234567", 1, 4)  # octal in YAML 1.1
    elif shape == 1:
        body = "0" + _digits(rng, "0123456789", 1, 4)  # 08, 09: not octal
    elif shape == 2:
        body = rng.choice(["0x", "0X"]) + _digits(rng, "0123456789abcdefABCDEFg", 0, 8)
    elif shape == 3:
        body = rng.choice(["0o", "0O"]) + _digits(rng, "012345678", 0, 6)
    elif shape == 4:
        body = rng.choice(["0b", "0B"]) + _digits(rng, "012", 0, 12)
    elif shape == 5:
        body = str(rng.choice([1 << 63, (1 << 63) - 1, (1 << 64) - 1, 1 << 64, 10**20, 10**30]))
        body = str(int(body) + rng.randint(-2, 2))
    elif shape == 6:
        body = _digits(rng, "0123456789", 1, 6) + "." + _digits(rng, "0123456789", 0, 6)
    elif shape == 7:
        body = "." + _digits(rng, "0123456789", 0, 5)
    elif shape == 8:
        mantissa = _digits(rng, "0123456789", 1, 4) + rng.choice(["", ".", ".5", ".25"])
        body = mantissa + rng.choice("eE") + rng.choice(["", "+", "-"])
        body += _digits(rng, "0123456789", 0, 3)
    elif shape == 9:
        body = ":".join(_digits(rng, "0123456789", 1, 2) for _ in range(rng.randint(2, 3)))
    elif shape == 10:
        body = f"{rng.randint(1900, 2100)}-{rng.randint(0, 13)}-{rng.randint(0, 32)}"
        body += rng.choice(["", "T10:20:30Z", " 10:20:30", "t1:2:3.5+01:00", "T25:00:00Z"])
    else:
        body = _digits(rng, "0123456789", 1, 8)
    if rng.random() < 0.25:
        body = _underscored(rng, body)
    return sign + body


def _word(rng: random.Random) -> str:
    word = rng.choice(_WORDS)
    if rng.random() < 0.2:
        word = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)
    if rng.random() < 0.1:
        word += rng.choice(["x", "1", "s", "_", "."])
    return word


def _text(rng: random.Random) -> str:
    head = rng.choice(_TEXT + "0123456789.+-~")
    return head + _digits(rng, _TAIL, 0, 10)


def scalar(rng: random.Random) -> str:
    """A plain scalar to decode: a YAML 1.1 word, a number of any notation, or text."""
    pick = rng.random()
    if pick < 0.3:
        return _word(rng)
    if pick < 0.8:
        return _number(rng)
    return _text(rng)


def scalars(seed: int, count: int) -> list[str]:
    """``count`` distinct plain scalars, the same for a seed."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        text = scalar(rng)
        if text not in ("kind", "") and not text.endswith(":"):
            seen.setdefault(text, None)
    return list(seen)


def scalar_streams(texts: Sequence[str]) -> list[str]:
    """Each scalar as a value, as a sequence item and as a key of an object."""
    out = []
    for text in texts:
        out.append(f"kind: Fuzz\nvalue: {text}\n")
        out.append(f"kind: Fuzz\nlist:\n- {text}\n")
        out.append(f"kind: Fuzz\n{text}: key\n")
    return out
