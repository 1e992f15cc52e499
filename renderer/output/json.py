"""The JSON format: a document's data, checked against its published schema first
(a mismatch is our bug, not the user's), two-space indented, one trailing newline."""

from __future__ import annotations

import json
from typing import Any

from renderer import output
from renderer.data import schemas


def dumps(schema: str, data: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> str:
    """``data`` as JSON (no trailing newline), after checking it against ``schema``."""
    schemas.validate_output(schema, data)
    return json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)


class JsonFormat:
    name = "json"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, output.Document)

    def render(self, document: output.Document) -> str:
        text = dumps(
            document.schema,
            document.data(),
            sort_keys=document.sort_keys,
            ensure_ascii=document.ensure_ascii,
        )
        return text + "\n"


output.register(JsonFormat())
