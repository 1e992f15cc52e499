"""The plain render read without click: the same parameters as click's, the same bytes,
and click itself for everything else."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from renderer.cli import cli, main, quick
from tests.clihelp import Result

BUNDLED = ["--version", "v3.28", "--nodes"]
REPO_ROOT = Path(__file__).resolve().parents[2]


def both(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[Result, Result]:
    """``args`` run through the quick path and through click alone."""
    out = []
    for fast in (True, False):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main(list(args), quick=fast)
        captured = capsys.readouterr()
        code = exc.value.code if isinstance(exc.value.code, int) else 0
        out.append(Result(code, captured.out, captured.err))
    return out[0], out[1]


def click_params(args: list[str]) -> dict[str, object]:
    """The render's parameters as click's group parses ``args``."""
    ctx = cli.make_context("calico-render", [a for a in args if a != "--debug"])
    params = dict(ctx.params)
    params.pop("debug")
    return params


@pytest.mark.parametrize(
    "args",
    [
        [*BUNDLED, "601"],
        ["--nodes=5", "--version=v3.28.2", "--no-validate"],
        [*BUNDLED, "60", "--operation", "upgrade", "--repo", "r.example/", "--strict"],
        [*BUNDLED, "3", "--set", "a=1", "--set=b=x=y", "--kube-version", "1.30", "--debug"],
        [*BUNDLED, "0601", "--manifests", "."],
    ],
)
def test_the_parameters_are_those_click_reads(args: list[str]) -> None:
    assert quick.parse(args) == click_params(args)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--version", "v3.28"],  # click's usage error
        ["--nodes", "3"],
        ["typha", "--nodes", "3"],  # a command
        [*BUNDLED, "3", "--help"],
        [*BUNDLED, "3", "-h"],
        ["--tool-version"],
        [*BUNDLED, "3", "--output-dir", "out"],  # options click reads
        [*BUNDLED, "3", "--values", "v.yaml"],
        [*BUNDLED, "3", "-f", "v.yaml"],
        [*BUNDLED, "3", "--config", "c.yaml"],
        [*BUNDLED, "3", "--no-cache"],
        [*BUNDLED, "3", "--render-timeout", "5"],
        [*BUNDLED, "0"],  # values click refuses or converts
        [*BUNDLED, "-3"],
        [*BUNDLED, "3e2"],
        [*BUNDLED, " 3"],
        [*BUNDLED, "3", "--operation", "Install"],
        [*BUNDLED, "3", "--manifests", "no/such/dir"],
        [*BUNDLED, "3", "--manifests", "README.md"],
        [*BUNDLED, "3", "--manifests", ""],
        [*BUNDLED, "3", "--version", "v3.29"],  # twice: click keeps the last
        [*BUNDLED, "3", "--strict", "--strict"],
        [*BUNDLED, "3", "--strict=yes"],
        ["--version", "--nodes", "3"],  # a value that looks like an option
        [*BUNDLED, "3", "--set"],  # no value
        ["--version=", "--nodes", "3"],
        [*BUNDLED, "3", "--"],
    ],
)
def test_anything_else_is_left_to_click(args: list[str]) -> None:
    assert quick.parse(args) is None


def test_shell_completion_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_CALICO_RENDER_COMPLETE", "bash_complete")
    assert quick.parse([*BUNDLED, "3"]) is None


@pytest.mark.parametrize(
    "args",
    [
        [*BUNDLED, "601"],  # Typha on, validated
        [*BUNDLED, "3", "--no-validate", "--operation", "upgrade"],
        ["--version", "v3.99", "--nodes", "3"],  # bad input: exit 2
        [*BUNDLED, "3", "--kube-version", "0.1"],
        [*BUNDLED, "3", "--set", "nosuchparam=1", "--strict"],
        [*BUNDLED, "3", "--set", "nosuchparam=1", "--no-validate"],
        [*BUNDLED, "3", "--set", "calicoMode=vxlan\n  injected: true", "--no-validate"],
        [*BUNDLED, "3", "--set", "calicoMode=\x1b[31mred", "--no-validate"],
    ],
)
def test_the_same_bytes_and_exit_code_as_click(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    assert quick.parse(args) is not None
    fast, slow = both(capsys, *args)
    assert fast == slow


def test_debug_shows_the_traceback_then_the_same_line(capsys: pytest.CaptureFixture[str]) -> None:
    fast, slow = both(capsys, "--version", "../x", "--nodes", "3", "--debug")
    assert (fast.code, fast.out) == (slow.code, slow.out) == (2, "")
    assert "Traceback" in fast.err
    assert fast.err.splitlines()[-1] == slow.err.splitlines()[-1]


def test_an_object_rendered_twice_is_exit_1_both_ways(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    version = tmp_path / "kubernetes" / "calico" / "v3.31.3"
    shutil.copytree(REPO_ROOT / "manifests" / "kubernetes" / "calico" / "v3.31.3", version)
    shutil.copy(version / "002-calico.yaml", version / "003-calico.yaml")
    args = ["--manifests", str(tmp_path), "--version", "v3.31.3", "--nodes", "3", "--no-validate"]
    fast, slow = both(capsys, *args)
    assert fast.code == 1 and "duplicate-object" in fast.err
    assert fast == slow


def _loaded_by_a_plain_render(tmp_path: Path, modules: set[str], verdict_in_turn: bool) -> str:
    """Which of ``modules`` a cold 601-node render of the bundled tree loads, as the
    last line of its stderr (with its exit code); its stdout must hold the render."""
    code = (
        "import sys\n"
        "from renderer.checks import verdict\n"
        f"if {verdict_in_turn}:\n"
        "    verdict._spare_core = lambda: False\n"
        "from renderer.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as exc:\n"
        f"    loaded = sorted(set({sorted(modules)!r}) & set(sys.modules))\n"
        "    sys.stderr.write(f'\\nexit={exc.code} loaded={loaded}\\n')\n"
    )
    env = {**os.environ, "CALICO_RENDER_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", code, *BUNDLED, "601"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert "kind: Deployment" in done.stdout, done.stderr
    return done.stderr.splitlines()[-1]


def test_a_plain_render_never_imports_click(tmp_path: Path) -> None:
    assert _loaded_by_a_plain_render(tmp_path, {"click"}, False) == "exit=0 loaded=[]"
