"""The fast lexer against the previous character-by-character one (kept as a reference).

Both must give the same token stream (type, offset, text, line) and the same error, on
the parity corpus, every bundled and fixture template, generated programs and a random
mix of well-formed and malformed fragments; and the items of a few small inputs.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from renderer.engine.gotemplate import compile_go
from renderer.engine.gotemplate.lexer import T, lex
from tests import gotemplate_lexer_reference as reference
from tests.gotemplate_gen import random_template

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parent

Token = tuple[str, int, str, int]


def tokens_fast(source: str) -> list[Token]:
    return [(item.typ.name, item.pos, item.val, item.line) for item in lex(source)]


def tokens_reference(source: str) -> list[Token]:
    return [(item.typ.name, item.pos, item.val, item.line) for item in reference.lex(source)]


def assert_same(source: str) -> None:
    assert tokens_fast(source) == tokens_reference(source), repr(source)


def _parity_templates() -> list[str]:
    data = YAML(typ="safe").load((HERE / "parity" / "cases.yaml").read_text(encoding="utf-8"))
    return [case["template"] for case in data["cases"]]


def _template_files() -> list[Path]:
    roots = [ROOT / "manifests", HERE / "fixtures", ROOT / "examples"]
    return sorted(
        path
        for root in roots
        if root.is_dir()
        for path in root.rglob("*")
        if path.is_file() and path.suffix in (".yaml", ".yml", ".tmpl", ".tpl")
    )


def test_parity_corpus_lexes_the_same() -> None:
    templates = _parity_templates()
    assert len(templates) >= 200
    for source in templates:
        assert_same(source)


def test_bundled_and_fixture_templates_lex_the_same() -> None:
    files = _template_files()
    assert any("{{" in path.read_text(encoding="utf-8") for path in files)
    for path in files:
        assert_same(path.read_text(encoding="utf-8"))


def test_generated_programs_lex_the_same() -> None:
    for seed in range(400):
        assert_same(random_template(seed))


#: Fragments, well-formed and not, that a random template is stitched from.
FRAGMENTS = [
    "{{",
    "}}",
    "{{- ",
    " -}}",
    "{{-",
    "-}}",
    "{{/* c */}}",
    "{{- /* c\n */ -}}",
    "{{/* open",
    "{{/* c */ }}",
    "*/",
    "/*",
    " ",
    "\t",
    "\n",
    "\r\n",
    "  \n ",
    "text",
    "a: b\n",
    "é",
    "日本",
    ".x",
    ".x.y",
    ".",
    "..",
    ".é",
    ".x\u0301",
    ".5",
    ".a_1",
    "$",
    "$x",
    "$x.y",
    "$é",
    "$1",
    "x",
    "_",
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
    "nil",
    "true",
    "false",
    "printf",
    "é1",
    "x٣",
    "0",
    "1",
    "-1",
    "+2",
    "007",
    "0x1F",
    "0X_f",
    "0o17",
    "0b101",
    "0b2",
    "1_000",
    "1.5",
    "1.",
    "1e3",
    "1E-3",
    "0x1p-2",
    "0x1.8p3",
    "2i",
    "1+2i",
    "1-2",
    "1+2",
    "3x",
    "1.2.3",
    "9é",
    "-",
    "+",
    '"s"',
    '"a\\"b"',
    '"a\\\\"',
    '"\\n\\t"',
    '"open',
    '"a\nb"',
    '"\\',
    "'a'",
    "'\\''",
    "'ab'",
    "'open",
    "'\n'",
    "`raw`",
    "`a\nb`",
    "`open",
    "(",
    ")",
    "|",
    "=",
    ":=",
    ":",
    ":x",
    ",",
    "#",
    "@",
    "!",
    "}",
    "{",
    "\x00",
    "\x7f",
    "\u00a0",
    "\u2028",
    "\U0001f600",
    "\ud800",
]


def random_fragments(seed: int) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    for _ in range(rng.randint(1, 24)):
        if rng.random() < 0.3:
            parts.append(rng.choice(["{{", "{{- ", "{{ "]))
            for _ in range(rng.randint(0, 6)):
                parts.append(rng.choice(FRAGMENTS))
                if rng.random() < 0.5:
                    parts.append(rng.choice([" ", "", "\n", "|", "("]))
            parts.append(rng.choice(["}}", " -}}", " }}", "", "-}}"]))
        else:
            parts.append(rng.choice(FRAGMENTS))
    return "".join(parts)


@pytest.mark.parametrize(
    "block", [0, *(pytest.param(b, marks=pytest.mark.slow) for b in range(1, 10))]
)
def test_random_fragments_lex_the_same(block: int) -> None:
    """1,000 random fragment programs per block: the first block in the quick loop, all
    ten (10,000) under ``-m slow``."""
    for seed in range(block * 1000, (block + 1) * 1000):
        assert_same(random_fragments(seed))


EDGE_CASES = [
    "",
    "plain text\nno actions",
    "{{}}",
    "{{ }}",
    "{{  -}}",
    "{{ x  -}}  \n y",
    "{{x -}}",
    "{{x-}}",
    "{{-3}}",
    "{{- 3 -}}",
    "{{ (1) }}",
    "{{ ((.x)) }}",
    "{{ ( }}",
    "{{ ) }}",
    "{{ (.x }}",
    "{{ .x) }}",
    '{{ "}}" }}',
    '{{ "a\\"}}" }}',
    "{{ `}}` }}",
    "{{ '}' }}",
    '{{ .x\n | printf\n "%s" }}\n{{ .y }}',
    "{{\n\n.x\n\n}}\nz",
    "{{ $x := 1 }}{{ $x = 2 }}{{ $ }}",
    "{{ .x.y.z }}{{ $a.b }}{{ . }}{{ .}}{{.}}",
    "{{ 1 }}{{ 12 }}{{ 1.5 }}{{ 1e3 }}{{ 0x10 }}{{ 1|printf }}",
    "{{ 1}}{{1}}{{ 1)}}{{ (1)}}",
    "{{ true }}{{ false }}{{ nil }}{{ trueish }}",
    "a{{/* c */}}b{{- /* c */ -}}c",
    "{{ .x }}{{",
    "{{ .x",
    "{{ .x ",
    "{{ if",
    '{{ "',
    "{{ .",
    "{{ $",
    "{{ 1",
    "{",
    "}}",
    "x}}{{.y}}",
]


@pytest.mark.parametrize("source", EDGE_CASES)
def test_edge_cases_lex_the_same(source: str) -> None:
    assert_same(source)


def test_multiline_programs_lex_the_same() -> None:
    """Actions spread over lines: every item's line is counted the same way."""
    rng = random.Random(7)
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(1, 30)):
            parts.append(rng.choice(FRAGMENTS))
            parts.append(rng.choice(["\n", " \n ", "", "{{ .a\n}}", "{{\n`x\ny`\n}}"]))
        assert_same("".join(parts))


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_every_fragment_alone_in_an_action_lexes_the_same(fragment: str) -> None:
    for source in (
        fragment,
        "{{" + fragment + "}}",
        "{{ " + fragment + " }}",
        "{{- " + fragment + " -}}",
        "x {{" + fragment,
        "{{" + fragment + " ",
        "{{(" + fragment + ")}}",
        "{{" + fragment + fragment + "}}",
        "{{" + fragment + ".y}}",
        "{{" + fragment + "-}}",
        "{{" + fragment + " -}}",
    ):
        assert_same(source)


def test_fast_lexer_is_not_the_reference() -> None:
    """Guard: the comparison above must compare two different implementations."""
    fast: object = lex  # the two lexers' types differ: compare them as objects
    assert reference.lex is not fast
    assert reference.Lexer is not lex.__globals__["Lexer"]


# --- items on small inputs ----------------------------------------------------------------


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
    assert compile_go("a \n {{- /* note */ -}} \n b", "t").render({}) == "ab"
