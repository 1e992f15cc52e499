"""``calico-render template``: one file, exactly the given values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clihelp import one_error, run


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
    one_error(r, file=values, line=2, key="ClusterCidr.Ipv6")


def test_the_dialect_flag_wins_over_the_suffix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "t.yaml"
    t.write_text("a: {{ repo }}\n", encoding="utf-8")
    r = run(capsys, "template", str(t), "--dialect", "jinja2", "--set", "repo=r/")
    assert (r.code, r.out) == (0, "a: r/\n")
