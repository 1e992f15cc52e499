"""Parsing (gotemplate.parser): Go's parse-time errors, with file:line:column."""

from __future__ import annotations

import pytest

from renderer.engine.gotemplate import compile_go, parse
from renderer.errors import TemplateError


@pytest.mark.parametrize(
    ("source", "line", "column", "fragment"),
    [
        ("ok\n\n  {{ .x | | }}", 3, 11, "unexpected"),
        ("{{ if .x }}\nnever closed", 2, 13, "unexpected EOF"),
        ("line\n{{ nosuch .x }}", 2, 4, 'function "nosuch" not defined'),
        ("{{ $y }}", 1, 4, 'undefined variable "$y"'),
        ("a\n{{ break }}", 2, 4, "{{break}} outside {{range}}"),
        ("{{ .x ", 1, 7, "unclosed action"),
        ("x\ny {{ end }}", 2, 6, "unexpected {{end}}"),
        ('{{ "abc }}', 1, 4, "unterminated quoted string"),
        ("{{ 1x }}", 1, 4, "bad number syntax"),
        ("{{ .x | 3 }}", 1, 9, "non executable command in pipeline stage 2"),
        ("{{/* open", 1, 3, "unclosed comment"),
        ('{{ define "a" }}1{{ end }}{{ define "a" }}2{{ end }}', 1, 37, "multiple definition"),
    ],
)
def test_parse_errors_are_positioned(source: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(TemplateError) as info:
        parse(source, "calico.yaml")
    err = info.value
    assert err.file == "calico.yaml"
    assert (err.line, err.column) == (line, column), str(err)
    assert fragment in err.message
    assert str(err).startswith(f"calico.yaml:{line}:{column}: ")


def test_deeply_nested_source_is_a_template_error() -> None:
    source = "{{ if true }}" * 3000 + "x" + "{{ end }}" * 3000
    with pytest.raises(TemplateError):
        compile_go(source, "deep").render({})


def test_nesting_beyond_the_parser_is_a_template_error() -> None:
    source = "{{ " + "print (" * 400 + ".x" + ")" * 400 + " }}"
    with pytest.raises(TemplateError, match="nests too deeply") as err:
        compile_go(source, "deep")
    assert err.value.file == "deep"
