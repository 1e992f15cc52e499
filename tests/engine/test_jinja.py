"""The Jinja2 dialect cannot be made to allocate without bound: refused with the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.engine.jinja import MAX_RESULT_SIZE, JinjaTemplate
from renderer.errors import TemplateError
from tests.clihelp import one_error, run


@pytest.mark.parametrize(
    "expr",
    [
        "'x' * 10**12",
        "10**12 * 'x'",
        "[1] * 10**12",
        "('ab' * 1000) * 10**6",
        "2 ** (10**9)",
        "(-3) ** (10**8)",
        "(10**1000) ** 100",
        "(2 ** 40000) * (2 ** 40000)",
        "'x'.center(10**12)",
        "'x'.ljust(10**12)",
        "'x'.zfill(10**12)",
        "'a\tb'.expandtabs(10**12)",
        "('x' * 10**6).replace('x', 'y' * 10**6)",
        "'x'|center(10**12)",
        "'a\\nb'|indent(10**12)",
        "('x' * 10**6)|replace('', 'y' * 100)",
        "10.0 ** 400",
    ],
)
def test_huge_results_are_template_errors_with_the_line(expr: str) -> None:
    t = JinjaTemplate(f"a: 1\nb: {{{{ {expr} }}}}\n", "v/t.j2")
    with pytest.raises(TemplateError) as exc:
        t.render({})
    assert exc.value.file == "v/t.j2" and exc.value.line == 2


@pytest.mark.parametrize(
    ("expr", "out"),
    [
        ("'ab' * 3", "ababab"),
        ("[1, 2] * 2", "[1, 2, 1, 2]"),
        ("3 * 4", "12"),
        ("2 ** 10", "1024"),
        ("2 ** -1", "0.5"),
        ("'x'.center(5)", "  x  "),
        ("'x'|center(3)", " x "),
        ("'a\nb'|indent(2)", "a\n  b"),
        ("'a-b'|replace('-', '_')", "a_b"),
        ("'a-b-c'|replace('-', '_', 1)", "a_b-c"),
        ("'a-b'.replace('-', '+')", "a+b"),
    ],
)
def test_ordinary_operations_still_work(expr: str, out: str) -> None:
    assert JinjaTemplate(f"{{{{ {expr} }}}}", "t.j2").render({}) == out


def test_the_limit_is_ten_megabytes() -> None:
    ok = JinjaTemplate(f"{{{{ ('x' * {MAX_RESULT_SIZE}) | length }}}}", "t.j2")
    assert ok.render({}) == str(MAX_RESULT_SIZE)
    with pytest.raises(TemplateError):
        JinjaTemplate(f"{{{{ 'x' * {MAX_RESULT_SIZE + 1} }}}}", "t.j2").render({})


def test_cli_template_memory_bomb_is_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "big.j2"
    t.write_text("{{ 'x' * 10**12 }}\n")
    r = run(capsys, "template", str(t))
    one_error(r, file=t, line=1)
