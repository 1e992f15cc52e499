"""Go's typed context values: what ``map[string]string`` and ``int32`` change in a render.

Each expected text is what Go 1.24's ``text/template`` prints for the same template and a
context holding ``map[string]string{"a": "b"}``, ``int32(36443)`` and ``int32(3)`` beside
their untyped (``interface {}``) counterparts.
"""

from __future__ import annotations

import json

import pytest

from renderer.engine.gotemplate import compile_go
from renderer.engine.govalues import Int32, StringMap
from renderer.errors import TemplateError

CONTEXT = {
    "ns": StringMap(a="b"),
    "m": {"a": "b"},
    "p": Int32(36443),
    "q": 6443,
    "n": Int32(3),
}


def render(source: str) -> str:
    return compile_go(source, "t").render(dict(CONTEXT))


@pytest.mark.parametrize(
    ("source", "printed"),
    [
        # a missing key: the element's zero value, "" for string, nil for interface {}
        ('{{ index .ns "zz" }}|{{ index .m "zz" }}', "|<no value>"),
        ('{{ printf "%#v" (index .m "zz") }}', "<nil>"),
        # a map's field that is missing is the invalid value whatever the element type
        ("{{ .ns.zz }}|{{ .m.zz }}", "<no value>|<no value>"),
        ('{{ printf "%T %T %#v" .ns .m .ns }}',
         'map[string]string map[string]interface {} map[string]string{"a":"b"}'),
        ('{{ range $k, $v := .ns }}{{ printf "%T" $v }}{{ end }}|{{ len .ns }}|{{ .ns }}',
         "string|1|map[a:b]"),
        # an int32 prints as an int, compares with one, and keeps its type
        ('{{ printf "%T %d %x %v" .p .p .p (eq .p .q) }}|{{ lt .q .p }}',
         "int32 36443 8e5b false|true"),
        ('{{ range $i := .n }}{{ printf "%T" $i }}{{ end }}', "int32int32int32"),
    ],
)  # fmt: skip
def test_typed_values_print_as_go_prints_them(source: str, printed: str) -> None:
    assert render(source) == printed


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("{{ .ns.a.x }}", "can't evaluate field x in type string"),
        ("{{ .m.a.x }}", "can't evaluate field x in type interface {}"),
        ("{{ int .p }}", "wrong type for value; expected string; got int32"),
    ],
)
def test_typed_values_are_named_by_their_type_in_errors(source: str, message: str) -> None:
    with pytest.raises(TemplateError) as exc:
        render(source)
    assert str(exc.value).endswith(message)


def test_their_repr_names_the_type_and_their_text_and_json_do_not() -> None:
    """A context is keyed by its ``repr`` (so a typed value never answers for an
    untyped one); printing and JSON reports show plain values."""
    assert repr(CONTEXT["p"]) == "Int32(36443)" and repr(CONTEXT["p"]) != repr(36443)
    assert repr(CONTEXT["ns"]) == "StringMap({'a': 'b'})"
    assert (str(CONTEXT["p"]), f"{CONTEXT['p']}", str(CONTEXT["ns"])) == (
        "36443",
        "36443",
        "{'a': 'b'}",
    )
    assert json.dumps({"p": CONTEXT["p"], "ns": CONTEXT["ns"]}) == '{"p": 36443, "ns": {"a": "b"}}'
