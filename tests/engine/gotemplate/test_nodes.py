"""Parse-tree nodes print as Go's ``String()`` does: execution errors quote the failing
construct the way Go does (``executing "x" at <.a.b>``). Expected forms are Go 1.24's."""

from __future__ import annotations

import pytest

from renderer.engine.gotemplate import nodes
from renderer.engine.gotemplate.parser import parse


@pytest.mark.parametrize(
    ("source", "printed"),
    [
        ('{{ .a.b | printf "%s" }}', '{{.a.b | printf "%s"}}'),
        ('{{ $x := index .m "k" }}{{ $x }}', '{{$x := index .m "k"}}{{$x}}'),
        ("{{ range $i, $v := .l }}{{ $v }}{{ end }}", "{{range $i, $v := .l}}{{$v}}{{end}}"),
        (
            '{{ with .a }}{{ . }}{{ end }}{{ template "t" . }}',
            '{{with .a}}{{.}}{{end}}{{template "t" .}}',
        ),
        ("{{ 1.5 }}{{ 'a' }}{{ nil }}{{ true }}", "{{1.5}}{{'a'}}{{nil}}{{true}}"),
        (
            "{{ if and .x (not .y) }}{{ .a }}{{ else if .z }}{{ .b }}{{ end }}",
            "{{if and .x (not .y)}}{{.a}}{{else}}{{if .z}}{{.b}}{{end}}{{end}}",
        ),
    ],
)
def test_a_tree_prints_as_go_prints_it(source: str, printed: str) -> None:
    assert str(parse(source, "x").root) == printed


def test_the_tree_holds_every_define_under_its_name() -> None:
    tree = parse('{{ define "inner" }}{{ .a }}{{ end }}{{ template "inner" . }}', "outer")
    assert set(tree.templates) == {"outer", "inner"} and tree.root is tree.templates["outer"]
    (action,) = tree.templates["inner"].nodes
    assert isinstance(action, nodes.ActionNode) and str(action.pipe) == ".a"


def test_a_number_keeps_its_text_and_go_kind() -> None:
    (action,) = parse("{{ 0x10 }}", "x").root.nodes
    assert isinstance(action, nodes.ActionNode)
    (number,) = action.pipe.cmds[0].args
    assert isinstance(number, nodes.NumberNode)
    assert (str(number), number.kind, number.int_value) == ("0x10", "int", 16)
