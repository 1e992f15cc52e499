"""Stage 2, compile template: Go ``text/template`` or Jinja2 source to a renderable.

Both dialects end as Jinja2 templates running in a ``SandboxedEnvironment``; the Go
dialect is parsed into its own AST and compiled to Jinja2 nodes by
:mod:`renderer.gotemplate`. Compiled templates are cached by content hash, so a version
rendered for several scenarios is compiled once.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Protocol

import jinja2
import jinja2.meta
from jinja2.sandbox import SandboxedEnvironment

from .errors import InputError, TemplateError
from .tree import TemplateFile
from .yamlio import read_text


class CompiledTemplate(Protocol):
    """What the render stage needs from either dialect."""

    name: str
    keys: frozenset[str]

    def render(self, context: Mapping[str, Any]) -> str: ...


_JINJA_ENV: SandboxedEnvironment | None = None
_CACHE: dict[tuple[str, str, str], CompiledTemplate] = {}
_LOCK = threading.Lock()


def jinja_environment() -> SandboxedEnvironment:
    """The sandbox for the Jinja2 dialect: undefined names are errors, text kept as is."""
    global _JINJA_ENV
    if _JINJA_ENV is None:
        _JINJA_ENV = SandboxedEnvironment(
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            auto_reload=False,
        )
    return _JINJA_ENV


def _template_line(tb: TracebackType | None, name: str) -> int | None:
    """The template line of the innermost frame Jinja attributes to ``name``."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == name:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class JinjaTemplate:
    """A Jinja2-dialect template; an undefined variable is an error naming it."""

    def __init__(self, source: str, name: str) -> None:
        env = jinja_environment()
        self.name = name
        try:
            ast = env.parse(source, name=name, filename=name)
            self.keys = frozenset(jinja2.meta.find_undeclared_variables(ast))
            self._template = env.from_string(ast)
            self._template.filename = name
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(exc.message or "syntax error", file=name, line=exc.lineno) from None

    def render(self, context: Mapping[str, Any]) -> str:
        try:
            return self._template.render(dict(context))
        except jinja2.UndefinedError as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(exc.message or "undefined", file=self.name, line=line) from None
        except jinja2.TemplateError as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(exc.message or str(exc), file=self.name, line=line) from None
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(f"{type(exc).__name__}: {exc}", file=self.name, line=line) from None


def compile_source(source: str, name: str, dialect: str) -> CompiledTemplate:
    """Compile ``source`` in ``dialect`` ("go" or "jinja2"), cached by content."""
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    cache_key = (dialect, name, digest)
    with _LOCK:
        cached = _CACHE.get(cache_key)
    if cached is not None:
        return cached
    compiled: CompiledTemplate
    if dialect == "go":
        from .gotemplate import compile_go

        compiled = compile_go(source, name)
    elif dialect == "jinja2":
        compiled = JinjaTemplate(source, name)
    else:
        raise InputError(f"unknown dialect {dialect!r}; use go or jinja2", key="--dialect")
    with _LOCK:
        _CACHE[cache_key] = compiled
    return compiled


def compile_file(template: TemplateFile) -> CompiledTemplate:
    return compile_source(read_text(template.path), template.display, template.dialect)
