"""What commands share: library errors worded from their fields, naming the flags."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import click
import pytest

from renderer.bke.cluster import Node, NodeInventory
from renderer.bke.context import kube_version_for
from renderer.cli.common import FLAGS, echo_err, emit, flag_worded
from renderer.data import schemas
from renderer.engine.jinja import JinjaTemplate
from renderer.errors import (
    FIXED,
    CalicoRenderError,
    InputError,
    RefusedError,
    TemplateError,
    naming,
)
from tests.clihelp import one_error, run
from tests.gatehelp import BROKEN
from tests.output.test_sarif import valid_sarif


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (InputError("bad", key="nodes", argument="nodes"), "--nodes: bad"),
        (RefusedError("no Typha", key="nodes", argument="nodes"), "--nodes: no Typha"),
        (
            InputError("no dots", key="to_version '../x'", argument="to_version", value="../x"),
            "--to-version '../x': no dots",
        ),
        (
            InputError("unknown", file="d", key="version", argument="version"),
            "d: --version: unknown",
        ),
        (InputError("bad", key="image_prefix", argument="image_prefix"), "--repo: bad"),
        (InputError("unsafe", file="f", key="ClusterCidr.Ipv6"), "f: ClusterCidr.Ipv6: unsafe"),
        (InputError("x", key="set a", argument="set"), "--set a: x"),
        (InputError("x", key="upstream", argument="upstream"), "--upstream: x"),
        (
            InputError("gone", file="e", key="exceptions", argument="exceptions"),
            "e: --exceptions: gone",
        ),
        (InputError("no key"), "no key"),
        (InputError("a key, no argument", key="nodes"), "nodes: a key, no argument"),
    ],
)
def test_flag_worded(error: CalicoRenderError, line: str) -> None:
    assert flag_worded(error) == line


def test_arguments_are_named_as_flags() -> None:
    """Every argument an error can name is a flag; remedies may say more (its value)."""
    plain = {k: v for k, v in FLAGS.items() if k not in (FIXED, "rules")}
    assert all(flag.startswith("--") for flag in plain.values())


def _two_clusters() -> InputError:
    nodes = tuple(
        Node(name, ("node",), cluster=cluster) for name, cluster in (("a1", "a"), ("b1", "b"))
    )
    with pytest.raises(InputError) as err:
        NodeInventory("n", nodes).single_cluster()
    return err.value


def test_remedies_name_the_argument_in_the_caller_s_words() -> None:
    """A remedy is structured (the argument that does it) and worded when raised: in the
    library's words, or the command line's while it runs."""
    line = "schema check on Kubernetes 1.28, the config's kubernetesVersion v1.28.8"
    assert kube_version_for("v1.28.8", ["1.28"])[1] == (
        f"{line} (the kube_versions argument to choose)"
    )
    with naming(FLAGS):
        assert kube_version_for("v1.28.8", ["1.28"])[1] == f"{line} (--kube-version to choose)"
    assert "(the kube_versions argument to choose)" in kube_version_for("v1.28.8", ["1.28"])[1]


def test_bkenodes_of_two_clusters_say_which_argument_counts_them() -> None:
    err = _two_clusters()
    assert (err.argument, err.hint) == ("config", "give a config to count the nodes of one cluster")
    with naming(FLAGS):
        err = _two_clusters()
    assert err.hint == "give --config to count the nodes of one cluster"
    assert flag_worded(err) == (
        "n: BKENodes of 2 clusters: a (1), b (1); give --config to count the nodes of one cluster"
    )


def test_a_template_limit_names_no_flag() -> None:
    source = '{{ "%99999999d"|format(1) }}'
    with pytest.raises(TemplateError) as err:
        JinjaTemplate(source, "t.j2").render({})
    assert "(format width limit for untrusted templates; not configurable)" in err.value.message
    with naming(FLAGS), pytest.raises(TemplateError) as err:
        JinjaTemplate(source, "t.j2").render({})
    assert "(format width limit for untrusted templates; no flag)" in err.value.message


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "codequality"])
def test_a_bad_input_run_still_writes_its_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    """--output FILE exists after exit 2, in the requested format, holding one error
    finding of stage input located where the input is bad; the exit code is kept."""
    report = tmp_path / f"report.{fmt}"
    bad = BROKEN / "bad.yaml"
    r = run(capsys, "validate", str(bad), "--format", fmt, "-o", str(report))
    one_error(r, file=bad, line=5)
    text = report.read_text(encoding="utf-8")
    if fmt == "text":
        assert text.startswith(f"{bad}:5:") and ": error: [input-error] " in text
    elif fmt == "json":
        data = json.loads(text)
        schemas.validate_output("input-error.schema.json", data)
        (f,) = data["findings"]
        assert (f["stage"], f["severity"], f["location"]["path"], f["location"]["line"]) == (
            "input", "error", str(bad), 5,
        )  # fmt: skip
    elif fmt == "junit":
        (case,) = ET.fromstring(text).iter("testcase")
        assert case.find("failure") is not None and case.get("file") == str(bad)
    elif fmt == "sarif":
        (result,) = valid_sarif(text)["runs"][0]["results"]
        assert result["ruleId"] == "input-error"
    else:
        (issue,) = json.loads(text)
        assert (issue["check_name"], issue["location"]["lines"]["begin"]) == ("input-error", 5)


def test_without_output_a_bad_input_run_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "validate", str(tmp_path / "missing.yaml"), "--format", "json").code == 2
    assert list(tmp_path.iterdir()) == []


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("encoding", "text", "terminal"),
    [
        ("utf-8", "calico-render: plain é", False),
        ("utf-8", "calico-render: \x1b[31mred\x1b[0m", False),  # click strips colour codes
        ("utf-8", "calico-render: \x1b[31mred\x1b[0m", True),  # not on a terminal
        ("ascii", "calico-render: é", False),  # click re-wraps an ASCII stream as UTF-8
        ("latin-1", "calico-render: é", False),
    ],
)
def test_echo_err_writes_what_click_echo_writes(
    monkeypatch: pytest.MonkeyPatch, encoding: str, text: str, terminal: bool
) -> None:
    written = []
    for echo in (echo_err, lambda t: click.echo(t, err=True)):
        raw = io.BytesIO()
        kind = _Terminal if terminal else io.TextIOWrapper
        monkeypatch.setattr("sys.stderr", kind(raw, encoding=encoding, errors="strict"))
        echo(text)
        written.append(raw.getvalue())
    assert written[0] == written[1]
    assert written[0].endswith(b"\n")


def test_echo_err_without_stderr_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", None)
    echo_err("calico-render: nowhere")  # no error, as click.echo


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("a: é\n", "a: é\n".encode()),
        ("b: \udcff\n", b"b: \xff\n"),  # a lone byte of a template, written as that byte
        ("c: \ud800 \udcff\n", b"c: \\ud800 \\udcff\n"),  # any other surrogate: escaped
    ],
)
def test_emit_writes_utf_8_and_a_template_s_lone_bytes_as_they_are(
    monkeypatch: pytest.MonkeyPatch, text: str, written: bytes
) -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr("sys.stdout", out)
    emit(text)
    assert out.buffer.getvalue() == written
