"""Dialect dispatch and the compile cache (renderer.engine.compile)."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.engine import compile as compile_mod
from renderer.engine.compile import compile_file, compile_source, source_digest, template_digest
from renderer.engine.gotemplate import GoTemplate
from renderer.engine.jinja import JinjaTemplate
from renderer.errors import InputError, TemplateError
from renderer.manifests.tree import TemplateFile
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


def test_the_caches_are_named_bounded_memos() -> None:
    registered = memos()
    for memo in (compile_mod._CACHE, compile_mod._DIGESTS):
        assert registered[memo.name] is memo
        assert memo.maxsize >= 100


def _template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> TemplateFile:
    """A Go template file ``v/t.yaml`` holding ``text``, whose every stat is trusted."""
    monkeypatch.setattr(compile_mod, "RACY_NS", -(10**18))  # trust every stat
    path = tmp_path / "v" / "t.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return TemplateFile("t.yaml", path, "go")


def test_a_file_is_known_by_its_digest_once_its_stat_is_old_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = _template(tmp_path, monkeypatch, "a: {{ .a }}\n")
    path = template.path
    compiled = compile_file(template)
    assert compile_mod._DIGESTS.get(str(path)) is not None
    assert template_digest(template) == source_digest("a: {{ .a }}\n")
    assert compile_file(template) is compiled
    assert compiled.name == "v/t.yaml" and compiled.keys == frozenset({"a"})


def test_a_file_whose_digest_is_known_compiles_without_hashing_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = _template(tmp_path, monkeypatch, "b: {{ .b }}\n")
    digest = template_digest(template)  # as a verdict's key asks first
    hashed: list[str] = []
    monkeypatch.setattr(compile_mod, "source_digest", lambda s: hashed.append(s) or "x")
    compiled = compile_file(template)
    assert hashed == [] and compiled.keys == frozenset({"b"})
    assert compile_mod._CACHE.get(("go", "v/t.yaml", "calico", digest)) is compiled


def test_a_file_that_changes_while_it_is_read_is_hashed_as_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = _template(tmp_path, monkeypatch, "c: {{ .c }}\n")
    path = template.path
    template_digest(template)
    real = compile_mod.read_text

    def changed_meanwhile(p: Path) -> str:
        path.write_text("dd: {{ .d }}\n", encoding="utf-8")  # a new size: a new signature
        return real(p)

    monkeypatch.setattr(compile_mod, "read_text", changed_meanwhile)
    compiled = compile_file(template)
    assert compiled.keys == frozenset({"d"})
    assert compile_mod._CACHE.get(("go", "v/t.yaml", "calico", source_digest("dd: {{ .d }}\n")))
