"""Values that change the YAML a template wrote.

The controller renders any value, whatever its characters; a value with a line break,
a quote or a ``: `` can add an object, a key or a list item the template never wrote,
or break the document. Such a render is still Go's bytes (``template`` prints them);
``render`` and ``check`` report it. The test compares structures: the rendered text,
and the same text with every printed value that holds more than inert characters
replaced by a neutral placeholder. When the two parse to different shapes (the
sequence of YAML events, scalars' text aside) or only the placeholder version parses,
the values wrote structure; each value is then tried alone to name the one(s) that did.

Pure: text and the spans actions printed (:class:`renderer.engine.gotemplate.Printed`)
in, the injections out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from renderer.k8s.yamlio import yaml_shape

if TYPE_CHECKING:
    from renderer.engine.gotemplate import Printed

#: What a value becomes in the comparison render: text that is a plain scalar anywhere.
PLACEHOLDER = "x"
#: Values tried one by one when naming the culprits (the first render already told
#: that some value injects; more would only cost time on an adversarial file).
MAX_SUSPECTS = 64


@dataclass(frozen=True)
class Injection:
    """A printed value that changed the YAML structure: the key it came from, its text,
    the template line that printed it."""

    key: str
    value: str
    line: int


def _replaced(text: str, spans: Sequence[Printed], keep: Printed | None = None) -> str:
    parts: list[str] = []
    at = 0
    for p in spans:
        parts.append(text[at : p.start])
        parts.append(text[p.start : p.end] if p is keep else PLACEHOLDER)
        at = p.end
    parts.append(text[at:])
    return "".join(parts)


def find_injections(text: str, printed: Sequence[Printed]) -> list[Injection]:
    """The printed values of ``text`` that change its YAML structure (see the module)."""
    if not printed:
        return []
    spans = sorted(printed, key=lambda p: p.start)
    neutral = yaml_shape(_replaced(text, spans))
    if neutral is None:
        return []  # the template's own text does not parse: not a value's doing
    if yaml_shape(text) == neutral:
        return []
    found = []
    for p in spans[:MAX_SUSPECTS]:
        if yaml_shape(_replaced(text, spans, keep=p)) != neutral:
            found.append(Injection(p.key, text[p.start : p.end], p.line))
    if not found:  # only together: name them all
        found = [Injection(p.key, text[p.start : p.end], p.line) for p in spans[:MAX_SUSPECTS]]
    return found
