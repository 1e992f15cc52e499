"""Run the CLI in-process and capture exit code, stdout and stderr."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from renderer.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str


def run(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    captured = capsys.readouterr()
    code = exc.value.code if isinstance(exc.value.code, int) else 0
    return Result(code, captured.out, captured.err)


ERROR = "calico-render: error: "


def one_error(
    r: Result,
    *,
    code: int = 2,
    file: str | Path | None = None,
    line: int | None = None,
    key: str | None = None,
) -> str:
    """Assert the error contract of every command and return the message after it.

    Exit ``code``, exactly one line on stderr (no traceback, no warning before it), laid
    out as ``calico-render: error: [file:line[:column]: ][key[ 'value']: ]message`` with
    the given ``file``, ``line`` and ``key`` in their places, not merely in the text.
    """
    assert r.code == code, r.err
    lines = r.err.splitlines()
    assert len(lines) == 1, r.err
    text = lines[0]
    assert text.startswith(ERROR), text
    rest = text[len(ERROR) :]
    if file is not None:
        where = f"{file}:{line}:" if line is not None else f"{file}:"
        assert rest.startswith(where), text
        rest = re.sub(r"^(?:\d+:)*\s*", "", rest[len(where) :])
    if key is not None:  # the key, or the key and the value it refused: --version '../x'
        assert re.match(rf"{re.escape(key)}(?: '[^']*')?: ", rest), text
        rest = rest.split(": ", 1)[1]
    return rest


def ref(obj: object) -> str:
    """A finding's object as ``Kind namespace/name`` ("" for none), from JSON or a
    :class:`renderer.finding.ObjectRef`."""
    if obj is None:
        return ""
    if isinstance(obj, dict):
        ns = f"{obj['namespace']}/" if obj.get("namespace") else ""
        return f"{obj['kind']} {ns}{obj['name']}"
    return str(obj)
