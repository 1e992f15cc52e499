"""A version's verdict: the gate's contract and release rules, judged without the gate."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from renderer.checks import pipeline, renders, verdict
from renderer.finding import blocking
from renderer.manifests.tree import VersionDir, list_versions, resolve_version
from tests.memohelp import cold

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


@pytest.mark.parametrize(
    ("root", "name"),
    [(None, v.name) for v in list_versions()] + [(REAL, v.name) for v in list_versions(REAL)],
)
def test_renders_sharing_objects_and_keeping_no_texts_judge_the_same_verdict(
    root: Path | None, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict child's modes (the renders share their common documents' objects,
    no text is kept) change no verdict: judged with each render's own objects, the same."""
    import contextlib

    from renderer.k8s import parse

    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    version = next(v for v in list_versions(root) if v.name == name)
    cold("k8s.parse.texts", "k8s.parse.documents")
    parse.keep_texts(False)
    try:
        as_child = verdict._judge(version)
    finally:
        parse.keep_texts(True)
    cold("k8s.parse.texts", "k8s.parse.documents")
    with monkeypatch.context() as m:
        m.setattr(parse, "sharing_objects", contextlib.nullcontext)
        alone = verdict._judge(version)
    assert as_child == alone


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


@pytest.fixture
def cold_verdicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private, empty cache and no verdict held in this process."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(directory))
    cold("checks.verdicts")
    yield directory
    cold("checks.verdicts")


def _entries(directory: Path) -> dict[str, bytes]:
    if not directory.exists():
        return {}
    return {str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*.json")}


@pytest.fixture(autouse=True)
def _idle_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core to spare, however busy the machine running the tests is."""
    monkeypatch.setattr(verdict, "_spare_core", lambda: True)


def _aside(version: VersionDir) -> verdict.Aside:
    with verdict.aside_allowed():
        aside = verdict.judge_aside(version)
    assert aside is not None
    return aside


def test_a_verdict_judged_aside_is_the_verdict_kept_as_in_turn(cold_verdicts: Path) -> None:
    version = resolve_version("v3.31.3", REAL)
    aside = _aside(version)
    judged = aside.result()
    assert _entries(cold_verdicts) == {}  # the child writes nothing
    assert judged is not None
    aside.keep(judged)
    kept = _entries(cold_verdicts)
    cold("checks.verdicts")
    shutil.rmtree(cold_verdicts)
    assert verdict.verdict(version) == judged  # judged in turn: the same verdict
    assert _entries(cold_verdicts) == kept  # and the same cache entry
    assert judged.rule_errors == ("typha-anti-affinity",)


def test_nothing_is_judged_aside_unless_allowed_needed_single_threaded_and_idle(
    cold_verdicts: Path,
) -> None:
    version = resolve_version("v3.31.3", REAL)
    assert verdict.judge_aside(version) is None  # not allowed: a library caller
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with verdict.aside_allowed():
            assert verdict.judge_aside(version) is None  # a threaded process is not forked
    finally:
        stop.set()
        other.join()
    with pytest.MonkeyPatch.context() as busy, verdict.aside_allowed():
        busy.setattr(verdict, "_spare_core", lambda: False)
        assert verdict.judge_aside(version) is None  # every core busy: judged in turn
    verdict.verdict(version)
    cold("checks.verdicts")
    with verdict.aside_allowed():
        assert verdict.judge_aside(version) is None  # known: from the persistent cache
    assert verdict._VERDICTS.get(verdict._key(version)) is not None


def _in_child(parent: int, then: Callable[[], Any], otherwise: Callable[[], Any]) -> Any:
    return then() if os.getpid() != parent else otherwise()


@pytest.mark.parametrize("failure", ["raises", "crashes", "garbage", "killed"])
def test_a_failing_child_is_no_verdict(
    cold_verdicts: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    version = resolve_version("v3.31.3", REAL)
    parent = os.getpid()

    def boom() -> Any:
        raise RuntimeError("judging failed")

    if failure == "raises":
        monkeypatch.setattr(verdict, "_judge", lambda v: boom())
    elif failure == "crashes":
        monkeypatch.setattr(verdict, "_judge", lambda v: os._exit(0))
    elif failure == "garbage":
        real = verdict._to_data
        monkeypatch.setattr(
            verdict, "_to_data", lambda v: _in_child(parent, lambda: [True, ["x"]], lambda: real(v))
        )
    else:
        monkeypatch.setattr(verdict, "_judge", lambda v: os.kill(os.getpid(), signal.SIGKILL))
    assert _aside(version).result() is None
    assert _entries(cold_verdicts) == {}


def test_a_child_past_its_time_is_ended(
    cold_verdicts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict, "_judge", lambda v: time.sleep(30))
    aside = _aside(resolve_version("v3.31.3", REAL))
    started = time.monotonic()
    assert aside.result(timeout=0.3) is None
    assert time.monotonic() - started < 10
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(aside._pid, os.WNOHANG)


def test_a_core_is_spare_while_the_load_is_below_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real check, with the machine's numbers given
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (0.9, 0.0, 0.0))
    assert verdict._spare_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 0.0, 0.0))
    assert not verdict._spare_core()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not verdict._spare_core()


def _peers() -> tuple[verdict.PipePeer, verdict.PipePeer]:
    a_read, b_write = os.pipe()
    b_read, a_write = os.pipe()
    return (
        verdict.PipePeer(a_read, a_write, reverse=False),
        verdict.PipePeer(b_read, b_write, reverse=True),
    )


def test_peers_hand_documents_over_without_waiting() -> None:
    render, child = _peers()
    assert render.take() == [] and child.take() == []  # nothing sent: no wait
    render.give("k1", '[[1,{"a":"x"}]]')
    render.give("k2", "[]")
    child.give("k3", '[[2,{"b":NaN}]]')
    assert child.take() == [("k1", '[[1,{"a":"x"}]]'), ("k2", "[]")]
    assert child.take() == []  # each document once
    assert render.take() == [("k3", '[[2,{"b":NaN}]]')]
    big = '"' + "x" * (3 << 20) + '"'  # more than a pipe holds: kept, sent later
    render.give("big", big)
    received = []
    for _ in range(100):
        received += child.take()
        render.take()  # writes what is pending
        if received:
            break
    assert received == [("big", big)]
    child.close()
    render.give("late", "[]")  # the other side is gone: nothing raised
    assert render.take() == []
    render.close()


def test_a_peer_takes_nothing_from_a_garbled_or_cut_stream() -> None:
    a_read, a_write = os.pipe()
    peer = verdict.PipePeer(a_read, os.dup(a_write), reverse=False)
    os.write(a_write, b"2 2\nk1[]" + b"5 10\nk2")  # one whole frame, one cut short
    assert peer.take() == [("k1", "[]")]
    os.close(a_write)  # the other side ends mid-frame
    assert peer.take() == []
    peer.close()
    b_read, b_write = os.pipe()
    peer = verdict.PipePeer(b_read, os.dup(b_write), reverse=False)
    os.write(b_write, b"not a header\n2 2\nk1[]")
    assert peer.take() == []  # not a frame: nothing after it is trusted either
    os.close(b_write)
    peer.close()


def test_a_render_and_its_child_parse_each_shared_document_once(
    cold_verdicts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child judging the verdict and the render that forked it parse the CRDs
    together: what one parsed, the other reads; the objects are those of a parse alone."""
    from renderer.engine.render import render_version
    from renderer.k8s import parse
    from renderer.store.memo import memos

    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")  # every parse is done here
    version = resolve_version("v3.31.3", REAL)
    files = render_version(version, {})
    alone = [(o.file, o.line, o.data) for o in parse.parse_rendered(files)]
    cold("k8s.parse.texts", "k8s.parse.documents")
    parsed: list[str] = []
    real = parse._parse_chunks
    monkeypatch.setattr(parse, "_parse_chunks", lambda c, k, f: parsed.extend(k) or real(c, k, f))
    aside = _aside(version)
    time.sleep(0.5)  # the child parses from the last document meanwhile
    together = [(o.file, o.line, o.data) for o in parse.parse_rendered(files)]
    assert aside.result() is not None
    assert together == alone
    documents = memos()["k8s.parse.documents"]
    assert len(parsed) < len(documents)  # some, or all, came from the child
    assert parse._PEER is None  # the render parses alone once the child is done


def test_the_templates_are_compiled_once_before_the_fork(
    cold_verdicts: Path, tmp_path: Path
) -> None:
    """The render and the child would both compile the version first: it is done once,
    before forking; a template that does not compile forks all the same (the render
    reports it, as it would without a child)."""
    from renderer.store.memo import memos

    version = resolve_version("v3.31.3", REAL)
    cold("engine.compiled")
    aside = _aside(version)
    aside.close()
    assert len(memos()["engine.compiled"]) == len(version.files)
    broken = tmp_path / "kubernetes" / "calico" / "v3.31.3"
    broken.mkdir(parents=True)
    (broken / "calico.yaml").write_text("a: {{ .x \n")
    _aside(resolve_version("v3.31.3", tmp_path)).close()
