"""Execution (gotemplate.interp): errors positioned as Go positions them, Go's semantics
spot-checked (the parity tests cover the rest), no way into Python, bounded output."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.engine.gotemplate import GoTemplateError, compile_go
from renderer.engine.gotemplate.errors import line_col
from renderer.engine.gotemplate.interp import Marks
from renderer.errors import TemplateError


def render(source: str, context: dict[str, Any] | None = None) -> str:
    return compile_go(source, "t.yaml").render(context or {})


def error_of(source: str, context: dict[str, Any] | None = None) -> TemplateError:
    with pytest.raises(TemplateError) as info:
        render(source, context)
    return info.value


def test_execution_errors_are_positioned_and_name_the_template() -> None:
    err = error_of(
        '{{ define "inner" }}\n  {{ .a.b }}{{ end }}x{{ template "inner" . }}', {"a": None}
    )
    assert (err.line, err.column) == (2, 8)  # at ".b", where Go places the node
    assert err.message == 'executing "inner" at <.a.b>: nil pointer evaluating interface {}.b'
    assert isinstance(err, GoTemplateError)
    assert err.go_message == "template: t.yaml:2:7: " + err.message  # Go's 0-based byte column


def test_execution_error_for_wrong_argument_count() -> None:
    err = error_of("\n\n   {{ split .csv }}", {"csv": "a,b"})
    assert (err.line, err.column) == (3, 7)
    assert "wrong number of args for split: want 2 got 1" in err.message


def test_deep_recursion_is_a_template_error_with_position() -> None:
    err = error_of('{{ define "r" }}{{ template "r" . }}{{ end }}\n{{ template "r" . }}')
    assert err.line is not None and err.column is not None
    assert "exceeded maximum template depth" in err.message


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
    assert "error calling call: non-function .s of type string" in err.message


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


def test_a_template_line_found_by_search_is_the_line_counting_gives() -> None:
    source = "a\n\nbc\r\nd{{ .x }}\n\n"
    marks = Marks(source)
    for pos in range(-2, len(source) + 3):
        assert marks.line(pos) == line_col(source, pos)[0], pos
