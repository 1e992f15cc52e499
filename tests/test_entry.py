"""``python -m renderer`` and the console script start the same CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_leaving_keeps_the_code_runs_exit_handlers_and_flushes() -> None:
    for code, status in (("0", 0), ("1", 1), ("2", 2), ("None", 0), ("130", 130)):
        proc = _leave(code)
        assert (proc.returncode, proc.stdout, proc.stderr) == (status, "outhandler ran\n", "")


def test_leaving_with_a_message_is_the_interpreter_s_exit() -> None:
    proc = _leave("'calico-render: gone'")
    assert (proc.returncode, proc.stderr) == (1, "calico-render: gone\n")


def test_a_profiled_run_leaves_the_usual_way_so_the_profile_is_written(tmp_path: Path) -> None:
    out = tmp_path / "run.prof"
    proc = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "renderer", "--tool-version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0 and out.stat().st_size > 0


def test_leaving_waits_for_a_running_thread_as_the_interpreter_does() -> None:
    program = (
        "import threading, time\n"
        "from renderer._entry import leave\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread done'))).start()\n"
        "leave(3)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False, timeout=60
    )
    assert (proc.returncode, proc.stdout) == (3, "thread done\n")
