"""The result cache: keyed by content, checksummed, private, never a hang; an entry it
cannot trust is a miss and the value is computed again."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from renderer.store import cache
from tests.store.nobody import nobody_ids


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIR, str(directory))
    return directory


def _entry(directory: Path, kind: str, key: str) -> Path:
    return directory / kind / f"{key}.json"


def test_location_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(cache.ENV_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.location() == str(tmp_path / "calico-render")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.location() == str(tmp_path / "home" / ".cache" / "calico-render")
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "x"))
    assert cache.directory() == tmp_path / "x"
    monkeypatch.setenv(cache.ENV_OFF, "1")
    assert cache.directory() is None and cache.location() is None


def test_a_value_comes_back_as_it_was_put(cache_dir: Path) -> None:
    key = cache.key("t", "some input")
    assert cache.get("t", key) is None
    cache.put("t", key, {"a": [1, "é", None]})
    assert cache.get("t", key) == {"a": [1, "é", None]}
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700  # created private


def test_keys_are_digests_of_every_part_and_the_tool() -> None:
    assert cache.key("a", "bc") != cache.key("ab", "c")  # parts cannot run together
    assert cache.key("a", b"b") == cache.key("a", "b")
    assert len(cache.key("x")) == 64 and cache.key("x") == cache.key("x")
    assert len(cache.tool_digest()) == 64


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[:-3],  # truncated
        lambda raw: raw[:-2] + bytes([raw[-2] ^ 1]) + raw[-1:],  # a flipped bit in the value
        lambda raw: raw.replace(b'"sha256"', b'"sha257"'),  # a damaged header
        lambda raw: raw.split(b"\n", 1)[1],  # no header
        lambda raw: b"",
        lambda raw: b"\xff\xfe\n\x00",
    ],
)
def test_a_damaged_entry_is_a_miss(cache_dir: Path, damage: object) -> None:
    key = cache.key("t", "x")
    cache.put("t", key, ["value", 12345])
    path = _entry(cache_dir, "t", key)
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert cache.get("t", key) is None


def test_an_entry_moved_under_another_key_is_a_miss(cache_dir: Path) -> None:
    a, b = cache.key("t", "a"), cache.key("t", "b")
    cache.put("t", a, "the value of a")
    _entry(cache_dir, "t", a).rename(_entry(cache_dir, "t", b))
    assert cache.get("t", b) is None


def test_a_value_the_caller_finds_misshapen_is_a_miss(cache_dir: Path) -> None:
    key = cache.key("t", "x")
    cache.put("t", key, "text")
    assert cache.get("t", key, lambda v: isinstance(v, int)) is None
    assert cache.get("t", key, lambda v: v["x"]) is None  # a check that raises is a miss too


def test_a_fifo_in_place_of_an_entry_is_a_miss_never_a_hang(cache_dir: Path) -> None:
    key = cache.key("t", "x")
    cache.put("t", key, 1)
    path = _entry(cache_dir, "t", key)
    path.unlink()
    os.mkfifo(path)
    done: list[object] = []
    reader = threading.Thread(target=lambda: done.append(cache.get("t", key)), daemon=True)
    reader.start()
    reader.join(5)
    assert done == [None]


def test_a_link_in_place_of_an_entry_is_a_miss(cache_dir: Path, tmp_path: Path) -> None:
    key, other = cache.key("t", "x"), cache.key("t", "y")
    cache.put("t", key, "real")
    cache.put("t", other, "elsewhere")
    path = _entry(cache_dir, "t", key)
    path.unlink()
    path.symlink_to(_entry(cache_dir, "t", other))
    assert cache.get("t", key) is None
    kind = cache_dir / "u"
    kind.symlink_to(cache_dir / "t")  # a kind's directory that is a link is not read either
    assert cache.get("u", other) is None


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_directory_others_may_write_is_not_used(cache_dir: Path, mode: int) -> None:
    cache_dir.mkdir(mode=0o700)
    key = cache.key("t", "x")
    cache.put("t", key, "trusted while private")
    os.chmod(cache_dir, mode)
    assert cache.directory() is None
    assert cache.get("t", key) is None
    assert "writable by others" in (cache.problem() or "")
    cache.put("t", cache.key("t", "y"), 1)
    assert not (cache_dir / "t" / f"{cache.key('t', 'y')}.json").exists()


@pytest.mark.skipif(nobody_ids() is None or os.geteuid() != 0, reason="needs root and nobody")
def test_a_directory_of_another_user_is_not_used(tmp_path: Path) -> None:
    ids = nobody_ids()
    assert ids is not None
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, *ids)
    with pytest.MonkeyPatch.context() as m:
        m.setenv(cache.ENV_DIR, str(theirs))
        assert cache.directory() is None
        assert "belongs to another user" in (cache.problem() or "")


def test_off_reads_and_writes_nothing(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV_OFF, "1")
    cache.put("t", cache.key("x"), 1)
    assert cache.get("t", cache.key("x")) is None
    assert not cache_dir.exists()
    assert cache.problem() is None


def test_concurrent_writers_leave_whole_entries(cache_dir: Path) -> None:
    key = cache.key("t", "x")
    values = [list(range(i, i + 2000)) for i in range(8)]
    threads = [threading.Thread(target=cache.put, args=("t", key, v)) for v in values]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.get("t", key) in values
    assert [p.name for p in (cache_dir / "t").iterdir()] == [f"{key}.json"]  # no temporaries


def test_prune_removes_the_oldest_entries_and_nothing_else(cache_dir: Path) -> None:
    keys = [cache.key("t", str(i)) for i in range(6)]
    for i, key in enumerate(keys):
        cache.put("t", key, "x" * 1000)
        os.utime(_entry(cache_dir, "t", key), (i, i))
    mine = cache_dir / "t" / "notes.txt"
    mine.write_text("not an entry")
    (cache_dir / "project").mkdir()
    (cache_dir / "project" / f"{keys[0]}.json").write_text("a file of another tool")
    removed = cache.prune(cache_dir, limit=5000)
    assert removed == 3
    left = sorted(p.name for p in (cache_dir / "t").iterdir())
    assert left == sorted([*(f"{k}.json" for k in keys[3:]), "notes.txt"])
    assert (cache_dir / "project" / f"{keys[0]}.json").exists()


def test_an_entry_is_read_fast_enough_to_be_worth_it(cache_dir: Path) -> None:
    key = cache.key("t", "big")
    value = [[i, {"name": f"object-{i}", "data": "x" * 200}] for i in range(2000)]
    cache.put("t", key, value)
    start = time.perf_counter()
    assert cache.get("t", key) == value
    assert time.perf_counter() - start < 1.0


def test_entries_hold_their_key_and_checksum_first(cache_dir: Path) -> None:
    key = cache.key("t", "x")
    cache.put("t", key, {"b": 1})
    head, body = _entry(cache_dir, "t", key).read_bytes().split(b"\n", 1)
    header = json.loads(head)
    assert header["key"] == key and len(header["sha256"]) == 64
    assert json.loads(body) == {"b": 1}
