"""Values that change the YAML a template wrote.

The controller renders any value, whatever its characters; a value with a line break,
a quote or a ``: `` can add an object, a key or a list item the template never wrote,
or break the document. Such a render is still Go's bytes (``template`` prints them);
``render`` and ``check`` report it. The test compares structures: the rendered text,
and the same text with every printed value that holds more than inert characters
replaced by a neutral placeholder. When the two parse to different shapes (the
sequence of YAML events, scalars' text aside) or only the placeholder version parses,
the values wrote structure; each value is then tried alone to name the one(s) that did.

Pure: text and the spans actions printed (:class:`renderer.engine.sourcemap.Printed`)
in, the injections out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from renderer.engine.sourcemap import Printed
from renderer.store import cache

#: What a value becomes in the comparison render: text that is a plain scalar anywhere.
PLACEHOLDER = "x"
#: Values tried one by one when naming the culprits (the first render already told
#: that some value injects; more would only cost time on an adversarial file).
MAX_SUSPECTS = 64


@dataclass(frozen=True, slots=True)
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
    """The printed values of ``text`` that change its YAML structure (see the module).

    A pure function of the text and the spans, which reads the text as YAML at least
    twice: its answer is kept in the result cache under their content, so a repeated
    render does not parse its output again for it."""
    if not printed:
        return []
    spans = sorted(printed, key=lambda p: p.start)
    key = cache.key("injections", text, repr([(p.start, p.end, p.line, p.key) for p in spans]))
    stored = cache.get("injections", key, _valid_injections)
    if stored is not None:
        return [Injection(k, v, line) for k, v, line in stored]
    found = judge(text, spans)
    cache.put("injections", key, [[i.key, i.value, i.line] for i in found])
    return found


def _valid_injections(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(i, list)
        and len(i) == 3
        and isinstance(i[0], str)
        and isinstance(i[1], str)
        and type(i[2]) is int
        for i in value
    )


#: What makes cutting a stream at its ``---`` lines unsafe: directives, document end
#: markers, content after a ``---`` on its line, a byte order mark.
#: Both searched in the text after a line break (``"\\n" + text``): a search for the
#: line break is fast, where ``^`` with MULTILINE tries every position of a long text.
#: Patterns, compiled (and kept by ``re``) when a judgement is first made: one kept in
#: the cache needs neither.
_UNSPLITTABLE = r"\n(?:%|\.\.\.|---[ \t]+[^ \t#\r\n])"
#: A document start line: ``---`` at the start of a line, then only blanks or a comment.
_DOCUMENT_START = r"\n---(?=[ \t\r\n]|\Z)[^\n]*"


def _documents(text: str, spans: Sequence[Printed]) -> list[tuple[int, int]] | None:
    """``text`` cut at its ``---`` lines that no printed span touches, as (start, end)
    offsets of the texts between them; None when the stream cannot be cut safely.

    A ``---`` at the start of a line always ends what precedes it (a block scalar, a
    mapping; inside a quoted or flow scalar it is an error either way), and the same
    lines stand in the text with values and in the one with placeholders, so the two
    texts have one shape exactly when each piece that holds a printed value has one
    shape in both.
    """
    padded = "\n" + text  # a match starts at the line break before its line
    if "\ufeff" in text or re.search(_UNSPLITTABLE, padded):
        return None
    out: list[tuple[int, int]] = []
    at = 0
    i = 0
    for m in re.finditer(_DOCUMENT_START, padded):
        begin = m.start()  # the line, in ``text``: [begin, end) and its line break
        end = m.end() - 1 + (padded[m.end() : m.end() + 1] == "\n")
        while i < len(spans) and spans[i].end < begin:
            i += 1
        if i < len(spans) and spans[i].start < end:
            continue  # a value prints into this line or the line break before it
        out.append((at, begin))
        at = end
    out.append((at, len(text)))
    return out


def _unchanged(text: str, spans: Sequence[Printed]) -> bool:
    """True when certainly no value changed the structure: every document holding a
    printed value parses, and to the shape it has with placeholders for the values.
    Only those documents are read (a 7,600-line render prints into a few of them); any
    doubt (False) leaves the answer to reading the whole text."""
    from renderer.k8s.yamlio import yaml_shape  # a judgement kept in the cache needs none

    cuts = _documents(text, spans)
    if cuts is None:
        return False
    i = 0
    for start, end in cuts:
        inside = []
        while i < len(spans) and spans[i].start < end:
            if spans[i].start < start or spans[i].end > end:
                return False
            inside.append(spans[i])
            i += 1
        if not inside:
            continue
        piece = text[start:end]
        moved = [Printed(p.start - start, p.end - start, p.line, p.key) for p in inside]
        shape = yaml_shape(piece)
        if shape is None or shape != yaml_shape(_replaced(piece, moved)):
            return False
    return i == len(spans)


def judge(text: str, spans: Sequence[Printed]) -> list[Injection]:
    """The injections of ``text`` judged afresh (what :func:`find_injections` keeps):
    none when the documents holding values keep their shape, else
    :func:`judge_whole`."""
    if _unchanged(text, spans):
        return []
    return judge_whole(text, spans)


def judge_whole(text: str, spans: Sequence[Printed]) -> list[Injection]:
    """The injections of ``text``, the whole stream read with values and with
    placeholders, then once per suspect value."""
    from renderer.k8s.yamlio import yaml_shape

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
