"""CLI behaviour that needs no templates: typha, exit codes, one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from renderer import __version__
from tests.clihelp import run


def test_typha_boundary_table(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "typha")
    assert r.code == 0
    rows = [line.split() for line in r.out.splitlines()[1:]]
    assert [row[:3] for row in rows] == [
        ["50", "false", "0"],
        ["51", "true", "3"],
        ["600", "true", "3"],
        ["601", "true", "4"],
        ["800", "true", "4"],
        ["801", "true", "5"],
        ["1000", "true", "5"],
        ["4000", "true", "20"],
        ["4001", "true", "20"],
    ]
    assert "capacity assessment" in r.out.splitlines()[-1]


def test_typha_explains_one_decision(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "typha", "--nodes", "601")
    assert r.code == 0
    assert "typhaReplicas: 4" in r.out and "ceil(601/200)=4" in r.out
    assert r.err == ""


def test_typha_capacity_warning_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "typha", "--nodes", "4001")
    assert r.code == 0 and "capacity assessment" in r.err


@pytest.mark.parametrize("nodes", ["0", "-1", "many"])
def test_bad_node_count_is_exit_2(capsys: pytest.CaptureFixture[str], nodes: str) -> None:
    r = run(capsys, "typha", "--nodes", nodes)
    assert r.code == 2 and "--nodes" in r.err and "Traceback" not in r.err


def test_tool_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--tool-version")
    assert r.code == 0 and r.out.strip() == f"calico-render {__version__}"


def test_render_needs_version_and_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "v3.28")
    assert r.code == 2 and "--nodes" in r.err


def test_unknown_version_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "kubernetes" / "calico" / "v3.28.2").mkdir(parents=True)
    (tmp_path / "kubernetes" / "calico" / "v3.28.2" / "calico.yaml").write_text("a: 1\n")
    r = run(capsys, "--manifests", str(tmp_path), "--version", "v9.9", "--nodes", "3")
    assert r.code == 2
    assert len(r.err.strip().splitlines()) == 1
    assert "v3.28.2" in r.err and "--version" in r.err


def test_bad_values_file_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "values.yaml"
    bad.write_text("calicoMode: [unclosed\n")
    r = run(capsys, "template", "--values", str(bad), str(bad))
    assert r.code == 2
    assert len(r.err.strip().splitlines()) == 1 and "values.yaml:" in r.err


def test_template_jinja2_dialect_undefined_is_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    t = tmp_path / "t.j2"
    t.write_text("a: {{ repo }}\nb: {{ missing }}\n")
    r = run(capsys, "template", str(t), "--set", "repo=r/")
    assert r.code == 2 and "missing" in r.err and "t.j2:2" in r.err


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


def test_unexpected_exception_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from renderer.calico import policy

    def boom(nodes: int) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(policy, "decide_typha", boom)
    r = run(capsys, "typha", "--nodes", "5")
    assert r.code == 2
    assert r.err.strip() == (
        "calico-render: internal error: KeyError: 'surprise' (run with --debug for the traceback)"
    )
    r = run(capsys, "typha", "--nodes", "5", "--debug")
    assert "Traceback" in r.err


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--manifests", "/tmp", "check"], "--manifests"),
        (["--nodes", "601", "typha"], "--nodes"),
        (["--kube-version", "1.25", "validate", "-"], "--kube-version"),
    ],
)
def test_options_before_a_command_are_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    r = run(capsys, *args)
    assert r.code == 2 and named in r.err and "after its name" in r.err
    assert r.out == ""


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["typha", "--nodes", "0"], ["check", "--format", "xml"], ["--version", "v3.28"]):
        r = run(capsys, *args)
        assert r.code == 2
        assert len(r.err.strip().splitlines()) == 1 and r.err.startswith("calico-render: error:")


def test_version_without_a_value_hints_at_tool_version(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version")
    assert r.code == 2 and "--tool-version" in r.err


def test_a_bad_version_is_quoted(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "../../etc", "--nodes", "3")
    assert r.code == 2 and "--version '../../etc': " in r.err


def test_capital_v_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "V3.28", "--nodes", "3", "--no-validate")
    assert r.code == 0 and "Calico v3.28.2" in r.err


def test_schema_messages_spell_values_as_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from renderer.data.schemas import yaml_repr, yaml_spelling

    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: true\n")
    r = run(capsys, "validate", str(path))
    assert r.code == 1 and "true is not of type 'string'" in r.err + r.out
    assert "True" not in r.err + r.out
    assert yaml_spelling("None is not 'None'") == "null is not 'None'"
    assert (yaml_repr(None), yaml_repr(False), yaml_repr("x")) == ("null", "false", "'x'")


def test_output_dir_of_another_version_leaves_no_file_of_the_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``kubectl apply -f DIR`` must not mix two Calico versions; other files stay."""
    out = tmp_path / "out"
    assert run(capsys, "--version", "v3.28.2", "--nodes", "60", "--output-dir", str(out)).code == 0
    (out / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    assert run(capsys, "--version", "v3.27.3", "--nodes", "10", "--output-dir", str(out)).code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        ".calico-render-files",
        "calico.yaml",
        "kustomization.yaml",
    ]


def test_check_output_to_dev_null_keeps_the_device(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import stat

    r = run(capsys, "check", "--kube-version", "1.34", "--output", "/dev/null")
    assert r.code in (0, 1) and r.out == ""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


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
    assert r.code == 2 and f"{values}:2: ClusterCidr.Ipv6:" in r.err
