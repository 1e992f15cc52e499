"""The parallel runner: chunks, and reports that do not depend on the number of jobs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from renderer.checks import runner
from renderer.checks.options import CheckOptions
from renderer.output import render
from renderer.output.check import CheckDocument
from renderer.store import cache
from tests.gatehelp import TREE


@pytest.mark.parametrize(
    ("n", "parts", "sizes"),
    [(0, 3, []), (1, 3, [1]), (5, 2, [3, 2]), (6, 3, [2, 2, 2]), (7, 3, [3, 3, 1])],
)
def test_chunks_are_consecutive_and_at_most_parts(n: int, parts: int, sizes: list[int]) -> None:
    items = list(range(n))
    chunks = runner.chunks(items, parts)
    assert [len(c) for c in chunks] == sizes
    assert [x for c in chunks for x in c] == items


def test_the_report_is_the_same_whatever_the_jobs(tmp_path: Path) -> None:
    def report(jobs: int) -> str:
        options = CheckOptions(TREE, tmp_path / "golden", kube_versions=("1.34",), jobs=jobs)
        return render("json", CheckDocument(runner.run_check(options)))

    assert report(1) == report(3)


def test_versions_are_reported_in_order_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    options = CheckOptions(TREE, tmp_path / "golden", kube_versions=("1.34",))
    result = runner.run_check(options, lambda v: seen.append(v.version))
    assert seen == [v.version for v in result.versions]
    assert [v.version for v in result.versions] == [
        "v9.0.0",
        "v9.1.0",
        "v9.2.0",
        "v9.3.0",
        "v9.4.0",
    ]


def test_a_check_answered_from_the_cache_is_the_check_done_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    options = CheckOptions(tree, tmp_path / "golden", kube_versions=("1.34",))
    first = render("json", CheckDocument(runner.run_check(options)))
    assert render("json", CheckDocument(runner.run_check(options))) == first
    template = sorted((tree / "kubernetes" / "calico" / "v9.1.0").glob("*.yaml"))[-1]
    template.write_text(template.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    edited = render("json", CheckDocument(runner.run_check(options)))
    monkeypatch.setenv(cache.ENV_OFF, "1")  # a run that keeps nothing: the same verdicts
    assert render("json", CheckDocument(runner.run_check(options))) == edited


def _children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(entry))
    return found


def _alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the workers")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_every_worker_and_releases_the_golden_lock(
    tmp_path: Path, sig: signal.Signals
) -> None:
    root = tmp_path / "tree"
    for i in range(12):  # enough versions that the check is still running when signalled
        shutil.copytree(TREE / "kubernetes/calico/v9.1.0", root / f"kubernetes/calico/v9.1.{i}")
    golden = tmp_path / "golden"
    env = {**os.environ, "CALICO_RENDER_NO_CACHE": "1"}
    argv = [sys.executable, "-m", "renderer", "check", str(root), "--golden", str(golden)]
    proc = subprocess.Popen(
        [*argv, "--jobs", "2", "--update-golden"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.02)
    assert len(workers) >= 2, "the check never started its workers"
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=10)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130)
    assert err.strip().endswith("terminated" if sig == signal.SIGTERM else "interrupted")
    end = time.monotonic() + 2
    while _alive(workers) and time.monotonic() < end:
        time.sleep(0.02)
    assert _alive(workers) == set()
    again = subprocess.run(
        [*argv, "--jobs", "1", "--update-golden"], env=env, capture_output=True, text=True
    )
    # the lock was released: the update ran (copies of one version fail its image rule)
    assert again.returncode in (0, 1) and "another update-golden" not in again.stderr
