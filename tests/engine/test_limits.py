"""Render limits: every way of running long or allocating much is exit 2, one line."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from renderer.engine import limits
from renderer.engine.compile import compile_source
from renderer.engine.gotemplate import compile_go
from renderer.engine.jinja import JinjaTemplate
from renderer.errors import LIBRARY_NAMES, TemplateError
from tests.clihelp import one_error, run

#: Template constructs that ran for minutes or allocated gigabytes before the limits.
JINJA_BOMBS = {
    "percent_width_filter": "{{ '%0999999999d'|format(1) }}",
    "percent_width_operator": "{{ '%0999999999d' % 1 }}",
    "percent_star_width": "{{ '%*d' % (999999999, 1) }}",
    "percent_precision": "{{ '%.999999999f' % 1.5 }}",
    "format_width": "{{ '{:999999999}'.format(1) }}",
    "format_nested_width": "{{ '{:{}}'.format(1, 999999999) }}",
    "format_map_width": "{{ '{a:>999999999}'.format_map({'a': 1}) }}",
    "string_doubling_tilde": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}{% set n.s = n.s ~ n.s %}"
        "{% endfor %}{{ n.s|length }}"
    ),
    "string_doubling_plus": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}{% set n.s = n.s + n.s %}"
        "{% endfor %}{{ n.s|length }}"
    ),
    "list_doubling": (
        "{% set n = namespace(l=[1]) %}{% for i in range(64) %}{% set n.l = n.l + n.l %}"
        "{% endfor %}{{ n.l|length }}"
    ),
    "batch_fill": "{{ [1]|batch(1000000000, 0)|list|length }}",
    "slice_many": "{{ [1]|slice(1000000000)|list|length }}",
    "nested_ranges": (
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
    ),
    "exponential_macro": (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(80) }}"
    ),
    "exponential_macro_output": (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% else %}xxxxxxxx{% endif %}"
        "{% endmacro %}{{ f(80) }}"
    ),
    # Growth through every operation that builds a string or a list (issue 20's battery):
    # each is refused as it happens, before the memory is taken.
    "string_doubling_percent": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}"
        "{% set n.s = '%s%s' % (n.s, n.s) %}{% endfor %}{{ n.s|length }}"
    ),
    "string_doubling_join_filter": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}"
        "{% set n.s = [n.s, n.s]|join %}{% endfor %}{{ n.s|length }}"
    ),
    "string_doubling_str_join": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}"
        "{% set n.s = ''.join([n.s, n.s]) %}{% endfor %}{{ n.s|length }}"
    ),
    "string_doubling_format_method": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}"
        "{% set n.s = '{}{}'.format(n.s, n.s) %}{% endfor %}{{ n.s|length }}"
    ),
    "string_doubling_format_filter": (
        "{% set n = namespace(s='x') %}{% for i in range(64) %}"
        "{% set n.s = '%s%s'|format(n.s, n.s) %}{% endfor %}{{ n.s|length }}"
    ),
    "list_doubling_extend": (
        "{% set l = [1] %}{% for i in range(64) %}{% set _ = l.extend(l) %}{% endfor %}"
        "{{ l|length }}"
    ),
    "list_append_distinct_strings": (
        "{% set l = [] %}{% for i in range(100000) %}"
        "{% set _ = l.append('x' * 10000000 ~ i) %}{% endfor %}{{ l|length }}"
    ),
    "lipsum_million": "{{ lipsum(1000000)|length }}",
    "wordwrap_huge": "{{ ('ab ' * 3000000)|wordwrap(1)|length }}",
    "captured_output": (
        "{% set big %}{% for a in range(100000) %}{% for b in range(100000) %}x"
        "{% endfor %}{% endfor %}{% endset %}{{ big|length }}"
    ),
}

GO_BOMBS = {
    "nested_ranges": "{{ range .l }}{{ range $.l }}{{ range $.l }}{{ end }}{{ end }}{{ end }}",
    "exponential_templates": (
        '{{ define "f" }}{{ if . }}{{ template "f" slice . 1 }}{{ template "f" slice . 1 }}'
        '{{ end }}{{ end }}{{ template "f" .s }}'
    ),
}
#: Go functions that build a string from a large argument: refused before allocating.
GO_ALLOC_BOMBS = {
    "indent_million_newlines": (
        '{{ $n := "\\n" }}{{ range slice .l 0 20 }}{{ $n = printf "%s%s" $n $n }}{{ end }}'
        "{{ indent $n .s }}"
    ),
    "printf_doubling": (
        '{{ $x := .s }}{{ range .l }}{{ $x = printf "%s%s" $x $x }}{{ end }}{{ len $x }}'
    ),
    "printf_star_widths": "{{ printf " + '"' + "%*d" * 17 + '"' + " 999999 1" * 17 + " }}",
    "js_expansion": (
        '{{ $x := "<" }}{{ range slice .l 0 22 }}{{ $x = printf "%s%s" $x $x }}{{ end }}{{ js $x }}'
    ),
}
GO_CONTEXT = {"l": list(range(3000)), "s": "x" * 60}


@pytest.fixture
def short_timeout() -> Iterator[None]:
    limits.set_render_timeout(0.5)
    try:
        yield
    finally:
        limits.set_render_timeout(limits.DEFAULT_RENDER_TIMEOUT)


@pytest.mark.parametrize("name", sorted(JINJA_BOMBS))
def test_jinja_bombs_stop_with_a_template_error(name: str, short_timeout: None) -> None:
    start = time.monotonic()
    with pytest.raises(TemplateError) as err:
        JinjaTemplate(JINJA_BOMBS[name], "v/bomb.j2").render({})
    assert time.monotonic() - start < 5
    assert err.value.file == "v/bomb.j2" and "\n" not in str(err.value)


@pytest.mark.parametrize("name", sorted(GO_BOMBS))
def test_go_bombs_stop_at_the_render_deadline(name: str, short_timeout: None) -> None:
    start = time.monotonic()
    with pytest.raises(TemplateError) as err:
        compile_go(GO_BOMBS[name], "v/bomb.yaml").render(GO_CONTEXT)
    assert time.monotonic() - start < 5
    assert err.value.argument == limits.RENDER_TIMEOUT and err.value.hint is not None
    assert LIBRARY_NAMES[limits.RENDER_TIMEOUT] in err.value.hint  # the library's words


@pytest.mark.parametrize("name", sorted(GO_ALLOC_BOMBS))
def test_go_functions_refuse_large_results_before_allocating(name: str) -> None:
    with pytest.raises(TemplateError) as err:
        compile_go(GO_ALLOC_BOMBS[name], "v/bomb.yaml").render(GO_CONTEXT)
    assert "result longer than" in str(err.value) and "\n" not in str(err.value)


#: Nesting Go renders; Jinja2 compiles to Python, whose compiler cannot nest this deep.
NESTING = {
    "for_25": "".join(f"{{% for i{i} in [1] %}}\n" for i in range(25)) + "x" + "{% endfor %}" * 25,
    "if_120": "{% if true %}\n" * 120 + "x" + "{% endif %}" * 120,
    "parentheses_300": "\n" * 4 + "{{ " + "(" * 300 + "1" + ")" * 300 + " }}",
}


@pytest.mark.parametrize("name", sorted(NESTING))
def test_deep_jinja_nesting_is_a_template_error_naming_the_line(name: str) -> None:
    with pytest.raises(TemplateError) as err:
        JinjaTemplate(NESTING[name], "v/deep.j2")
    expected = {"for_25": 25, "if_120": 120, "parentheses_300": 5}[name]
    assert err.value.file == "v/deep.j2" and err.value.line == expected
    assert "too deep" in err.value.message


def test_deep_go_nesting_renders() -> None:
    source = "{{ if true }}" * 120 + "x" + "{{ end }}" * 120
    source += "{{ " + "(" * 100 + "1" + ")" * 100 + " }}"
    assert compile_go(source, "v/deep.yaml").render({}) == "x1"


def test_go_loop_iteration_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_LOOP_ITERATIONS", 5000)
    t = compile_go("{{ range .l }}{{ range $.l }}{{ end }}{{ end }}", "t.yaml")
    with pytest.raises(TemplateError) as err:
        t.render({"l": list(range(100))})
    assert "loop iteration limit" in str(err.value)


def test_go_output_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_OUTPUT_CHARS", 1000)
    t = compile_go("{{ range .l }}0123456789{{ end }}", "t.yaml")
    assert len(t.render({"l": list(range(100))})) == 1000
    with pytest.raises(TemplateError) as err:
        t.render_mapped({"l": list(range(101))})
    assert "output limit" in str(err.value) and err.value.file == "t.yaml"


def test_loop_iteration_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_LOOP_ITERATIONS", 5000)
    t = JinjaTemplate(
        "{% for a in range(100) %}{% for b in range(100) %}{% endfor %}{% endfor %}", "t.j2"
    )
    with pytest.raises(TemplateError) as err:
        t.render({})
    assert "loop iteration limit" in str(err.value)


@pytest.mark.parametrize(
    ("source", "out"),
    [
        ("{{ '%05d|%-4s|%.2f' % (42, 'a', 1.5) }}", "00042|a   |1.50"),
        ("{{ '%s-%s'|format('a', 'b') }}", "a-b"),
        ("{{ '{:>6}|{:.3}'.format('ab', 'abcdef') }}", "    ab|abc"),
        ("{{ 'a' ~ 1 ~ none }}", "a1None"),
        ("{{ [1, 2]|batch(1)|list }}", "[[1], [2]]"),
        ("{{ [1, 2, 3]|slice(2)|list }}", "[[1, 2], [3]]"),
        ("{% for x in 'ab' %}{{ loop.index }}{{ x }}{{ loop.length }}{% endfor %}", "1a22b2"),
        ("{% for x in [] %}a{% else %}empty{% endfor %}", "empty"),
        ("{{ [1] + [2] }}{{ 'a' + 'b' }}{{ 1 + 2 }}", "[1, 2]ab3"),
    ],
)
def test_ordinary_templates_render_as_before(source: str, out: str) -> None:
    assert JinjaTemplate(source, "t.j2").render({}) == out


def test_cli_render_timeout_names_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "slow.j2"
    t.write_text(JINJA_BOMBS["exponential_macro"])
    try:
        r = run(capsys, "template", str(t), "--render-timeout", "0.3")
    finally:
        limits.set_render_timeout(limits.DEFAULT_RENDER_TIMEOUT)
    message = one_error(r, file=t)  # the flag to raise, and the time it was given
    assert "--render-timeout" in message and "0.3 s" in message


@pytest.mark.slow
def test_no_bomb_exhausts_memory_under_an_address_space_limit(tmp_path: Path) -> None:
    """In a process limited to 1.5 GB of address space, every bomb of both dialects
    ends in a TemplateError (a limit, or "out of memory") within 60 s, never a crash;
    and one through the CLI is exit 2 with one line."""
    bombs = tmp_path / "bombs.json"
    go = {**GO_BOMBS, **GO_ALLOC_BOMBS}
    bombs.write_text(json.dumps({"jinja2": JINJA_BOMBS, "go": go, "ctx": GO_CONTEXT}))
    script = (
        "import json, resource, sys, time\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1500 << 20, 1500 << 20))\n"
        "from renderer.engine import limits\n"
        "from renderer.engine.compile import compile_source\n"
        "from renderer.errors import TemplateError\n"
        "limits.set_render_timeout(0.3)\n"
        "data = json.load(open(sys.argv[1]))\n"
        "for dialect in ('jinja2', 'go'):\n"
        "    for name, source in data[dialect].items():\n"
        "        start = time.monotonic()\n"
        "        try:\n"
        "            compile_source(source, name, dialect).render(data['ctx'])\n"
        "        except TemplateError as exc:\n"
        "            slow = time.monotonic() - start > 60\n"
        "            print(name, 'refused', str(exc).count(chr(10)), 'slow' if slow else '')\n"
        "        else:\n"
        "            print(name, 'rendered')\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "print('~peak', 'under' if peak < 1500 << 20 else 'over', '1.5 GB')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(bombs)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    *lines, peak = sorted(proc.stdout.splitlines())
    assert len(lines) == len(JINJA_BOMBS) + len(go)
    assert all(line.endswith(" refused 0 ") for line in lines), lines
    assert peak == "~peak under 1.5 GB"
    template = tmp_path / "bomb.j2"
    template.write_text(JINJA_BOMBS["string_doubling_tilde"])
    cli = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1500 << 20, 1500 << 20))\n"
        "from renderer._entry import main\n"
        "sys.argv = ['calico-render', 'template', sys.argv[1]]\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", cli, str(template)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("dialect", ["go", "jinja2"])
def test_templates_with_too_many_actions_are_refused_before_compiling(
    dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_TEMPLATE_ACTIONS", 5)
    monkeypatch.setattr(limits, "MAX_GO_TEMPLATE_ACTIONS", 5)
    source = "".join(f"a{i}: {{{{ 1 }}}}\n" for i in range(7))
    with pytest.raises(TemplateError) as err:
        compile_source(source, "v/many", dialect)
    assert "action limit" in err.value.message and err.value.line == 6
    compile_source(source[: source.index("a5")], "v/many", dialect)  # five are fine
