"""Stage 3, render: a version directory and a context to rendered files.

Files render one by one in name order, as BKE's controller does, each with one context
(the same for all, or the file's own, as the controller builds them); a file whose path
contains ``noexecute`` is passed through verbatim, as the controller applies it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from renderer.engine import limits
from renderer.engine.compile import CompiledTemplate, compile_file
from renderer.engine.sourcemap import Printed, SourceMap
from renderer.errors import TemplateError
from renderer.manifests.tree import TemplateFile, VersionDir


@dataclass(frozen=True, slots=True)
class RenderedFile:
    """A rendered template file; ``lines`` maps each rendered line to the template line
    that produced it (None when unknown, e.g. text not rendered here). Compared and
    hashed by name and text: the map and the printed spans are how, not what."""

    name: str
    text: str
    lines: SourceMap | None = field(default=None, compare=False, repr=False)
    #: What actions printed from the context beyond inert text (Go dialect), for
    #: :func:`renderer.k8s.injection.find_injections`.
    printed: tuple[Printed, ...] = field(default=(), compare=False, repr=False)

    @property
    def empty(self) -> bool:
        """True when nothing but whitespace and comments was rendered."""
        return all(
            not line.strip() or line.lstrip().startswith("#") or line.strip() == "---"
            for line in self.text.splitlines()
        )


#: The controller applies a file whose path contains this verbatim, never rendering it.
VERBATIM_MARK = "noexecute"


def is_verbatim(version: VersionDir, template: TemplateFile) -> bool:
    """Whether the controller applies ``template`` as is (its path names ``noexecute``)."""
    return VERBATIM_MARK in f"{version.name}/{template.name}"


def render_version(
    version: VersionDir,
    context: Mapping[str, Any],
    contexts: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[RenderedFile]:
    """Render every template of ``version`` with ``context``, or with its own context
    from ``contexts`` (by file name) when given; verbatim files are read, not rendered.
    The files together are bounded by the same output limit as one file."""
    out: list[RenderedFile] = []
    total = 0
    for tf in version.files:
        name = f"{version.name}/{tf.name}"
        if is_verbatim(version, tf):
            text = tf.source
            lines = SourceMap.identity(text)
        printed: tuple[Printed, ...] = ()
        if not is_verbatim(version, tf):
            ctx = contexts[tf.name] if contexts is not None else context
            text, lines, printed = render_file(version, tf, ctx)
        total += len(text)
        if total > limits.MAX_OUTPUT_CHARS:
            raise TemplateError(limits.output_message(), file=tf.display)
        out.append(RenderedFile(name, text, lines, printed))
    return out


def render_file(
    version: VersionDir, tf: TemplateFile, ctx: Mapping[str, Any]
) -> tuple[str, SourceMap, tuple[Printed, ...]]:
    """One template rendered with ``ctx``, with its source map and printed spans."""
    compiled: CompiledTemplate = compile_file(tf)
    traced = getattr(compiled, "render_traced", None)  # the Go dialect
    if traced is not None:
        text, lines, found = traced(ctx)
        return text, lines, tuple(found)
    text, lines = compiled.render_mapped(ctx)
    return text, lines, ()


def version_keys(version: VersionDir) -> frozenset[str]:
    """The context keys the templates of ``version`` read (verbatim files read none)."""
    keys: set[str] = set()
    for tf in version.files:
        if not is_verbatim(version, tf):
            keys |= compile_file(tf).keys
    return frozenset(keys)


def version_nested_keys(version: VersionDir) -> dict[str, frozenset[str]]:
    """Per file, the keys its template reads with a further field (``.A.B``)."""
    out: dict[str, frozenset[str]] = {}
    for tf in version.files:
        if is_verbatim(version, tf):
            continue
        nested: frozenset[str] = getattr(compile_file(tf), "nested_keys", frozenset())
        if nested:
            out[tf.name] = frozenset(nested)
    return out


_SEPARATOR = re.compile(r"^---(?:[ \t]+(.*))?$")
#: Line breaks ``str.splitlines`` honours besides ``\n``.
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
#: :data:`_SEPARATOR` after its line break, in a text whose only line break is ``\n``.
_SEPARATOR_LINE = re.compile(r"\n---(?:[ \t]+([^\n]*))?(?=\n|\Z)")


def documents(text: str) -> list[str]:
    """The documents of a rendered file, split at its ``---`` lines (a rest of the line,
    such as ``--- # note``, stays as the document's first line); whitespace-only
    documents are dropped, as ``helm template`` drops them."""
    if any(b in text for b in _OTHER_BREAKS):
        return _documents_by_line(text)
    docs: list[str] = []
    at = 0
    first = ""
    for m in _SEPARATOR_LINE.finditer("\n" + text):  # one search, not a match per line
        docs.append(first + text[at : m.start()])
        first = m.group(1) + "\n" if m.group(1) else ""
        end = m.end() - 1  # where the separator line ends, in ``text``
        at = end + (text[end : end + 1] == "\n")  # past its line break
    docs.append(first + text[at:])
    return [body if body.endswith("\n") else body + "\n" for body in docs if body.strip()]


def _documents_by_line(text: str) -> list[str]:
    """:func:`documents` line by line, with every line break ``splitlines`` knows."""
    docs: list[list[str]] = [[]]
    for line in text.splitlines(keepends=True):
        m = _SEPARATOR.match(line.rstrip("\r\n"))
        if m:
            docs.append([m.group(1) + "\n"] if m.group(1) else [])
            continue
        docs[-1].append(line)
    out = []
    for doc in docs:
        body = "".join(doc)
        if body.strip():
            out.append(body if body.endswith("\n") else body + "\n")
    return out


def version_nested_lines(version: VersionDir) -> dict[str, dict[str, int]]:
    """Per file, the template line where each key read as a map is first read."""
    out: dict[str, dict[str, int]] = {}
    for tf in version.files:
        if not is_verbatim(version, tf):
            lines: dict[str, int] = getattr(compile_file(tf), "nested_lines", {})
            if lines:
                out[tf.name] = dict(lines)
    return out


def join_stream(files: list[RenderedFile]) -> str:
    """One multi-document stream; like ``helm template``, every document starts with
    ``---`` and a ``# Source:`` comment naming its template file."""
    parts: list[str] = []
    for f in files:
        if f.empty:
            continue
        source = f"---\n# Source: calico/{f.name}\n"
        parts.extend(source + doc for doc in documents(f.text))
    return "".join(parts)
