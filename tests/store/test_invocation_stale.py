"""The run memo answers exactly what running the command now would: each test here is a
way an answer could differ (a run cut short by its reader, write errors, a symbolic
link retargeted, reads through /proc, a tree inside the cache directory, a removed
working directory, a huge input, a path through ``link/..``)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from renderer.data.bundled import bundled_manifests
from renderer.store import invocation
from tests.runmemohelp import VERSION, Run, cli, copy_version, environment
from tests.runmemohelp import render_args as _render

OFF = {invocation.ENV_OFF: "1"}


def _cli(cwd: Path, cache: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    return cli(cwd, cache, *args, env=env)


def _sh(
    cwd: Path, cache: Path, args: list[str], shell: str, env: dict[str, str] | None = None
) -> int:
    """``shell`` in bash with ``{cmd}`` the render command line; its exit status."""
    cmd = shlex.join([sys.executable, "-m", "renderer", *args])
    script = shell.format(cmd=cmd)
    proc = subprocess.run(["bash", "-c", script], cwd=cwd, env=environment(cache, env), timeout=120)
    return proc.returncode


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return copy_version(tmp_path)


def test_a_run_whose_stdout_reader_left_is_not_kept(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    _sh(tmp_path, cache, _render(tree), "{cmd} | head -c 10 >/dev/null")
    served = _cli(tmp_path, cache, *_render(tree))
    plain = _cli(tmp_path, cache, *_render(tree), env=OFF)
    assert plain.code == 0 and len(plain.out) > 100_000
    assert (served.code, served.out, served.err) == (plain.code, plain.out, plain.err)


def test_a_run_whose_stderr_reader_left_is_not_kept(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    _sh(tmp_path, cache, _render(tree), "{cmd} 2>&1 >/dev/null | true")
    served = _cli(tmp_path, cache, *_render(tree))
    plain = _cli(tmp_path, cache, *_render(tree), env=OFF)
    assert (served.code, served.out, served.err) == (plain.code, plain.out, plain.err)


def test_an_unwritable_stderr_is_answered_as_the_command_does(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    _cli(tmp_path, cache, *_render(tree))
    shell = "{cmd} >out.yaml 2>/dev/full"
    served = _sh(tmp_path, cache, _render(tree), shell), (tmp_path / "out.yaml").read_bytes()
    plain = _sh(tmp_path, cache, _render(tree), shell, OFF), (tmp_path / "out.yaml").read_bytes()
    assert served == plain


def test_a_pipe_closed_before_output_ends_with_the_commands_code(
    tmp_path: Path, tree: Path
) -> None:
    cache = tmp_path / "cache"
    _cli(tmp_path, cache, *_render(tree))
    shell = "{cmd} 2>/dev/null | true; exit ${{PIPESTATUS[0]}}"
    served = _sh(tmp_path, cache, _render(tree), shell)
    plain = _sh(tmp_path, cache, _render(tree), shell, OFF)
    assert served == plain


def test_a_template_link_turned_outside_the_tree_is_a_miss(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    version = tree / "kubernetes" / "calico" / VERSION
    (tree / "shared").mkdir()
    shutil.move(version / "002-calico.yaml", tree / "shared" / "002-calico.yaml")
    (version / "002-calico.yaml").symlink_to("../../../shared/002-calico.yaml")
    assert _cli(tmp_path, cache, *_render(tree)).code == 0
    (tmp_path / "outside").mkdir()
    shutil.copy2(tree / "shared" / "002-calico.yaml", tmp_path / "outside" / "002-calico.yaml")
    (version / "002-calico.yaml").unlink()
    (version / "002-calico.yaml").symlink_to(tmp_path / "outside" / "002-calico.yaml")
    served = _cli(tmp_path, cache, *_render(tree))
    plain = _cli(tmp_path, cache, *_render(tree), env=OFF)
    assert plain.code == 2 and b"outside the manifest tree" in plain.err
    assert (served.code, served.out) == (plain.code, plain.out)


def test_values_read_through_proc_self_are_traced(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    (tmp_path / "a.yaml").write_text("calicoMode: vxlan\n")
    (tmp_path / "b.yaml").write_text('calicoMode: "bgp"\n')  # same size
    stamp = (tmp_path / "a.yaml").stat()
    os.utime(tmp_path / "b.yaml", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    args = _render(tree, "--values", "/proc/self/fd/0")
    shell = "{cmd} <b.yaml >out.yaml 2>/dev/null"
    _sh(tmp_path, cache, args, "{cmd} <a.yaml >/dev/null 2>&1")
    served = _sh(tmp_path, cache, args, shell), (tmp_path / "out.yaml").read_bytes()
    plain = _sh(tmp_path, cache, args, shell, OFF), (tmp_path / "out.yaml").read_bytes()
    assert served == plain


def test_a_tree_inside_the_cache_directory_is_still_traced(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path  # e.g. CALICO_RENDER_CACHE_DIR=$CI_PROJECT_DIR
    first = _cli(tmp_path, cache, *_render(tree))
    calico = tree / "kubernetes" / "calico" / VERSION / "002-calico.yaml"
    calico.write_text(calico.read_text().replace("calico-node", "calico-nodx"))
    served = _cli(tmp_path, cache, *_render(tree))
    plain = _cli(tmp_path, cache, *_render(tree), env=OFF)
    assert plain.out != first.out
    assert (served.code, served.out, served.err) == (plain.code, plain.out, plain.err)


def test_a_removed_working_directory_still_renders(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    shell = "mkdir gone && cd gone && rmdir ../gone && {cmd} >/dev/null 2>../err"
    assert _sh(tmp_path, cache, _render(tree), shell) == 0
    assert b"Traceback" not in (tmp_path / "err").read_bytes()


def test_a_huge_values_file_is_refused_within_bounded_memory(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    with open(tmp_path / "big.yaml", "wb") as fh:
        fh.truncate(2 << 30)  # sparse: 2 GiB of nothing on disk
    shell = "ulimit -v 1048576; {cmd} >/dev/null 2>err"
    assert _sh(tmp_path, cache, _render(tree, "--values", "big.yaml"), shell) == 2
    assert b"larger than 8 MiB" in (tmp_path / "err").read_bytes()


def test_a_tree_named_through_link_dotdot_is_watched_where_it_is(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    real = tmp_path / "x"
    shutil.copytree(
        bundled_manifests() / "kubernetes" / "calico" / VERSION,
        real / "tree" / "kubernetes" / "calico" / VERSION,
    )
    (real / "inner").mkdir()
    (tmp_path / "link").symlink_to(real / "inner")
    args = ["--manifests", "link/../tree", "--version", VERSION, "--nodes", "601"]
    first = _cli(tmp_path, cache, *args)
    calico = real / "tree" / "kubernetes" / "calico" / VERSION / "002-calico.yaml"
    stamp = calico.stat()
    calico.write_text(calico.read_text().replace("calico-node", "calico-nodx", 1))  # same size
    os.utime(calico, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    served = _cli(tmp_path, cache, *args)
    plain = _cli(tmp_path, cache, *args, env=OFF)
    assert first.code == 0 and plain.out != first.out
    assert (served.code, served.out) == (plain.code, plain.out)
