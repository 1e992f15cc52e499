"""Stage 3, render: a version directory and a context to rendered files.

Files render one by one in name order, as BKE's controller does, each with one context
(the same for all, or the file's own, as the controller builds them); a file whose path
contains ``noexecute`` is passed through verbatim, as the controller applies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .compile import compile_file
from .sourcemap import SourceMap
from .tree import TemplateFile, VersionDir
from .yamlio import read_text


@dataclass(frozen=True)
class RenderedFile:
    """A rendered template file; ``lines`` maps each rendered line to the template line
    that produced it (None when unknown, e.g. text not rendered here)."""

    name: str
    text: str
    lines: SourceMap | None = field(default=None, compare=False, repr=False)

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
    from ``contexts`` (by file name) when given; verbatim files are read, not rendered."""
    out = []
    for tf in version.files:
        name = f"{version.name}/{tf.name}"
        if is_verbatim(version, tf):
            text = read_text(tf.path)
            out.append(RenderedFile(name, text, SourceMap.identity(text)))
            continue
        ctx = contexts[tf.name] if contexts is not None else context
        text, lines = compile_file(tf).render_mapped(ctx)
        out.append(RenderedFile(name, text, lines))
    return out


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


def join_stream(files: list[RenderedFile]) -> str:
    """One multi-document stream, each non-empty file headed by its source like Helm."""
    parts = []
    for f in files:
        if f.empty:
            continue
        text = f.text if f.text.endswith("\n") else f.text + "\n"
        parts.append(f"---\n# Source: calico/{f.name}\n{text.lstrip(chr(10))}")
    return "".join(parts)
