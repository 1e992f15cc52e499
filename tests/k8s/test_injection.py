"""Values that change the YAML a template wrote: found by structure, named by key,
value and template line; inert values and the template's own text never are."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.engine.gotemplate import compile_go
from renderer.k8s import injection
from renderer.k8s.injection import Injection, find_injections
from renderer.store import cache

TEMPLATE = """\
kind: ConfigMap
metadata:
  name: {{ .name }}
data:
  quoted: "{{ .quoted }}"
  plain: {{ .plain }}
  image: {{ .repo }}calico/node:v3.31.3
  list: [{{ .item }}]
"""
SAFE = {"name": "cfg", "quoted": "ok", "plain": "fine", "repo": "reg:5000/x/", "item": "a"}


def injections(**changes: Any) -> list[Injection]:
    text, _lines, printed = compile_go(TEMPLATE, "t.yaml").render_traced({**SAFE, **changes})
    return find_injections(text, printed)


@pytest.mark.parametrize(
    ("changes", "key", "line"),
    [
        ({"quoted": 'x", "y'}, "quoted", 5),  # closes the quote
        ({"plain": "a\n  extra: key"}, "plain", 6),  # a key of its own
        ({"plain": "a\n---\nkind: Secret"}, "plain", 6),  # a document of its own
        ({"name": "n\n  namespace: kube-system"}, "name", 3),
        ({"item": "a, b"}, "item", 8),  # a list item of its own
        ({"plain": "- a"}, "plain", 6),  # breaks the mapping
        ({"repo": "r/\n  x: y\n  z: "}, "repo", 7),
    ],
)
def test_a_value_that_writes_structure_is_named(
    changes: dict[str, str], key: str, line: int
) -> None:
    (found,) = injections(**changes)
    assert (found.key, found.value, found.line) == (key, changes[key], line)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"plain": "a #comment"},  # truncates a scalar, adds nothing
        {"quoted": "tab\there, back\\\\slash, 'single'"},
        {"repo": ""},
        {"plain": "skip-interface=nerdctl*"},
        {"plain": "first-found ", "quoted": "IPIP"},
    ],
)
def test_values_that_stay_scalars_are_not_injections(changes: dict[str, str]) -> None:
    assert injections(**changes) == []


def test_the_templates_own_broken_text_is_not_blamed_on_a_value() -> None:
    text, _lines, printed = compile_go('a: "{{ .v }}\nb: [', "t.yaml").render_traced({"v": 'x"'})
    assert find_injections(text, printed) == []


def test_constants_printed_by_actions_are_template_text() -> None:
    text, _lines, printed = compile_go('a: {{ "x\\n  b: c" }}\n', "t.yaml").render_traced({})
    assert printed == [] and find_injections(text, printed) == []


def test_a_kept_answer_is_the_answer_and_a_corrupt_entry_is_a_miss(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    fresh = injections(plain="a\n  extra: key")
    assert [(i.key, i.line) for i in fresh] == [("plain", 6)]
    with monkeypatch.context() as m:
        judged_again = lambda *a: pytest.fail("a kept answer was judged again")  # noqa: E731
        m.setattr(injection, "judge", judged_again)
        assert injections(plain="a\n  extra: key") == fresh
    for entry in (tmp_path / "injections").iterdir():
        entry.write_text("{}", encoding="utf-8")
    assert injections(plain="a\n  extra: key") == fresh


#: Documents around a value: a value can only change the documents it prints into,
#: unless it writes a ``---`` line itself or the line break before one.
DOCUMENTS = """\
kind: A
data:
  x: {{ .a }}
---
# a comment document
---
kind: B
text: |
  block {{ .b }}
---
kind: C
list: [{{ .c }}]
note: |
  {{ .d }}---
kind: D
quoted: "{{ .e }}"
"""
NASTY = [
    "ok",
    "a\n---\nkind: E",
    "a\n---",
    "x\n",
    "\n",
    "- a",
    "a, b",
    'q", "r',
    "a: b",
    "#c",
    "a\n  k: v",
    "--- x",
    "...",
    "%YAML 1.2",
    "x\ny",
]


@pytest.mark.parametrize("key", ["a", "b", "c", "d", "e"])
@pytest.mark.parametrize("value", NASTY)
def test_reading_only_the_documents_with_values_agrees_with_reading_the_whole_stream(
    key: str, value: str
) -> None:
    values = {"a": "1", "b": "2", "c": "3", "d": "", "e": "4", key: value}
    text, _lines, printed = compile_go(DOCUMENTS, "t.yaml").render_traced(values)
    spans = sorted(printed, key=lambda p: p.start)
    assert injection.judge(text, spans) == injection.judge_whole(text, spans)


def test_a_value_that_ends_the_line_before_a_document_start_is_read_whole() -> None:
    """``{{ .d }}---``: the value's line break makes the ``---`` a document start, which
    the placeholder text does not have (there it is text of a block scalar)."""
    text, _lines, printed = compile_go(DOCUMENTS, "t.yaml").render_traced(
        {"a": "1", "b": "2", "c": "3", "d": "x\n", "e": "4"}
    )
    (found,) = find_injections(text, printed)
    assert (found.key, found.value, found.line) == ("d", "x\n", 14)
