"""``calico-render plan``: text, JSON and the files of --output-dir describe one plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from renderer.data.schemas import PLAN
from tests.cli.jsondoc import json_doc
from tests.clihelp import run

SCALE = ("plan", "--to-version", "v3.28.2", "--nodes", "60", "--from-nodes", "10")


def test_text_has_a_block_per_json_phase(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = json_doc(capsys, PLAN, *SCALE)
    assert code == 0 and (data["change"], data["shape"]) == ("scale", "introduce-typha")
    r = run(capsys, *SCALE)
    assert r.code == 0 and r.out.splitlines()[0].endswith(f": {data['shape']}")
    phases = [line.split(": ")[1] for line in r.out.splitlines() if line.startswith("phase ")]
    assert phases == [p["name"] for p in data["phases"]]


def test_output_dir_holds_the_json_plan(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, data = json_doc(capsys, PLAN, *SCALE)
    r = run(capsys, *SCALE, "--output-dir", str(tmp_path))
    assert r.code == 0
    assert json.loads((tmp_path / "plan.json").read_text(encoding="utf-8")) == data
    applied = sorted(p.name for p in tmp_path.glob("*.apply.yaml"))
    assert len(applied) == sum(1 for p in data["phases"] if p["apply"])


def test_the_same_cluster_has_nothing_to_change_in_text_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("plan", "--to-version", "v3.28.2", "--nodes", "3")
    r = run(capsys, *args, "--output-dir", str(tmp_path))
    assert r.code == 0 and r.out.startswith("nothing to change: ") and not any(tmp_path.iterdir())
    code, data = json_doc(capsys, PLAN, *args)
    assert code == 0 and data["change"] == "reconfigure" and data["from"] == data["to"]
