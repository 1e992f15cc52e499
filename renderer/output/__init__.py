"""Output formats as plugins: a command's result is a :class:`Document`, and a format
(one module each: :mod:`.text`, :mod:`.json`, :mod:`.junit`) turns any document it
supports into the text a command prints.

A new format is one module that defines a :class:`Format` and calls :func:`register`
(listed in :data:`BUILTIN` below, or imported by the command that needs it), plus one
table-driven test. A format for some documents only answers ``supports`` for the
document classes that carry what it needs: JUnit renders documents with test suites
(:class:`renderer.output.suites.Suites`), SARIF and Code Quality documents with findings
to annotate (:class:`Findings`). Every command's
``--format`` choices are the registered formats its document supports (:func:`names`).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from renderer.finding import Finding


class Document(ABC):
    """The result of a command, in every form a format may need.

    ``data`` is the JSON document, checked against the published schema ``schema``
    before it is printed; ``text`` is the human form, exactly as printed (trailing
    newline included, empty for nothing).
    """

    #: File name of the JSON Schema (``renderer/data/schemas``) the data meets.
    schema: ClassVar[str]
    #: How the JSON form is spelled (kept per document: published outputs stay as they are).
    sort_keys: ClassVar[bool] = False
    ensure_ascii: ClassVar[bool] = True

    @abstractmethod
    def data(self) -> Any:
        """The JSON form."""

    @abstractmethod
    def text(self) -> str:
        """The text form."""


class SortedDocument(Document):
    """A document whose JSON has sorted keys and keeps non-ASCII text as it is (the
    spelling ``check``, ``versions``, ``typha`` and ``validate`` have always had)."""

    sort_keys = True
    ensure_ascii = False


class Findings(ABC):
    """A document whose findings CI annotates on a merge request: SARIF
    (:mod:`.sarif`) and GitLab Code Quality (:mod:`.codequality`) render these."""

    @abstractmethod
    def annotations(self) -> list[Finding]:
        """Every finding to annotate, in report order, each where it can be fixed."""

    def run_properties(self) -> dict[str, Any]:
        """What a SARIF run says of itself besides its results (none by default)."""
        return {}


class Format(Protocol):
    """One output format: its name, which documents it can render, and how."""

    name: str

    def supports(self, kind: type[Document]) -> bool: ...

    def render(self, document: Document) -> str: ...


_FORMATS: dict[str, Format] = {}
#: The built-in formats, registered in this order (``--format`` lists them so); each
#: module is loaded when a format is first asked for, so a command that prints JSON
#: does not load the JUnit writer's XML library or SARIF's rule catalogue.
BUILTIN = ("text", "json", "junit", "sarif", "codequality")


def _builtin(name: str | None = None) -> None:
    """Load the built-in format ``name`` (every one when None) if not loaded yet."""
    for builtin in BUILTIN if name is None else (name,):
        if builtin in BUILTIN and builtin not in _FORMATS:
            importlib.import_module(f"{__name__}.{builtin}")


def register(fmt: Format) -> Format:
    """Add ``fmt`` under its name (a second format of one name is a bug)."""
    if fmt.name in _FORMATS:
        raise ValueError(f"output format {fmt.name!r} is registered twice")
    _FORMATS[fmt.name] = fmt
    return fmt


def unregister(name: str) -> Format:
    """Remove the format called ``name`` (a caller that offered one for a while)."""
    return _FORMATS.pop(name)


def get(name: str) -> Format:
    """The format called ``name``; KeyError for an unknown one (click's choices keep
    users from reaching it)."""
    _builtin(name)
    return _FORMATS[name]


def names(kind: type[Document] | None = None) -> list[str]:
    """Registered format names (the built-in ones first, in :data:`BUILTIN`'s order),
    only those supporting ``kind`` when given."""
    _builtin()
    order = [*BUILTIN, *(n for n in _FORMATS if n not in BUILTIN)]
    return [n for n in order if kind is None or _FORMATS[n].supports(kind)]


def render(name: str, document: Document) -> str:
    """``document`` in format ``name``."""
    fmt = get(name)
    if not fmt.supports(type(document)):
        raise ValueError(f"output format {name!r} cannot render {type(document).__name__}")
    return fmt.render(document)


__all__ = [
    "BUILTIN",
    "Document",
    "Findings",
    "Format",
    "SortedDocument",
    "get",
    "names",
    "register",
    "render",
    "unregister",
]
