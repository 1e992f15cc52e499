"""The persistent result cache: where it lives, that it is bounded and never trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from renderer.checks import verdict as verdicts
from renderer.cli import cli
from renderer.finding import Finding
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject
from renderer.manifests.tree import resolve_version
from renderer.store import cache
from tests.memohelp import cold


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIR, str(directory))
    return directory


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


def _entries(directory: Path, kind: str | None = None) -> list[Path]:
    base = directory / kind if kind else directory
    return sorted(p for p in base.rglob("*.json")) if base.exists() else []


def test_directory_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(cache.ENV_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.directory() == tmp_path / "calico-render"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.directory() == tmp_path / "home" / ".cache" / "calico-render"
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "x"))
    assert cache.directory() == tmp_path / "x"
    monkeypatch.setenv(cache.ENV_OFF, "1")
    assert cache.directory() is None


def test_round_trip(cache_dir: Path) -> None:
    assert cache.get("t", "k", _is_int) is None
    cache.put("t", "k", 42)
    assert cache.get("t", "k", _is_int) == 42
    assert cache.get("t", "other", _is_int) is None
    assert cache.get("u", "k", _is_int) is None
    [entry] = _entries(cache_dir)
    assert not [p for p in cache_dir.rglob("*") if p.name.endswith(".tmp")]
    assert json.loads(entry.read_text())["value"] == 42


def test_many_keys_are_read_as_each_alone(cache_dir: Path) -> None:
    assert cache.get_many("t", ["a", "b"], _is_int) == [None, None]  # no directory yet
    cache.put("t", "b", 2)
    cache.put("t", "c", "not an int")
    assert cache.get_many("t", ["a", "b", "c", "b"], _is_int) == [None, 2, None, 2]
    held = cache.Held()
    with cache.holding(held):
        cache.put("u", "k", 1)  # held: its kind's directory does not exist
        assert cache.get_many("u", ["k", "x"], _is_int) == [1, None]
    held.drop()
    assert not (cache_dir / "u").exists()


def test_a_kind_may_be_held_once_an_entry_is_held_or_its_directory_exists(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not cache.may_hold("t")
    held = cache.Held()
    with cache.holding(held):
        cache.put("t", "k", 1)
    assert cache.may_hold("t") and not cache.may_hold("u")
    held.drop()
    assert not cache.may_hold("t")
    cache.put("t", "k", 1)
    assert cache.may_hold("t")
    monkeypatch.setenv(cache.ENV_OFF, "1")
    assert not cache.may_hold("t")


def test_a_miss_in_an_absent_directory_is_a_hit_once_another_process_writes_it(
    cache_dir: Path,
) -> None:
    assert cache.get_many("t", ["k"], _is_int) == [None]
    assert cache.get("t", "k", _is_int) is None
    code = "from renderer.store import cache; cache.put('t', 'k', 7)"
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())
    assert (cache_dir / "t").is_dir()
    assert cache.get_many("t", ["k"], _is_int) == [7]
    assert cache.get("t", "k", _is_int) == 7


def test_many_keys_with_the_cache_off_are_misses(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.put("t", "k", 1)
    monkeypatch.setenv(cache.ENV_OFF, "1")
    assert cache.get_many("t", ["k", "k"], _is_int) == [None, None]


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"\xff\xfe", b"[]", b'{"value": 1}', b'{"key": "x", "value": 1}', b"null"],
)
def test_corrupt_entry_is_a_miss(cache_dir: Path, content: bytes) -> None:
    cache.put("t", "k", 1)
    [entry] = _entries(cache_dir)
    entry.write_bytes(content)
    assert cache.get("t", "k", _is_int) is None
    cache.put("t", "k", 2)  # and is replaced by the next store
    assert cache.get("t", "k", _is_int) == 2


def test_foreign_entry_is_a_miss(cache_dir: Path) -> None:
    """A file moved under another key's name is not believed: the key is checked."""
    cache.put("t", "a", 1)
    [a] = _entries(cache_dir)
    cache.put("t", "b", 2)
    [b] = [p for p in _entries(cache_dir) if p != a]
    b.write_bytes(a.read_bytes())
    assert cache.get("t", "b", _is_int) is None


def test_value_of_the_wrong_shape_is_a_miss(cache_dir: Path) -> None:
    cache.put("t", "k", "not an int")
    assert cache.get("t", "k", _is_int) is None


def test_off_reads_and_writes_nothing(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.put("t", "k", 1)
    monkeypatch.setenv(cache.ENV_OFF, "1")
    assert cache.get("t", "k", _is_int) is None
    cache.put("t", "j", 1)
    assert len(_entries(cache_dir)) == 1


def test_unwritable_directory_is_harmless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV_DIR, str(blocker / "cache"))
    cache.put("t", "k", 1)
    assert cache.get("t", "k", _is_int) is None


def test_prune_removes_oldest_first(cache_dir: Path) -> None:
    for i in range(10):
        cache.put("t", str(i), "x" * 1000)
    entries = _entries(cache_dir)
    for age, path in enumerate(entries):  # make the order explicit
        os.utime(path, ns=(age * 10**9, age * 10**9))
    size = entries[0].stat().st_size
    removed = cache.prune(cache_dir, limit=5 * size)
    left = _entries(cache_dir)
    assert removed == len(entries) - len(left) and len(left) <= 5
    assert left == entries[-len(left) :]
    assert cache.prune(cache_dir, limit=5 * size) == 0


def test_prune_removes_entries_only_never_what_else_the_directory_holds(
    cache_dir: Path,
) -> None:
    """A cache directory that is also a project's (CALICO_RENDER_CACHE_DIR=$PWD) keeps
    the project's files however full the cache is."""
    template = cache_dir / "tree" / "kubernetes" / "calico" / "v3.28.2" / "calico.yaml"
    template.parent.mkdir(parents=True)
    template.write_text("x" * 5000)
    notes = cache_dir / "t" / "notes.txt"
    for i in range(3):
        cache.put("t", str(i), "x" * 1000)
    notes.write_text("y" * 5000)
    for path in (template, notes):
        os.utime(path, ns=(0, 0))  # the oldest files there
    assert cache.prune(cache_dir, limit=1) == 3
    assert template.read_text() == "x" * 5000 and notes.exists()
    assert _entries(cache_dir) == []


def test_concurrent_writers_leave_whole_entries(cache_dir: Path) -> None:
    value = {"data": ["y" * 10_000] * 10}

    def store() -> None:
        for _ in range(20):
            cache.put("t", "same", value)

    threads = [threading.Thread(target=store) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.get("t", "same", lambda v: isinstance(v, dict)) == value
    assert len(_entries(cache_dir)) == 1


def test_reading_only_reads_and_writes_nothing(cache_dir: Path) -> None:
    cache.put("t", "k", 1)
    with cache.reading_only():
        assert cache.get("t", "k", _is_int) == 1
        cache.put("t", "other", 2)
    assert cache.get("t", "other", _is_int) is None
    cache.put("t", "other", 2)  # the scope ended
    assert cache.get("t", "other", _is_int) == 2


def test_held_entries_are_read_back_and_written_only_when_told(cache_dir: Path) -> None:
    held = cache.Held()
    with cache.holding(held):
        cache.put("t", "k", 1)
        assert cache.get("t", "k", _is_int) == 1
    assert _entries(cache_dir) == [] and len(held) == 1
    held.write()
    assert len(_entries(cache_dir, "t")) == 1 and len(held) == 0
    held.write()  # nothing left: written once
    assert len(_entries(cache_dir, "t")) == 1


def test_dropped_entries_are_never_written_nor_read(cache_dir: Path) -> None:
    held = cache.Held()
    with cache.holding(held):
        cache.put("t", "k", 1)
    held.drop()
    assert cache.get("t", "k", _is_int) is None
    held.write()
    assert _entries(cache_dir) == []


def test_reading_only_inside_a_hold_holds_nothing(cache_dir: Path) -> None:
    held = cache.Held()
    with cache.holding(held), cache.reading_only():
        cache.put("t", "k", 1)
    held.write()
    assert len(held) == 0 and _entries(cache_dir) == []


def _walked(root: str, recursive: bool, suffixes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """What the fingerprint read of ``root`` by ``os.walk`` (as it once did): its parts
    and the files it stated."""
    out, paths = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if recursive and d not in ("__pycache__", "_data"))
        where = os.path.relpath(dirpath, root)
        prefix = "" if where == "." else where + os.sep
        for name in sorted(filenames):
            if name.endswith(suffixes):
                path = os.path.join(dirpath, name)
                st = os.stat(path)
                paths.append(path)
                out.append(f"{prefix}{name}:{st.st_size}:{st.st_mtime_ns}")
        if not recursive:
            break
    return out, paths


def _stated(root: str, recursive: bool, suffixes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    before = len(cache._FINGERPRINTED)
    parts = cache._stat_files(root, recursive, suffixes)
    paths = cache._FINGERPRINTED[before:]
    del cache._FINGERPRINTED[before:]
    return parts, paths


def test_fingerprinted_files_are_those_os_walk_finds(tmp_path: Path) -> None:
    package = os.path.dirname(os.path.dirname(os.path.abspath(cache.__file__)))
    for root, recursive, suffixes in (
        (package, True, (".py", ".so")),
        (package, False, (".py", ".so")),
        (os.path.dirname(os.path.abspath(json.__file__)), False, (".py", ".so")),
    ):
        parts, paths = _stated(root, recursive, suffixes)
        assert (parts, paths) == _walked(root, recursive, suffixes)
        assert parts
    tree = tmp_path / "t"
    for name in ("a.py", "b/c.py", "b/d/e.py", "__pycache__/x.py", "_data/y.py", "z/w.txt"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(name)
    (tree / "link").symlink_to(tree / "b", target_is_directory=True)
    (tree / "f.py").symlink_to(tree / "a.py")
    for recursive in (True, False):
        assert _stated(str(tree), recursive, (".py",)) == _walked(str(tree), recursive, (".py",))
    assert "link/c.py" not in str(_stated(str(tree), True, (".py",))[0])


def test_fingerprint_is_stable() -> None:
    assert cache.fingerprint() == cache.fingerprint()
    assert len(cache.fingerprint()) == 64


# --- the cached results ------------------------------------------------------------------


def _deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "x", "namespace": "kube-system"},
        "spec": {"replicas": "three", "selector": {}, "template": {"bogus": 1}},
    }


def _uncached(data: dict[str, Any], versions: tuple[str, ...]) -> list[Finding]:
    return [f for v in versions for f in kubeschema.check_object(data, v)]


def test_schema_verdicts_come_back_identical(cache_dir: Path) -> None:
    versions = ("1.36", "1.37")
    data = _deployment()
    first = kubeschema.SchemaValidator(versions).validate(data)
    assert first == _uncached(data, versions) and first
    assert len(_entries(cache_dir, "schema")) == 1  # one entry per object and versions
    assert kubeschema.SchemaValidator(versions).validate(data) == first


def test_forged_schema_verdict_is_not_trusted(cache_dir: Path) -> None:
    """A well-formed entry copied from another object's key changes nothing."""
    versions = ("1.37",)
    valid = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ok"}}
    kubeschema.SchemaValidator(versions).validate(valid)
    [source] = _entries(cache_dir, "schema")
    bad = _deployment()
    kubeschema.SchemaValidator(versions).validate(bad)
    [target] = [p for p in _entries(cache_dir, "schema") if p != source]
    target.write_bytes(source.read_bytes())  # "no findings" under the wrong key
    assert kubeschema.SchemaValidator(versions).validate(bad) == _uncached(bad, versions)


def test_corrupt_schema_verdict_is_not_trusted(cache_dir: Path) -> None:
    versions = ("1.37",)
    bad = _deployment()
    kubeschema.SchemaValidator(versions).validate(bad)
    [entry] = _entries(cache_dir, "schema")
    entry_data = json.loads(entry.read_text())
    entry_data["value"] = {"1.37": [["fine", "", ""]]}  # right key, no such severity
    entry.write_text(json.dumps(entry_data))
    assert kubeschema.SchemaValidator(versions).validate(bad) == _uncached(bad, versions)


def _objects() -> list[K8sObject]:
    valid = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ok"}}
    return [K8sObject("a.yaml", 0, 1, valid), K8sObject("a.yaml", 1, 5, _deployment())]


def _reworded(entry: Path, digest: str | None = None) -> None:
    """Every message of ``entry`` (of one object's verdicts, or of a set's) replaced."""
    data = json.loads(entry.read_text())
    sets = data["value"].values() if digest is None else [data["value"]]
    for verdicts_by_version in sets:
        for rows in verdicts_by_version.values():
            for row in rows:
                row[2] = "kept"
    entry.write_text(json.dumps(data))


def test_a_set_of_objects_is_kept_as_one_entry_and_read_back(cache_dir: Path) -> None:
    versions = ("1.36", "1.37")
    first = kubeschema.SchemaValidator(versions).validate_all(_objects())
    [entry] = _entries(cache_dir, "schemas")
    assert [p for p in _entries(cache_dir) if p.parent.name != "schemas"] == []
    assert first == sorted(
        (f for o in _objects() for f in kubeschema.SchemaValidator(versions).validate(o)),
        key=kubeschema.schema_sort_key,
    )
    _reworded(entry)
    again = kubeschema.SchemaValidator(versions).validate_all(_objects())
    assert [f.message for f in again] == ["kept"] * len(first)


def test_a_forged_or_corrupt_set_entry_is_not_trusted(cache_dir: Path) -> None:
    versions = ("1.37",)
    objects = _objects()
    first = kubeschema.SchemaValidator(versions).validate_all(objects)
    kubeschema.SchemaValidator(versions).validate_all(objects[:1])  # another set
    [source] = [p for p in _entries(cache_dir, "schemas")
                if len(json.loads(p.read_text())["value"]) == 1]  # fmt: skip
    [target] = [p for p in _entries(cache_dir, "schemas") if p != source]
    target.write_bytes(source.read_bytes())
    assert kubeschema.SchemaValidator(versions).validate_all(objects) == first
    target.write_text("{")
    assert kubeschema.SchemaValidator(versions).validate_all(objects) == first


def test_a_set_missed_is_answered_by_each_objects_own_entry(cache_dir: Path) -> None:
    """What the gate keeps per object serves a render's set of objects."""
    versions = ("1.37",)
    for o in _objects():
        kubeschema.SchemaValidator(versions).validate(o)
    for entry in _entries(cache_dir, "schema"):
        _reworded(entry, digest="")
    cold("k8s.schema.shared_verdicts")
    together = kubeschema.SchemaValidator(versions).validate_all(_objects())
    assert together and {f.message for f in together} == {"kept"}


def test_a_verdict_is_kept_as_one_entry_not_its_renders(cache_dir: Path) -> None:
    cold("checks.verdicts")
    verdicts.typha_capability(resolve_version("v3.28"))
    assert {p.parent.name for p in _entries(cache_dir)} == {"capability"}


def test_capability_verdict_cached_by_template_digest(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = resolve_version("v3.28")
    cold("checks.verdicts")
    verdict = verdicts.typha_capability(version)
    [entry] = _entries(cache_dir, "capability")
    cold("checks.verdicts")

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("assessed again")

    monkeypatch.setattr("renderer.calico.capability.assess_capability", fail)
    assert verdicts.typha_capability(version) == verdict
    data = json.loads(entry.read_text())
    data["value"][0] = not verdict[0]  # inconsistent: refused
    entry.write_text(json.dumps(data))
    cold("checks.verdicts")
    with pytest.raises(AssertionError, match="assessed again"):
        verdicts.typha_capability(version)


def test_no_cache_flag_writes_nothing(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps(_deployment())
    result = CliRunner().invoke(cli, ["validate", "--no-cache", "-"], input=text)
    assert result.exit_code == 1
    assert not _entries(cache_dir)
    monkeypatch.delenv(cache.ENV_OFF)  # the flag turns the cache off for the process
    result = CliRunner().invoke(cli, ["validate", "-"], input=text)
    assert result.exit_code == 1
    assert _entries(cache_dir, "schemas")  # the objects of a run, as one entry


def test_size_is_checked_at_most_every_few_minutes(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[Path] = []
    monkeypatch.setattr(cache, "prune", lambda base, limit=0: checks.append(base) or 0)
    cold("store.cache.pruned")
    cache.put("t", "a", 1)
    cold("store.cache.pruned")  # another process
    cache.put("t", "b", 1)
    assert checks == [cache_dir]
    marker = cache_dir / ".last-prune"
    os.utime(marker, (0, 0))  # long ago
    cold("store.cache.pruned")
    cache.put("t", "c", 1)
    assert checks == [cache_dir, cache_dir]


def _plain_digest(*parts: str) -> str:
    """:func:`cache.digest` as defined: each part's UTF-8 length, a colon, its bytes."""
    import hashlib

    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(b"%d:" % len(data) + data)
    return h.hexdigest()


def test_digest_of_a_long_text_digested_before_is_the_same() -> None:
    """A long first part is hashed once and its hash reused: every digest is still the
    one its parts give, whatever came before, and texts that differ never share one."""
    text = "kind: A\n# \u2013 \ud800\n" * 4000
    other = text[:-2] + "B\n"  # as long, one character apart
    copy = "".join([text[:10], text[10:]])  # equal, another object
    assert copy is not text
    calls = [(text,), (text, "spans"), (text, "spans"), (other, "spans"), (text,), (copy,)]
    calls += [(copy, "x"), ("short", "x"), (text, ""), (text, "", "")]
    for parts in calls:
        assert cache.digest(*parts) == _plain_digest(*parts), parts
    assert cache.digest(text) != cache.digest(other)
    assert cache.digest(text, "a") != cache.digest(text + "a")


def test_get_encoded_is_the_text_put_encoded_took(cache_dir: Path) -> None:
    """An entry's value as the JSON text it was put with; a miss when absent, under
    another key, or not laid out as :func:`cache.put_encoded` writes it."""
    encoded = cache.encode([[1, [[2, {"a": "\u2013"}]]]])
    cache.put_encoded("parse", "k", encoded)
    assert cache.get_encoded("parse", "k") == encoded
    assert cache.get_encoded("parse", "other") is None
    [entry] = _entries(cache_dir, "parse")
    full = json.loads(entry.read_text())["key"]
    for forged in (
        '{"key": ' + json.dumps(full) + ',"value":[]}',
        '{"key":' + json.dumps(full + "x") + ',"value":[]}',
        '{"key":' + json.dumps(full) + ',"value":[]',
        "\xff",
    ):
        entry.write_bytes(forged.encode("latin-1"))
        assert cache.get_encoded("parse", "k") is None
    held = cache.Held()
    with cache.holding(held):
        cache.put_encoded("parse", "h", "[]")
    assert cache.get_encoded("parse", "h") == "[]"
    held.drop()
