"""A version's verdict: the gate's contract and release rules, kept per template content."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from renderer.checks import pipeline, verdict
from renderer.finding import blocking
from renderer.manifests.tree import list_versions, resolve_version
from renderer.store.memo import clear_all
from tests.gatehelp import bke_tree

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "bke-real"


@pytest.mark.parametrize(
    ("root", "name"),
    [(None, v.name) for v in list_versions()] + [(REAL, v.name) for v in list_versions(REAL)],
)
def test_the_verdict_is_the_gates_contract_and_release_rules(root: Path | None, name: str) -> None:
    version = next(v for v in list_versions(root) if v.name == name)
    report = verdict.capability_of(version)
    rules = sorted({f.rule for f in blocking(pipeline.release_rules(report))})
    judged = verdict.verdict(version)
    assert (judged.capable, judged.missing, judged.summary) == (
        report.capable,
        tuple(report.missing),
        report.verdict,
    )
    assert judged.rule_errors == (tuple(rules) if report.capable else ())


def test_a_template_edit_is_a_new_verdict_whatever_its_size_and_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict is kept under the templates' bytes: an edit that keeps the file's
    size and modification time still judges anew, in this process and the next."""
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path / "cache"))
    root = bke_tree(tmp_path / "tree", ("v3.31.3",))
    assert verdict.verdict(resolve_version("v3.31.3", root)).capable
    typha = root / "kubernetes/calico/v3.31.3/001-typha.yaml"
    text = typha.read_text()
    stat = typha.stat()
    broken = text.replace("  replicas: {{ .typhaReplicas }}", "  replicas: {{ 3 }}             ", 1)
    assert len(broken) == len(text)
    typha.write_text(broken)
    os.utime(typha, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert not verdict.verdict(resolve_version("v3.31.3", root)).capable
    clear_all()  # a new process: the result cache answers for the edited bytes too
    assert not verdict.verdict(resolve_version("v3.31.3", root)).capable


def test_a_stored_verdict_that_contradicts_itself_is_judged_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    version = resolve_version("v3.28")
    clear_all()
    judged = verdict.verdict(version)
    [entry] = (tmp_path / "verdict").glob("*.json")
    head, body = entry.read_bytes().split(b"\n", 1)
    value = json.loads(body)
    value[0] = not value[0]  # capable yet missing items: refused even with a right checksum
    forged = json.dumps(value, separators=(",", ":")).encode()
    header = json.loads(head)
    header["sha256"] = hashlib.sha256(forged).hexdigest()
    entry.write_bytes(json.dumps(header).encode() + b"\n" + forged)
    clear_all()
    assert verdict.verdict(version) == judged
