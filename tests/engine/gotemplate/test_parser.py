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


def test_deeply_nested_controls_render_as_go_renders_them() -> None:
    source = "{{ if true }}" * 3000 + "x" + "{{ end }}" * 3000
    assert compile_go(source, "deep").render({}) == "x"


def test_parentheses_nest_as_deep_as_gos_parser_allows() -> None:
    source = "{{ " + "print (" * 400 + ".x" + ")" * 400 + " }}"
    assert compile_go(source, "deep").render({"x": "y"}) == "y"
    deepest = "{{ " + "(" * 10_000 + "1" + ")" * 10_000 + " }}"
    assert compile_go(deepest, "deep").render({}) == "1"


def test_one_parenthesis_deeper_than_go_allows_is_gos_error_at_its_line() -> None:
    # maxStackDepth of Go's parser (BKE's controller builds with Go 1.24)
    source = "a\nb {{ " + "(" * 10_001 + "1" + ")" * 10_001 + " }}"
    with pytest.raises(TemplateError) as err:
        compile_go(source, "deep")
    assert err.value.message == "max expression depth exceeded"
    assert (err.value.file, err.value.line, err.value.column) == ("deep", 2, 5 + 10_001)


DEEP_SHAPES = {
    "parens_10001_in_ifs": "{{ if 1 }}" * 100 + "{{ " + "(" * 10_001 + "1" + ")" * 10_001,
    "parens_50000": "{{ " + "(" * 50_000 + ".x" + ")" * 50_000 + " }}",
    "print_parens_5000": "{{ " + "print (" * 5000 + ".x" + ")" * 5000 + " }}",
    "ifs_and_parens": ("{{ if (((.x))) }}(" * 2000) + "{{ ((.x)) }}" + ("){{ end }}" * 2000),
    "withs_20000": "{{ with .x }}" * 20_000 + "{{ . }}" + "{{ end }}" * 20_000,
    "ranges_2000": "{{ range .l }}" * 2000 + "{{ . }}" + "{{ end }}" * 2000,
    "unclosed_ifs_10000": "{{ if .x }}" * 10_000,
    "define_deep": (
        '{{ define "d" }}' + "{{ if .x }}" * 3000 + "d" + "{{ end }}" * 3000 + "{{ end }}"
    )
    + '{{ template "d" . }}',
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEEP_SHAPES))
def test_deep_nesting_renders_or_is_a_located_template_error(name: str) -> None:
    """Never an internal error or a RecursionError: a render, or an error with a line."""
    try:
        compile_go(DEEP_SHAPES[name], "deep").render({"x": "y", "l": [[1]]})
    except TemplateError as err:
        assert "internal error" not in err.message and "Recursion" not in err.message
        assert err.file == "deep" and err.line is not None
