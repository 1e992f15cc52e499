"""Dialect dispatch and the compile cache (renderer.engine.compile)."""

from __future__ import annotations

import pytest

from renderer.engine.compile import compile_source, source_digest
from renderer.engine.gotemplate import GoTemplate
from renderer.engine.jinja import JinjaTemplate
from renderer.errors import InputError, TemplateError
from renderer.store.memo import memos


@pytest.mark.parametrize(
    ("dialect", "source", "kind"),
    [("go", "x: {{ .x }}\n", GoTemplate), ("jinja2", "x: {{ x }}\n", JinjaTemplate)],
)
def test_each_dialect_compiles_to_its_engine(dialect: str, source: str, kind: type) -> None:
    compiled = compile_source(source, "v/t.yaml", dialect)
    assert isinstance(compiled, kind)
    assert compiled.keys == frozenset({"x"})
    assert compiled.render({"x": "1"}) == "x: 1\n"


def test_an_unknown_dialect_is_an_input_error() -> None:
    with pytest.raises(InputError) as err:
        compile_source("x", "v/t.yaml", "mustache")
    assert err.value.key == "dialect"


def test_the_same_source_compiles_once() -> None:
    source = "same: {{ .a }}\n"
    first = compile_source(source, "v/same.yaml", "go")
    assert compile_source(source, "v/same.yaml", "go") is first
    assert compile_source(source, "v/same.yaml", "go", digest=source_digest(source)) is first
    assert compile_source(source + " ", "v/same.yaml", "go") is not first
    assert compile_source(source, "v/same.yaml", "go", template_name="other") is not first


def test_a_syntax_error_names_the_file() -> None:
    with pytest.raises(TemplateError) as err:
        compile_source("{{ if }}", "v/bad.yaml", "go")
    assert err.value.file == "v/bad.yaml"


def test_the_compile_cache_is_a_named_bounded_memo() -> None:
    memo = memos()["engine.compiled"]
    assert memo.maxsize >= 100
