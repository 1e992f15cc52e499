"""Stage 3, render: a version directory and a context to rendered files.

Files render one by one in name order, as BKE's controller does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import limits
from .compile import compile_file
from .errors import TemplateError
from .tree import VersionDir


@dataclass(frozen=True)
class RenderedFile:
    name: str
    text: str

    @property
    def empty(self) -> bool:
        """True when nothing but whitespace and comments was rendered."""
        return all(
            not line.strip() or line.lstrip().startswith("#") or line.strip() == "---"
            for line in self.text.splitlines()
        )


def render_version(version: VersionDir, context: Mapping[str, Any]) -> list[RenderedFile]:
    """Render every template of ``version`` with ``context``; the files together are
    bounded by the same output limit as one file."""
    out: list[RenderedFile] = []
    total = 0
    for tf in version.files:
        text = compile_file(tf).render(context)
        total += len(text)
        if total > limits.MAX_OUTPUT_CHARS:
            raise TemplateError(limits.output_message(), file=tf.display)
        out.append(RenderedFile(f"{version.name}/{tf.name}", text))
    return out


def version_keys(version: VersionDir) -> frozenset[str]:
    """The context keys the templates of ``version`` read."""
    keys: set[str] = set()
    for tf in version.files:
        keys |= compile_file(tf).keys
    return frozenset(keys)


def join_stream(files: list[RenderedFile]) -> str:
    """One multi-document stream, each non-empty file headed by its source like Helm."""
    parts = []
    for f in files:
        if f.empty:
            continue
        text = f.text if f.text.endswith("\n") else f.text + "\n"
        parts.append(f"---\n# Source: calico/{f.name}\n{text.lstrip(chr(10))}")
    return "".join(parts)
