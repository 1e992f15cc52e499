"""Where the cache lives: the explicit directory, XDG's, the home directory's, or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.store import home


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (home.ENV_DIR, home.ENV_OFF, "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)


def test_the_explicit_directory_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(home.ENV_DIR, str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert home.cache_directory() == str(tmp_path / "c")


def test_xdg_only_when_absolute(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert home.cache_directory() == str(tmp_path / "x" / "calico-render")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert home.cache_directory() == str(tmp_path / ".cache" / "calico-render")


@pytest.mark.parametrize(("value", "on"), [("", True), ("0", True), ("1", False), ("yes", False)])
def test_the_off_switch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str, on: bool
) -> None:
    monkeypatch.setenv(home.ENV_DIR, str(tmp_path))
    monkeypatch.setenv(home.ENV_OFF, value)
    assert home.enabled() is on
    assert (home.cache_directory() is not None) is on


def test_the_cache_owns_its_entries_not_what_else_the_directory_holds(tmp_path: Path) -> None:
    base = str(tmp_path)
    digest = "ab" * 32
    owned = [
        base,
        f"{base}/render",
        f"{base}/render/{digest}.json",
        f"{base}/render/.{digest}.json.0123456789ab.tmp",
        f"{base}/invocation/0123456789abcdef",
        f"{base}/invocation/0123456789abcdef.42.01234567.tmp",
        f"{base}/.last-prune",
    ]
    foreign = [
        f"{base}/tree/kubernetes/calico/v3.28.2/002-calico.yaml",
        f"{base}/render/notes.txt",
        f"{base}/Render/{digest}.json",
        f"{base}/render/sub/{digest}.json",
        f"{base}x/render/{digest}.json",
    ]
    assert [home.owned(base, p) for p in owned] == [True] * len(owned)
    assert [home.owned(base, p) for p in foreign] == [False] * len(foreign)
