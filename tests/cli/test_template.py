"""``calico-render template``: one file, exactly the given values."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.clihelp import one_error, run
from tests.engine.gotemplate.test_parity import run_go


def test_bad_values_file_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "values.yaml"
    bad.write_text("calicoMode: [unclosed\n")
    r = run(capsys, "template", "--values", str(bad), str(bad))
    one_error(r, file=bad, line=2)


def test_template_jinja2_dialect_undefined_is_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "t.j2"
    t.write_text("a: {{ repo }}\nb: {{ missing }}\n")
    r = run(capsys, "template", str(t), "--set", "repo=r/")
    assert "'missing'" in one_error(r, file=t, line=2)  # names the undefined variable


def test_template_jinja2_dialect_renders(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "t.j2"
    t.write_text(
        "image: {{ repo }}calico/node\n{% if allowTypha == 'true' %}typha: on\n{% endif %}"
    )
    r = run(capsys, "template", str(t), "--set", "repo=r/", "--set", "allowTypha=true")
    assert r.code == 0 and r.out == "image: r/calico/node\ntypha: on\n"


def test_jinja2_sandbox_blocks_attribute_escape(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "t.j2"
    t.write_text("{{ ''.__class__.__mro__[1].__subclasses__() }}\n")
    r = run(capsys, "template", str(t))
    assert r.code == 2 and "__class__" not in r.out


def test_template_renders_exactly_the_given_values(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``template`` holds values only to YAML safety, not to BKE's context rules: an
    empty ``ClusterCidr.Ipv6`` renders as Go renders it."""
    tmpl = tmp_path / "t.yaml"
    tmpl.write_text("x: {{ .ClusterCidr.Ipv6 }}\n", encoding="utf-8")
    values = tmp_path / "v.yaml"
    values.write_text('ClusterCidr:\n  Ipv6: ""\n', encoding="utf-8")
    r = run(capsys, "template", str(tmpl), "--values", str(values))
    assert (r.code, r.out) == (0, "x: \n")
    values.write_text('ClusterCidr:\n  Ipv6: "a\\"b"\n', encoding="utf-8")
    r = run(capsys, "template", str(tmpl), "--values", str(values))
    assert (r.code, r.out) == (0, 'x: a"b\n')  # Go's bytes, whatever they do to YAML


#: Values the controller renders, whatever their characters (issue: 345 fuzz cases were
#: refused for them), including a JSON lone surrogate escape (Go decodes it to U+FFFD).
ODD_VALUES = (
    '{"tab": "a\\tb", "quote": "a\\"b", "back": "a\\\\", "ls": "a\\u2028b", '
    '"lone": "a\\ud800b", "nl": "a\\n- b: c", "mode": "IPIP", "auto": "first-found "}'
)


def test_template_prints_gos_bytes_for_any_value(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, go_render: Path
) -> None:
    """Held to Go: every value renders, even into a template that never reads it."""
    source = (
        't: {{ .tab }}\nq: "{{ .quote }}"\nb: {{ .back }}\nl: {{ .ls }}\no: {{ .lone }}\n'
        'n: {{ .nl }}\n{{ if eq .mode "ipip" }}ipip{{ else }}other{{ end }}: [{{ .auto }}]\n'
        '{{ printf "%q" .lone }}\n'
    )
    tmpl = tmp_path / "t.yaml"
    tmpl.write_text(source, encoding="utf-8")
    values = tmp_path / "v.json"
    values.write_text(ODD_VALUES, encoding="utf-8")
    unread = tmp_path / "u.yaml"
    unread.write_text("fixed: 1\n", encoding="utf-8")
    for template in (tmpl, unread):
        r = run(capsys, "template", str(template), "--values", str(values))
        assert r.code == 0, r.err
        go = run_go(go_render, tmp_path / "go", template.read_text(), json.loads(ODD_VALUES), "t")
        assert go.ok and r.out.encode("utf-8", "surrogateescape") == go.output


def test_the_dialect_flag_wins_over_the_suffix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "t.yaml"
    t.write_text("a: {{ repo }}\n", encoding="utf-8")
    r = run(capsys, "template", str(t), "--dialect", "jinja2", "--set", "repo=r/")
    assert (r.code, r.out) == (0, "a: r/\n")


def test_a_key_given_twice_keeps_the_last_as_go_decodes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, go_render: Path
) -> None:
    """Go's JSON decoder keeps the last of equal keys; so does the values file, with a
    warning naming both lines."""
    tmpl = tmp_path / "t.yaml"
    tmpl.write_text("a: {{ .a }}\nn: {{ .n.b }}\n", encoding="utf-8")
    values = tmp_path / "v.json"
    values.write_text('{"a": "first",\n "n": {"b": 1, "b": 2},\n "a": "last"}', encoding="utf-8")
    r = run(capsys, "template", str(tmpl), "--values", str(values))
    go = subprocess.run(
        [str(go_render), str(tmpl), str(values)], capture_output=True, check=True, timeout=60
    )
    assert (r.code, r.out.encode()) == (0, go.stdout) == (0, b"a: last\nn: 2\n")
    assert f"{values}:3: key 'a' is given twice (lines 1 and 3)" in r.err
    assert f"{values}:2: key 'n.b' is given twice (lines 2 and 2)" in r.err
