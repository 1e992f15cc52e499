"""``python -m renderer`` and the console script start the same CLI."""

from __future__ import annotations

import subprocess
import sys

from renderer import __version__


def test_python_m_renderer_runs_the_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "--tool-version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"calico-render {__version__}\n", "")


def test_bad_input_through_the_entry_point_is_exit_2_and_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "typha", "--nodes", "0"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("calico-render: error: ")


def _leave(code: str) -> subprocess.CompletedProcess[str]:
    program = (
        "import atexit, sys\n"
        "from renderer._entry import leave\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "print('out', end='')\n"
        f"leave({code})\n"
    )
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False, timeout=60
    )
