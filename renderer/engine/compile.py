"""Stage 2, compile template: Go ``text/template`` or Jinja2 source to a renderable.

Dispatches on the dialect: Go templates are parsed by :mod:`renderer.engine.gotemplate`
(and interpreted when rendered), Jinja2 ones compiled in the bounded sandbox of
:mod:`renderer.engine.jinja`. Templates are cached by content hash, so a version
rendered for several scenarios is compiled once, and a template file's digest is
remembered while its stat is unchanged, so an unchanged file is not read again.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from renderer.engine import limits
from renderer.engine.sourcemap import SourceMap
from renderer.errors import InputError
from renderer.manifests.tree import ADDON, TemplateFile
from renderer.store.memo import Memo
from renderer.store.read import read_text


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
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


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
        from renderer.engine.gotemplate import compile_go

        compiled = compile_go(source, name, template_name=template_name)
    elif dialect == "jinja2":
        from renderer.engine.jinja import JinjaTemplate  # a Go-only tree never loads Jinja2

        compiled = JinjaTemplate(source, name)
    else:
        raise InputError(
            f"unknown dialect {dialect!r}; use go or jinja2", key="dialect", argument="dialect"
        )
    with _LOCK:
        _CACHE[cache_key] = compiled
    return compiled


# --- template files: read and hash once while they stay unchanged ----------------------

#: A file changed less than this long ago may change again within the same timestamp
#: tick without its stat changing ("racy" in git's terms): its digest is not remembered.
RACY_NS = 2_000_000_000
_Signature = tuple[int, int, int, int]
#: Template file path -> (the stat signature it was hashed with, its content digest).
_DIGESTS: Memo[str, tuple[_Signature, str]] = Memo("engine.file_digests", 1024)


def _signature(path: Path) -> _Signature | None:
    try:
        st = os.stat(path)
    except OSError:
        return None  # read_text reports it
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _known_digest(path: Path) -> tuple[_Signature | None, str | None]:
    """(stat signature, digest remembered for exactly that signature or None)."""
    sig = _signature(path)
    with _LOCK:
        entry = _DIGESTS.get(str(path))
    return sig, (entry[1] if sig is not None and entry is not None and entry[0] == sig else None)


def _read(path: Path, sig: _Signature | None) -> tuple[str, str]:
    """(source, digest) of a template file, remembering the digest for its signature."""
    source = read_text(path)
    digest = source_digest(source)
    if sig is not None and time.time_ns() - max(sig[0], sig[1]) > RACY_NS:
        with _LOCK:
            _DIGESTS[str(path)] = (sig, digest)
    return source, digest


def template_digest(template: TemplateFile) -> str:
    """The content digest of a template file; read only when its stat changed."""
    sig, digest = _known_digest(template.path)
    return digest if digest is not None else _read(template.path, sig)[1]


def compile_file(template: TemplateFile) -> CompiledTemplate:
    """The compiled template, cached by content; an unchanged file is not read again.

    A file whose stat (mtime, ctime, size, inode) matches the one its digest was taken
    with is known by that digest; any change, or a change too recent to trust the
    timestamps, means it is read and hashed again.
    """
    sig, digest = _known_digest(template.path)
    if digest is not None:
        with _LOCK:
            cached = _CACHE.get((template.dialect, template.display, ADDON, digest))
        if cached is not None:
            return cached
        # known but not compiled yet (its digest was asked first): what is read under
        # the same signature before and after is the text that digest was taken of
        source = read_text(template.path)
        if _signature(template.path) != sig:
            digest = source_digest(source)
    else:
        source, digest = _read(template.path, sig)
    return compile_source(source, template.display, template.dialect, digest=digest)
