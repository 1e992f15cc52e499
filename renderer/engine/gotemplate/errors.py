"""Template errors that also carry Go's own error text.

The user reads ``file:line:column: message`` (a 1-based column in characters, as editors
count); BKE's controller logs what Go's ``text/template`` returns, ``template:
NAME:LINE: ...`` for a parse error and ``template: NAME:LINE:COL: executing ...`` for an
execution error, COL being Go's 0-based byte offset in the line. The message after the
location is the same in both; :attr:`GoTemplateError.go_message` is Go's whole text, so
the parity tests can hold every error to Go's, byte for byte.
"""

from __future__ import annotations

from renderer.errors import TemplateError


class GoTemplateError(TemplateError):
    """A template error of the Go dialect; ``go_message`` is the text Go returns."""

    def __init__(
        self,
        message: str,
        *,
        go_message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message, file=file, line=line, column=column)
        self.go_message = go_message


def line_col(source: str, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of character offset ``pos``."""
    pos = max(0, min(pos, len(source)))
    line = source.count("\n", 0, pos) + 1
    col = pos - (source.rfind("\n", 0, pos) + 1) + 1
    return line, col


def go_line_col(source: str, pos: int) -> tuple[int, int]:
    """Go's ErrorContext position of character offset ``pos``: the 1-based line and the
    0-based byte offset in it (UTF-8; a ``surrogateescape`` character is its one byte)."""
    pos = max(0, min(pos, len(source)))
    start = source.rfind("\n", 0, pos) + 1
    prefix = source[start:pos]
    return source.count("\n", 0, pos) + 1, len(prefix) if prefix.isascii() else _width(prefix)


def _width(text: str) -> int:
    try:
        return len(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:  # a surrogate no file decodes to: three bytes, as Go's
        return len(text.encode("utf-8", "surrogatepass"))
