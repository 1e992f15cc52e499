"""Atomic output: old or new file, never half, never a stray temp file or traceback."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from renderer.errors import InputError
from renderer.store import files as fsutil


def test_write_tree_writes_all_with_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        written = fsutil.write_tree(tmp_path / "out", {"a.yaml": "a\n", "sub/b.yaml": "b\n"})
    finally:
        os.umask(old)
    assert [p.read_text() for p in written] == ["a\n", "b\n"]
    assert stat.S_IMODE(written[0].stat().st_mode) == 0o644
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == ["a.yaml", "b.yaml", "sub"]


def test_failure_while_staging_leaves_old_files_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.yaml").write_text("old a\n")
    (tmp_path / "b.yaml").write_text("old b\n")
    real = os.open
    calls = []

    def failing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        name = Path(path).name
        if name.endswith(".tmp"):  # a temporary file beside its target
            calls.append(name.split(".")[1] + ".yaml")
            if name.startswith(".b.yaml."):
                raise OSError(28, "No space left on device", str(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing)
    with pytest.raises(InputError) as err:
        fsutil.write_tree(tmp_path, {"a.yaml": "new a\n", "b.yaml": "new b\n"})
    assert err.value.file is not None and Path(err.value.file).name == "b.yaml"
    assert "No space left" in err.value.message  # the OS's reason, passed on
    assert (tmp_path / "a.yaml").read_text() == "old a\n"
    assert (tmp_path / "b.yaml").read_text() == "old b\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "b.yaml"]


def test_file_in_the_way_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError) as err:
        fsutil.atomic_write(tmp_path / "afile" / "x.yaml", "data\n")
    assert "afile" in str(err.value) and "cannot write" in str(err.value)


def test_failure_while_replacing_restores_replaced_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.yaml").write_text("old a\n")
    (tmp_path / "c.yaml").write_text("old c\n")
    real = os.replace

    def failing(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == "c.yaml" and Path(src).name.endswith(".tmp"):
            raise OSError(5, "Input/output error", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    files = {"a.yaml": "new a\n", "b.yaml": "new b\n", "c.yaml": "new c\n"}
    with pytest.raises(InputError) as err:
        fsutil.write_tree(tmp_path, files)
    assert err.value.file == str(tmp_path / "c.yaml")
    assert (tmp_path / "a.yaml").read_text() == "old a\n"
    assert (tmp_path / "c.yaml").read_text() == "old c\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "c.yaml"]


def test_failure_without_hard_links_never_deletes_an_existing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the old content cannot be kept, a replaced file keeps its new content:
    removing it would lose both versions."""
    (tmp_path / "a.yaml").write_text("old a\n")
    real = os.replace

    def no_link(src: str | Path, dst: str | Path) -> None:
        raise OSError(1, "Operation not permitted", str(dst))

    def failing(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == "c.yaml" and Path(src).name.endswith(".tmp"):
            raise OSError(5, "Input/output error", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(os, "replace", failing)
    files = {"a.yaml": "new a\n", "b.yaml": "new b\n", "c.yaml": "new c\n"}
    with pytest.raises(InputError):
        fsutil.write_tree(tmp_path, files)
    assert (tmp_path / "a.yaml").read_text() == "new a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]


def test_lock_refuses_a_second_holder_after_waiting(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, pathlib\n"
            "from renderer.store.files import exclusive_lock\n"
            "with exclusive_lock(pathlib.Path(sys.argv[1]), 'update-golden'):\n"
            "    print('held', flush=True); time.sleep(5)\n",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with (
            pytest.raises(InputError) as err,
            fsutil.exclusive_lock(tmp_path, "update-golden", wait=0.3),
        ):
            pass
        assert err.value.file == str(tmp_path) and "update-golden" in err.value.message
    finally:
        holder.kill()
        holder.wait()
    with fsutil.exclusive_lock(tmp_path, "update-golden", wait=2):  # released with the process
        pass


def test_lock_file_is_removed_on_release(tmp_path: Path) -> None:
    with fsutil.exclusive_lock(tmp_path, "update-golden"):
        assert (tmp_path / ".update-golden.lock").exists()
    assert list(tmp_path.iterdir()) == []


def test_write_output_keeps_device_nodes(tmp_path: Path) -> None:
    """``--output /dev/null`` writes into the device; it never becomes a regular file."""

    fsutil.write_output("/dev/null", "report\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not list(Path("/dev").glob(".null.*.tmp"))


def test_write_output_writes_into_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    fsutil.write_output(fifo, "report\n")
    reader.join(5)
    assert got == [b"report\n"] and fifo.is_fifo()


def test_write_output_through_a_symlink_keeps_the_symlink(tmp_path: Path) -> None:
    real = tmp_path / "reports" / "check.txt"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "latest.txt"
    link.symlink_to(real)
    fsutil.write_output(link, "new\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"
    fsutil.write_output(tmp_path / "plain.txt", "x\n")  # a new regular file
    assert (tmp_path / "plain.txt").read_text(encoding="utf-8") == "x\n"


def test_write_owned_tree_removes_only_what_it_wrote_before(tmp_path: Path) -> None:
    out = tmp_path / "out"
    fsutil.write_owned_tree(out, {"000-crds.yaml": "a\n", "001-typha.yaml": "b\n"})
    (out / "mine.yaml").write_text("user\n", encoding="utf-8")
    written = fsutil.write_owned_tree(out, {"calico.yaml": "c\n"})
    assert written == [out / "calico.yaml"]
    assert sorted(p.name for p in out.iterdir()) == [
        fsutil.OWNED_FILES,
        "calico.yaml",
        "mine.yaml",
    ]
    # A tampered list never reaches outside the directory: it is refused, naming it.
    (tmp_path / "outside.yaml").write_text("keep\n", encoding="utf-8")
    (out / fsutil.OWNED_FILES).write_text("../outside.yaml\n/etc/hosts\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        fsutil.write_owned_tree(out, {"calico.yaml": "c\n"})
    assert err.value.file == str(out / fsutil.OWNED_FILES) and err.value.line == 1
    assert (tmp_path / "outside.yaml").exists()
