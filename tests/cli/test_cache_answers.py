"""Cached output is uncached output: every bundled version and BKE's real v3.31.3 render
the same bytes, with the same messages and exit code, from a cold cache, a warm one and
with the cache off, and go on doing so after the cache or the tree is tampered with."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from renderer.data.bundled import bundled_manifests
from renderer.manifests.tree import COMPONENT, list_versions
from renderer.store.memo import clear_all
from tests.clihelp import Result, run

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "bke-real"
TREES = [(bundled_manifests(), v.name) for v in list_versions()] + [(REAL, "v3.31.3")]


def _render(capsys: pytest.CaptureFixture[str], root: Path, version: str, *, cache: bool) -> Result:
    clear_all()  # a new process: nothing in memory
    # an upgrade renders every version (a first install of one not Typha-capable is refused)
    args = ["--manifests", str(root), "--version", version, "--nodes", "601"]
    args += ["--operation", "upgrade"]
    return run(capsys, *args, *(() if cache else ("--no-cache",)))


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*.json") if p.is_file())


def _flip(cache: Path) -> None:
    for entry in _entries(cache):
        raw = bytearray(entry.read_bytes())
        raw[-2] ^= 0x01  # inside the value, past the checksum line
        entry.write_bytes(bytes(raw))


def _fifo(cache: Path) -> None:
    for entry in _entries(cache):
        entry.unlink()
        os.mkfifo(entry)


def _link(cache: Path) -> None:
    entries = _entries(cache)
    decoy = cache.parent / "decoy.json"
    shutil.copy(entries[0], decoy)
    for entry in entries:
        entry.unlink()
        entry.symlink_to(decoy)


def _shared(cache: Path) -> None:
    os.chmod(cache, 0o777)


Tamper = Callable[[Path], None]


@pytest.mark.parametrize(("root", "version"), TREES, ids=[f"{r.name}-{v}" for r, v in TREES])
def test_cold_warm_and_uncached_renders_are_identical(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    root: Path,
    version: str,
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path / "cache"))
    cold = _render(capsys, root, version, cache=True)
    warm = _render(capsys, root, version, cache=True)
    off = _render(capsys, root, version, cache=False)
    assert cold == warm == off
    assert cold.out.startswith(f"---\n# Source: calico/{version}/")


@pytest.mark.parametrize("tamper", [_flip, _fifo, _link, _shared], ids=lambda t: t.__name__[1:])
def test_a_tampered_cache_gives_the_uncached_answer(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    tamper: Tamper,
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(cache))
    honest = _render(capsys, REAL, "v3.31.3", cache=True)
    tamper(cache)
    again = _render(capsys, REAL, "v3.31.3", cache=True)
    assert again.out == honest.out and again.code == honest.code
    if tamper is _shared:
        assert "writable by others; running uncached" in again.err
    else:
        assert again.err == honest.err


def test_a_template_edited_with_its_size_and_time_kept_renders_the_edit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "tree"
    shutil.copytree(REAL / COMPONENT / "v3.31.3", root / COMPONENT / "v3.31.3")
    before = _render(capsys, root, "v3.31.3", cache=True)
    assert before.code == 0 and "typhaReplicas=4" in before.err, before.err
    template = root / COMPONENT / "v3.31.3" / "calico.yaml"
    text = template.read_text(encoding="utf-8")
    stat = template.stat()
    # the Typha Deployment no longer follows typhaReplicas: not Typha-capable any more
    edited = text.replace("{{ .typhaReplicas | }}", "{{ 3 }}" + " " * 15, 1)
    assert edited != text and len(edited) == len(text)
    template.write_text(edited, encoding="utf-8")
    os.utime(template, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    cached = _render(capsys, root, "v3.31.3", cache=True)
    uncached = _render(capsys, root, "v3.31.3", cache=False)
    assert cached == uncached
    assert cached.code == 0 and "compatibility path" in cached.err  # Typha off now
    assert "typhaReplicas=0" in cached.err
