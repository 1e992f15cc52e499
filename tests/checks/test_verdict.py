"""A version's verdict: the gate's contract and release rules, judged without the gate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from renderer.checks import pipeline, renders, verdict
from renderer.finding import blocking
from renderer.manifests.tree import list_versions

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "bke-real"


@pytest.mark.parametrize(
    ("root", "name"),
    [(None, v.name) for v in list_versions()] + [(REAL, v.name) for v in list_versions(REAL)],
)
def test_the_verdict_is_the_gates_contract_and_release_rules(root: Path | None, name: str) -> None:
    version = next(v for v in list_versions(root) if v.name == name)
    report = renders.capability_of(version)
    rules = sorted({f.rule for f in blocking(pipeline.release_rules(report))})
    judged = verdict.verdict(version)
    assert (judged.capable, judged.missing, judged.summary) == (
        report.capable,
        tuple(report.missing),
        report.verdict,
    )
    assert judged.rule_errors == (tuple(rules) if report.capable else ())
    assert verdict.RULE_NODES == renders.RULE_NODES


def test_judging_a_verdict_does_not_load_the_gate() -> None:
    code = (
        "import json, os, sys\n"
        "os.environ['CALICO_RENDER_NO_CACHE'] = '1'\n"
        "from renderer.checks import verdict\n"
        "from renderer.manifests.tree import resolve_version\n"
        f"v = verdict.verdict(resolve_version('v3.31.3', {str(REAL)!r}))\n"
        "print(json.dumps([v.rule_errors, sorted(sys.modules)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    rules, modules = json.loads(out.stdout)
    assert rules == ["typha-anti-affinity"]
    assert [m for m in modules if m.startswith("renderer.checks.")] == ["renderer.checks.verdict"]
