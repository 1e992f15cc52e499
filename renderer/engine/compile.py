"""Stage 2, compile template: Go ``text/template`` or Jinja2 source to a renderable.

Dispatches on the dialect: Go templates are parsed by :mod:`renderer.engine.gotemplate`
(and interpreted when rendered), Jinja2 ones compiled in the bounded sandbox of
:mod:`renderer.engine.jinja`. Templates are kept by content hash, so a version rendered
for several scenarios is compiled once.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from typing import Any, Protocol

from renderer.engine import limits
from renderer.engine.gotemplate import compile_go
from renderer.engine.sourcemap import SourceMap
from renderer.errors import InputError
from renderer.manifests.tree import ADDON, TemplateFile
from renderer.store.memo import Memo


class CompiledTemplate(Protocol):
    """What the render stage needs from either dialect."""

    name: str
    keys: frozenset[str]

    def render(self, context: Mapping[str, Any]) -> str: ...

    def render_mapped(self, context: Mapping[str, Any]) -> tuple[str, SourceMap]: ...


#: Compiled templates by (dialect, file, template name, content digest). The bundled
#: tree has 11 files; the bound leaves room for a service checking many trees.
_CACHE: Memo[tuple[str, str, str, str], CompiledTemplate] = Memo("engine.compiled", 256)
_LOCK = threading.Lock()


def source_digest(source: str) -> str:
    """The content key of a template: compile cache, capability memo."""
    return hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest()


def compile_source(
    source: str,
    name: str,
    dialect: str,
    *,
    digest: str | None = None,
    template_name: str = ADDON,
) -> CompiledTemplate:
    """Compile ``source`` (read from ``name``) in ``dialect`` ("go" or "jinja2"),
    cached by content. A Go template is named ``template_name``, as the controller
    names it after the addon."""
    cache_key = (dialect, name, template_name, digest or source_digest(source))
    with _LOCK:
        cached = _CACHE.get(cache_key)
    if cached is not None:
        return cached
    compiled: CompiledTemplate
    limits.check_actions(source, name, dialect)
    if dialect == "go":
        compiled = compile_go(source, name, template_name=template_name)
    elif dialect == "jinja2":
        from renderer.engine.jinja import JinjaTemplate  # Jinja2 is heavy; Go-only trees skip it

        compiled = JinjaTemplate(source, name)
    else:
        raise InputError(
            f"unknown dialect {dialect!r}; use go or jinja2", key="dialect", argument="dialect"
        )
    with _LOCK:
        _CACHE[cache_key] = compiled
    return compiled


def compile_file(template: TemplateFile) -> CompiledTemplate:
    """The compiled template of a file, cached by its content, named as the controller
    names it (after its addon)."""
    return compile_source(
        template.source,
        template.display,
        template.dialect,
        digest=template.digest,
        template_name=template.template,
    )
