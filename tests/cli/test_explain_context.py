"""``calico-render explain-context``: each file's context and its origins."""

from __future__ import annotations

import pytest

from renderer.data.schemas import EXPLAIN_CONTEXT as EXPLAIN
from tests.cli.jsondoc import json_doc
from tests.clihelp import run


def test_text_has_a_block_per_json_file(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("explain-context", "--version", "v3.28.2", "--nodes", "3")
    code, data = json_doc(capsys, EXPLAIN, *args)
    assert code == 0 and (data["nodes"], data["decision"]["allowTypha"]) == (3, "false")
    r = run(capsys, *args)
    assert r.code == 0
    heads = [line.split(" ")[0] for line in r.out.splitlines() if line and line[0] != " "]
    assert heads[1:] == [f["file"] for f in data["files"]]


def test_a_user_value_shows_its_origin(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("explain-context", "--version", "v3.28.2", "--nodes", "3", "--set", "vethMTU=1400")
    _, data = json_doc(capsys, EXPLAIN, *args)
    sources = {f["values"]["vethMTU"]["source"] for f in data["files"] if "vethMTU" in f["values"]}
    assert sources == {"user"}


@pytest.mark.parametrize(
    ("args", "flag"),
    [((), "--version"), (("--version", "v3.28"), "--nodes")],
)
def test_missing_inputs_name_the_flag(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], flag: str
) -> None:
    r = run(capsys, "explain-context", *args)
    assert r.code == 2 and r.err.startswith(f"calico-render: error: {flag}: ")
