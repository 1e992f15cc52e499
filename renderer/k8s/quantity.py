"""Kubernetes resource quantities ("250m", "1Gi", "0.5", "1e3") as exact numbers."""

from __future__ import annotations

import re
from fractions import Fraction

_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+|[A-Za-z]*)$")
#: A quantity's suffix -> its factor: the small decimal ones, then k..E (powers of 1000)
#: and Ki..Ei (powers of 1024), as Kubernetes defines them.
_SUFFIX = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    **{s: Fraction(1000**power) for power, s in enumerate("kMGTPE", start=1)},
    **{f"{s}i": Fraction(1024**power) for power, s in enumerate("KMGTPE", start=1)},
}


def quantity(text: object) -> Fraction | None:
    """A Kubernetes resource quantity ("250m", "1Gi", "0.5", "1e3") as a number; None when
    it is not one."""
    if isinstance(text, bool) or text is None:
        return None
    match = _QUANTITY.match(str(text).strip())
    if not match:
        return None
    number, suffix = match.groups()
    if suffix[:1] in ("e", "E") and suffix[1:].lstrip("+-").isdigit():
        return Fraction(number) * Fraction(10) ** int(suffix[1:])
    scale = _SUFFIX.get(suffix)
    return None if scale is None else Fraction(number) * scale
