"""The Go dialect's entry points (renderer.engine.gotemplate): compile once, render
many; whatever the template or context, only TemplateError escapes."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from renderer.engine.gotemplate import GoTemplate, compile_go
from renderer.errors import TemplateError


def test_compile_once_render_many() -> None:
    tmpl = compile_go("{{ .a }}-{{ .b }}", "x")
    assert isinstance(tmpl, GoTemplate)
    assert tmpl.name == "x"
    assert tmpl.render({"a": 1, "b": 2}) == "1-2"
    assert tmpl.render({"a": "x"}) == "x-<no value>"


def test_bad_context_is_a_template_error() -> None:
    with pytest.raises(TemplateError) as err:
        compile_go("{{ . }}", "x").render({1: "a"})  # type: ignore[dict-item]
    assert err.value.file == "x" and "key 1 at . " in err.value.message  # the key, where
    with pytest.raises(TemplateError) as err:
        compile_go("{{ . }}", "x").render({"a": object()})
    assert err.value.file == "x" and "value at .a " in err.value.message  # the path


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


def _seeds(quick: int, total: int) -> list[Any]:
    """Fuzz seeds: the first ``quick`` in the quick loop, the rest under ``-m slow``."""
    return [s if s < quick else pytest.param(s, marks=pytest.mark.slow) for s in range(total)]


@pytest.mark.parametrize("seed", _seeds(10, 40))
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


@pytest.mark.parametrize("seed", _seeds(3, 10))
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
