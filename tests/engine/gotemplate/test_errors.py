"""Errors carry Go's own text (``template: NAME:LINE: ...`` when parsing, ``template:
NAME:LINE:COL: executing ...`` when executing) beside the user's 1-based location.

The expected texts are what Go 1.24's text/template returns for the same template and
values (the parity tests hold every error of their corpus and of the fuzz to Go's)."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.engine.gotemplate import GoTemplateError, compile_go
from renderer.engine.gotemplate.errors import go_line_col, line_col

CONTEXT: dict[str, Any] = {"s": "x", "one": 1, "l": [1, None, "a"], "m": {"c": None}}


def error_of(source: str) -> GoTemplateError:
    with pytest.raises(GoTemplateError) as info:
        compile_go(source, "t.yaml", template_name="calico").render(CONTEXT)
    return info.value


PARSE_ERRORS = [
    # the line of the furthest item the parser read (here EOF)
    ("{{ if .s }}\n\n{{ else }}x", "3: unexpected EOF"),
    # a lexer error on another line than its action's {{
    ('{{ .s\n\n "open }}', "3: unterminated quoted string in action started at calico:1"),
    ("a\n{{ .s\n\n", "4: unclosed action started at calico:2"),
    ("{{\n(.s\n\n}}", "4: unclosed left paren in action started at calico:1"),
    ("{{ .s) }}", "1: unexpected right paren"),
    # a block's clause reports on its own last item, not its body's
    ('{{ block "b"\n.\n}}x{{ else }}{{ end }}', "3: unexpected {{else}} in block clause"),
    ("{{ .s | 3 }}", "1: non executable command in pipeline stage 2"),
    ("{{ 1_+2i }}", '1: strconv.ParseFloat: parsing "1_": invalid syntax'),
    ("{{ (1.5-i) }}", "1: syntax error scanning complex number"),
]


@pytest.mark.parametrize(("source", "go"), PARSE_ERRORS)
def test_parse_errors_are_gos(source: str, go: str) -> None:
    err = error_of(source)
    assert err.go_message == "template: calico:" + go
    assert err.go_message.endswith(": " + err.message)
    assert err.line is not None and err.column is not None


EXECUTION_ERRORS = [
    # the column is Go's: bytes from the line's start, from 0; ".s.x" is at ".x"
    ("é{{ .s.x }}", "1:7", "<.s.x>: can't evaluate field x in type interface {}"),
    # at the last node the executor touched: the range's pipeline's last command
    ("{{ range $e := .s | print }}{{ end }}", "1:20", "<print>: range can't iterate over x"),
    ("{{ range $i, $e := 3 }}{{ end }}", "1:19",
     "<3>: can't use 3 to iterate over more than one variable"),
    # an argument of the wrong type, at the argument
    ('{{ vgt (.one) "x" }}', "1:8", "<.one>: wrong type for value; expected string; got int"),
    # a nil map value is an interface {} to a string parameter, a nil pointer to len
    ('{{ vgt .m.c "x" }}', "1:9",
     "<.m.c>: wrong type for value; expected string; got interface {}"),
    ("{{ len .m.c }}", "1:3", "<len .m.c>: error calling len: len of nil pointer"),
    # a range element is an interface {} value
    ("{{ range $e := .l }}{{ $e.x }}{{ end }}", "1:25",
     "<$e.x>: can't evaluate field x in type interface {}"),
    ("{{ (1) 2 }}", "1:3", "<(1) 2>: can't give argument to non-function 1"),
    ("{{ .s | call }}", "1:8", "<call>: error calling call: non-function x of type string"),
    ("{{ eq .l .l }}", "1:3",
     "<eq .l .l>: error calling eq: non-comparable type [%!s(int=1) <nil> a]: []interface {}"),
    ('{{ len (index "a" 0) }}', "1:3",
     '<len (index "a" 0)>: error calling len: len of type uint8'),
    ("{{ print 18446744073709551615 }}", "1:9",
     "<18446744073709551615>: 18446744073709551615 overflows int"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "where", "go"), EXECUTION_ERRORS)
def test_execution_errors_are_gos(source: str, where: str, go: str) -> None:
    err = error_of(source)
    assert err.go_message == f'template: calico:{where}: executing "calico" at {go}'
    assert err.message == f'executing "calico" at {go}'  # the same text after the location


def test_an_error_in_a_defined_template_names_it_at_the_files_position() -> None:
    err = error_of('{{ define "x" }}{{ .s | vgt }}{{ end }}\n\n{{ template "x" . }}')
    assert err.go_message == (
        'template: calico:1:24: executing "x" at <vgt>: wrong number of args for vgt: want 2 got 1'
    )


def test_the_users_location_is_one_based_characters() -> None:
    err = error_of("é\néé{{ .s.x }}")
    assert (err.file, err.line, err.column) == ("t.yaml", 2, 8)
    assert err.go_message.startswith("template: calico:2:9: ")
    assert str(err).startswith("t.yaml:2:8: executing ")


def test_positions_in_characters_and_in_gos_bytes() -> None:
    source = "ab\né\U0001f600x"
    at = source.index("x")
    assert line_col(source, at) == (2, 3)
    assert go_line_col(source, at) == (2, 6)
    assert go_line_col("\udcffx", 1) == (1, 1)  # a byte that is no UTF-8 is one byte
    assert go_line_col("abc", 2) == (1, 2)


def test_a_recursion_stops_where_gos_does() -> None:
    """At 100,000 nested calls, as Go's executor (the interpreter's stack holds them)."""
    recursive = '{{ define "r" }}{{ if . }}{{ template "r" . }}{{ end }}{{ end }}'
    err = error_of(recursive + '{{ template "r" 1 }}')
    assert err.go_message == (
        'template: calico:1:38: executing "r" at <{{template "r" .}}>: '
        "exceeded maximum template depth (100000)"
    )
