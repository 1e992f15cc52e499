"""The text format: a document's human form, as the command prints it."""

from __future__ import annotations

from renderer import output


class TextFormat:
    name = "text"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, output.Document)

    def render(self, document: output.Document) -> str:
        return document.text()


output.register(TextFormat())
