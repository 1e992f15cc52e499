"""Bounded reads of untrusted input: only regular files, bounded in size, UTF-8, and
every refusal is bad input (exit 2) naming the file."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from renderer.errors import EXIT_BAD_INPUT, InputError
from renderer.store.read import read_text


def test_a_regular_utf8_file_reads_back_exactly(tmp_path: Path) -> None:
    f = tmp_path / "values.yaml"
    f.write_bytes("a: 1\r\nb: café\n".encode())
    assert read_text(f) == "a: 1\r\nb: café\n"
    assert read_text(str(f)) == "a: 1\r\nb: café\n"


def test_dash_reads_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"nodes: 3\n")))
    assert read_text("-") == "nodes: 3\n"


def test_non_utf8_rejected(tmp_path: Path) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(InputError) as err:
        read_text(f)
    assert (err.value.file, err.value.line) == (str(f), 2)
    assert err.value.exit_code == EXIT_BAD_INPUT


def test_huge_file_rejected(tmp_path: Path) -> None:
    f = tmp_path / "big.yaml"
    f.write_text("a: 1\n" * 100)
    with pytest.raises(InputError) as err:
        read_text(f, limit=64)
    assert err.value.file == str(f) and err.value.line is None


def test_a_file_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    f = tmp_path / "edge.yaml"
    f.write_text("a: 1\n" * 10)
    assert read_text(f, limit=50) == "a: 1\n" * 10
    with pytest.raises(InputError):
        read_text(f, limit=49)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        read_text(tmp_path / "nope.yaml")
    assert err.value.file == str(tmp_path / "nope.yaml")
    assert err.value.exit_code == EXIT_BAD_INPUT


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_non_regular_files_are_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "input"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(InputError) as err:
        read_text(path)
    assert err.value.file == str(path)
