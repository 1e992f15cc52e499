"""Field lines of rendered objects: a document is parsed with positions once, whichever
scenario's render asks for it."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.engine.sourcemap import SourceMap
from renderer.k8s import locate
from renderer.store.memo import memos

RENDERED = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: '1'\n"
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  y: '2'\n"
)


def test_the_same_document_in_two_renders_is_parsed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    load = locate.load_with_positions

    def counted(text: str) -> Any:
        parsed.append(text)
        return load(text)

    monkeypatch.setattr(locate, "load_with_positions", counted)
    memos()["k8s.locate.positions"].clear()
    verbatim = SourceMap.identity(RENDERED)  # template line N is rendered line N
    # two scenarios' renders of one file: each asks for a field of the second object
    assert locate.field_line(RENDERED, verbatim, 8, ["data", "y"]) == 13
    assert locate.field_line(RENDERED, verbatim, 8, ["data", "y"]) == 13
    assert locate.field_line(RENDERED, verbatim, 1, ["metadata", "name"]) == 4
    assert len(parsed) == 2 and parsed[0] != parsed[1]  # once per document


def test_a_located_field_is_kept_in_the_result_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A field of a document located once is answered again without the slow parse,
    in another process too (a CRD of 5,000 lines took a second), the same line."""
    verbatim = SourceMap.identity(RENDERED)
    assert locate.field_line(RENDERED, verbatim, 8, ["data", "y"]) == 13
    assert locate.field_line(RENDERED, verbatim, 8, ["data", "nope"]) == 12  # deepest found

    def refused(text: str) -> Any:
        raise AssertionError("parsed again")

    monkeypatch.setattr(locate, "load_with_positions", refused)
    memos()["k8s.locate.positions"].clear()
    assert locate.field_line(RENDERED, verbatim, 8, ["data", "y"]) == 13
    assert locate.field_line(RENDERED, verbatim, 8, ["data", "nope"]) == 12
    with pytest.raises(AssertionError, match="parsed again"):
        locate.field_line(RENDERED, verbatim, 8, ["data", "other"])
