"""``calico-render typha``: one decision, or the boundary table."""

from __future__ import annotations

import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer.output.documents import TYPHA
from tests.cli.jsondoc import json_doc
from tests.clihelp import one_error, run


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
    assert [len(row) > 3 for row in rows] == [False] * 8 + [True]  # only 4001 is capped


def test_typha_explains_one_decision(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "typha", "--nodes", "601")
    assert r.code == 0 and r.err == ""
    fields = {k: v.strip() for k, v in (line.split(":", 1) for line in r.out.splitlines())}
    assert (fields["nodes"], fields["allowTypha"], fields["typhaReplicas"]) == ("601", "true", "4")
    _, data = json_doc(capsys, TYPHA, "typha", "--nodes", "601")
    assert fields["why"] == data["decision"]["reason"]  # the same decision as the JSON
    assert fields["why"].endswith(" max(3, ceil(601/200)=4)) = 4")  # the formula, worked


def test_typha_capacity_warning_on_stderr_in_text_only(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "typha", "--nodes", "4001")
    assert r.code == 0 and r.err.startswith("calico-render: warning: ")
    r = run(capsys, "typha", "--nodes", "4001", "--format", "json")
    assert r.code == 0 and r.err == ""


@pytest.mark.parametrize("nodes", ["0", "-1", "many"])
def test_bad_node_count_is_exit_2(capsys: pytest.CaptureFixture[str], nodes: str) -> None:
    r = run(capsys, "typha", "--nodes", nodes)
    assert "'--nodes'" in one_error(r)  # click's usage error quotes the flag


def test_typha_json(
    capsys: pytest.CaptureFixture[str], data_regression: DataRegressionFixture
) -> None:
    code, table = json_doc(capsys, TYPHA, "typha")
    assert code == 0 and table["decision"] is None
    code, one = json_doc(capsys, TYPHA, "typha", "--nodes", "5000")
    d = one["decision"]
    assert (d["allowTypha"], d["typhaReplicas"], d["capped"], one["table"]) == (
        "true",
        "20",
        True,
        None,
    )
    data_regression.check({"table": table, "nodes_5000": one})
