"""Unit tests of the Go template engine: errors with positions, sandboxing, keys, speed."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from renderer.engine.gotemplate import GoTemplate, compile_go, parse
from renderer.engine.gotemplate.lexer import T, lex
from renderer.errors import TemplateError


def render(source: str, context: dict[str, Any] | None = None) -> str:
    return compile_go(source, "t.yaml").render(context or {})


def error_of(source: str, context: dict[str, Any] | None = None) -> TemplateError:
    with pytest.raises(TemplateError) as info:
        render(source, context)
    return info.value


# --- lexer -----------------------------------------------------------------------------


def test_lexer_trims_and_tokens() -> None:
    items = lex("a  {{- .x | printf `%s` -}}  b")
    kinds = [i.typ for i in items]
    assert kinds == [
        T.TEXT,
        T.LEFT_DELIM,
        T.FIELD,
        T.SPACE,
        T.PIPE,
        T.SPACE,
        T.IDENTIFIER,
        T.SPACE,
        T.RAW_STRING,
        T.RIGHT_DELIM,
        T.TEXT,
        T.EOF,
    ]
    assert items[0].val == "a"
    assert items[-2].val == "b"


def test_lexer_keeps_minus_number_without_space() -> None:
    items = lex("{{-3}}")
    assert [i.typ for i in items] == [T.LEFT_DELIM, T.NUMBER, T.RIGHT_DELIM, T.EOF]
    assert items[1].val == "-3"


def test_lexer_comment_is_dropped_with_trim() -> None:
    assert render("a \n {{- /* note */ -}} \n b") == "ab"


# --- parse errors carry file:line:column -----------------------------------------------


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


def test_execution_errors_are_positioned_and_name_the_template() -> None:
    err = error_of(
        '{{ define "inner" }}\n  {{ .a.b }}{{ end }}x{{ template "inner" . }}', {"a": None}
    )
    assert (err.line, err.column) == (2, 6)
    assert 'executing "inner" at <.a.b>' in err.message
    assert "nil pointer evaluating interface {}.b" in err.message


def test_execution_error_for_wrong_argument_count() -> None:
    err = error_of("\n\n   {{ split .csv }}", {"csv": "a,b"})
    assert (err.line, err.column) == (3, 7)
    assert "wrong number of args for split: want 2 got 1" in err.message


def test_deep_recursion_is_a_template_error_with_position() -> None:
    err = error_of('{{ define "r" }}{{ template "r" . }}{{ end }}\n{{ template "r" . }}')
    assert err.line is not None and err.column is not None
    assert "exceeded maximum template depth" in err.message


# --- semantics spot checks (the Go parity suite covers the rest) -----------------------


def test_missing_keys_print_no_value_and_are_false() -> None:
    assert render("{{ .nope }}|{{ if .nope }}y{{ else }}n{{ end }}|{{ .nope.deeper }}") == (
        "<no value>|n|<no value>"
    )


def test_eq_with_missing_operand_is_false_not_error() -> None:
    src = '{{ if eq .allowTypha "true" }}on{{ else }}off{{ end }}'
    assert render(src, {}) == "off"
    assert render(src, {"allowTypha": "true"}) == "on"
    assert render("{{ ne .m nil }}|{{ eq .m nil }}", {}) == "false|true"


def test_variable_assignment_in_range_reaches_outer_scope() -> None:
    src = "{{ $last := 0 }}{{ range .xs }}{{ $last = . }}{{ end }}{{ $last }}"
    assert render(src, {"xs": [4, 5, 6]}) == "6"


def test_range_over_map_is_sorted() -> None:
    assert render("{{ range $k, $v := . }}{{ $k }}{{ $v }},{{ end }}", {"b": 2, "a": 1}) == "a1,b2,"


def test_jinja_syntax_in_text_is_literal() -> None:
    text = "{% if x %}{# c #}{{ '{{' }}{%- raw -%}\n"
    assert render("{% if x %}{# c #}{{ `{{` }}{%- raw -%}\n") == text.replace("{{ '{{' }}", "{{")


def test_compile_once_render_many() -> None:
    tmpl = compile_go("{{ .a }}-{{ .b }}", "x")
    assert isinstance(tmpl, GoTemplate)
    assert tmpl.name == "x"
    assert tmpl.render({"a": 1, "b": 2}) == "1-2"
    assert tmpl.render({"a": "x"}) == "x-<no value>"


def test_bad_context_is_a_template_error() -> None:
    with pytest.raises(TemplateError, match="not a string"):
        compile_go("{{ . }}", "x").render({1: "a"})  # type: ignore[dict-item]
    with pytest.raises(TemplateError, match="unsupported type"):
        compile_go("{{ . }}", "x").render({"a": object()})


# --- sandboxing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "{{ .__class__ }}",
        "{{ .__class__.__mro__ }}",
        '{{ index . "__class__" }}',
        '{{ index . "__init__" }}',
        "{{ .items }}{{ .keys }}{{ .get }}",
        "{{ with .__dict__ }}{{ . }}{{ end }}",
    ],
)
def test_python_internals_are_just_missing_keys(source: str) -> None:
    out = compile_go(source, "x").render({"s": "text"})
    assert "class" not in out and "function" not in out and "dict" not in out
    assert set(out.replace("<no value>", "")) <= set()


def test_field_on_string_is_a_go_error_not_an_attribute() -> None:
    err = error_of("{{ .s.upper }}", {"s": "text"})
    assert "can't evaluate field upper in type" in err.message
    err = error_of("{{ .s.__class__ }}", {"s": "text"})
    assert "can't evaluate field __class__" in err.message


def test_index_through_missing_dunder_is_a_go_error() -> None:
    err = error_of('{{ index . "__init__" "__globals__" }}', {})
    assert "index of nil pointer" in err.message


def test_index_on_list_of_dunder_names() -> None:
    err = error_of('{{ index .xs "__len__" }}', {"xs": [1]})
    assert "cannot index slice/array with type string" in err.message


def test_call_cannot_invoke_anything() -> None:
    err = error_of("{{ call .s }}", {"s": "x"})
    assert "non-function of type string" in err.message


# --- keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "keys"),
    [
        ("{{ .repo }}calico/node", {"repo"}),
        ("{{ .ClusterCidr.Ipv6 }} {{ $.podSubnet }}", {"ClusterCidr", "podSubnet"}),
        (
            '{{ if eq .allowTypha "true" }}{{ .typhaReplicas | }}{{ end }}',
            {"allowTypha", "typhaReplicas"},
        ),
        ("{{ range .items }}{{ .name }}{{ $.top }}{{ end }}", {"items", "top"}),
        ("{{ with .cfg }}{{ .inner }}{{ end }}", {"cfg"}),
        ("{{ with . }}{{ .inner }}{{ end }}", {"inner"}),
        ('{{ define "d" }}{{ .fromDefine }}{{ end }}{{ template "d" . }}', {"fromDefine"}),
        ('{{ define "d" }}{{ .rel }}{{ end }}{{ template "d" .sub }}', {"sub"}),
        ('{{ define "unused" }}{{ .never }}{{ end }}plain', set()),
        ('{{ block "b" . }}{{ .inBlock }}{{ end }}', {"inBlock"}),
        ('{{ $r := . }}{{ $r.viaVar }} {{ index . "viaIndex" }}', {"viaVar", "viaIndex"}),
        ('{{ (.chained).x }} {{ printf "%s" .arg }}', {"chained", "arg"}),
        (
            '{{ and (ne .ipAutoDetectionMethod nil) (ne .ipAutoDetectionMethod "") }}',
            {"ipAutoDetectionMethod"},
        ),
    ],
)
def test_keys(source: str, keys: set[str]) -> None:
    assert compile_go(source, "k").keys == frozenset(keys)


# --- robustness: only TemplateError escapes --------------------------------------------

_FRAGMENTS = [
    "{{",
    "}}",
    "{{-",
    "-}}",
    " ",
    ".",
    ".a",
    ".b.c",
    "$",
    "$x",
    ":=",
    "=",
    "|",
    "(",
    ")",
    "if",
    "else",
    "end",
    "range",
    "with",
    "define",
    "template",
    "block",
    "break",
    "continue",
    '"s"',
    "`r`",
    "'c'",
    "1",
    "-2",
    "0x1f",
    "1.5e3",
    "nil",
    "true",
    "eq",
    "ne",
    "and",
    "or",
    "not",
    "len",
    "index",
    "slice",
    "printf",
    '"%d %s %v %q"',
    "print",
    "println",
    "int",
    "split",
    "indent",
    "vgt",
    "b64encode",
    "/*",
    "*/",
    "\n",
    "text",
    "é",
    "{%",
    "#}",
    ",",
]


@pytest.mark.parametrize("seed", range(40))
def test_fuzz_random_token_soup_only_raises_template_error(seed: int) -> None:
    rng = random.Random(seed)
    context = {"a": [1, None, "x"], "b": {"c": {"d": 1}}, "s": "v", "n": None}
    for _ in range(60):
        source = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 30)))
        try:
            out = compile_go(source, "fuzz").render(context)
        except TemplateError as exc:
            assert exc.file == "fuzz"
        else:
            assert isinstance(out, str)


@pytest.mark.parametrize("seed", range(10))
def test_fuzz_mutated_valid_template_only_raises_template_error(seed: int) -> None:
    base = (
        '{{ define "d" }}{{ range $i, $v := . }}{{ $i }}={{ $v | printf "%v" }}{{ end }}{{ end }}'
        '{{- if and (ne .m nil) (ne .m "") }}{{ .m }}{{ else if eq .k "x" }}{{ template "d" .l }}'
        "{{ end -}}\n{{ with $x := .l }}{{ len $x }}{{ index $x 0 }}{{ slice $x 1 }}{{ end }}"
    )
    rng = random.Random(seed)
    context = {"m": "val", "k": "x", "l": [1, 2, 3]}
    for _ in range(80):
        chars = list(base)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                del chars[pos]
            elif op < 0.8:
                chars.insert(pos, rng.choice("{}()|$.\"'`-= \n\\"))
            else:
                chars[pos] = rng.choice("abcxyz019")
        with contextlib.suppress(TemplateError):
            assert isinstance(compile_go("".join(chars), "m").render(context), str)


def test_deeply_nested_source_is_a_template_error() -> None:
    source = "{{ if true }}" * 3000 + "x" + "{{ end }}" * 3000
    with pytest.raises(TemplateError):
        compile_go(source, "deep").render({})


# --- performance -----------------------------------------------------------------------


def _big_template() -> str:
    lines: list[str] = []
    for i in range(7600):
        if i % 250 == 0:
            lines += [
                "        image: {{ .repo }}calico/node:v3.27.3",
                '{{- if eq .allowTypha "true" }}',
                "        replicas: {{ .typhaReplicas | }}",
                "{{- end }}",
            ]
        else:
            lines.append(f'  key{i}: "literal yaml {i} with {{% jinja %}} and {{# hash #}} look"')
    return "\n".join(lines) + "\n"


def test_large_template_renders_every_action() -> None:
    """A BKE-sized manifest: literal YAML (with Jinja-looking text) kept, all actions run.

    Compile and render times for such a template are printed by benchmarks/engine.py.
    """
    source = _big_template()
    assert source.count("{{") >= 90
    out = compile_go(source, "calico.yaml").render(
        {"repo": "r/", "allowTypha": "true", "typhaReplicas": "3"}
    )
    assert out.count("replicas: 3") == 31
    assert "{% jinja %}" in out and "{# hash #}" in out


def test_nested_and_or_render_the_deciding_operand() -> None:
    """and/or nested in parentheses or chained through pipes, deep."""

    def nested(depth: int) -> str:
        return "{{ " + "and 1 (or 0 (" * depth + ".x" + "))" * depth + " }}"

    def piped(depth: int) -> str:
        return "{{ .x" + " | and 1 | or 0" * depth + " }}"

    assert compile_go(nested(12), "n").render({"x": 5}) == "5"
    assert compile_go(piped(40), "p").render({"x": 7}) == "7"


def test_150_nested_parentheses_render_as_go_does() -> None:
    source = "{{ " + "print (" * 150 + ".x" + ")" * 150 + " }}"
    assert compile_go(source, "deep").render({"x": 1}) == "1"


def test_nesting_beyond_the_parser_is_a_template_error() -> None:
    source = "{{ " + "print (" * 400 + ".x" + ")" * 400 + " }}"
    with pytest.raises(TemplateError, match="nests too deeply"):
        compile_go(source, "deep")


def test_doubling_a_variable_in_a_loop_fails_instead_of_exhausting_memory() -> None:
    items = ",".join("a" * 40)
    source = (
        '{{ $x := "ab" }}{{ range split .items "," }}{{ $x = printf "%s%s" $x $x }}{{ end }}'
        "{{ len $x }}"
    )
    with pytest.raises(TemplateError) as err:
        compile_go(source, "bomb.yaml").render({"items": items})
    assert "result longer than" in str(err.value) and err.value.line == 1


def test_unbounded_output_fails() -> None:
    source = '{{ $s := printf "%1000000d" 1 }}{{ range split .items "," }}{{ $s }}{{ end }}'
    with pytest.raises(TemplateError) as err:
        compile_go(source, "big.yaml").render({"items": ",".join("a" * 100)})
    assert "output longer than" in str(err.value)
