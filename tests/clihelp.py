"""Run the CLI in-process and capture exit code, stdout and stderr."""

from __future__ import annotations

from dataclasses import dataclass

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
