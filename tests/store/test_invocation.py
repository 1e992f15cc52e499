"""The run memo: a repeated render is answered with the first run's bytes, and any change
to what the run read, asked about, listed or ran as code is a miss."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from renderer.store import invocation
from tests.runmemohelp import VERSION, Run, cli, copy_version, environment
from tests.runmemohelp import render_args as _render


def _cli(
    cwd: Path,
    cache: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
) -> Run:
    return cli(cwd, cache, *args, env=env, stdin=stdin, traced=True)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return copy_version(tmp_path)


def test_a_repeated_render_is_served_byte_for_byte(tmp_path: Path, tree: Path) -> None:
    first = _cli(tmp_path, tmp_path / "cache", *_render(tree))
    second = _cli(tmp_path, tmp_path / "cache", *_render(tree))
    third = _cli(tmp_path, tmp_path / "cache", *_render(tree))
    assert first.code == 0 and first.out.startswith(b"---") and not first.served
    assert second.served and third.served
    assert (second.code, second.out, second.err) == (first.code, first.out, first.err)
    assert (third.code, third.out, third.err) == (first.code, first.out, first.err)


def test_a_served_render_equals_one_without_any_cache(tmp_path: Path, tree: Path) -> None:
    _cli(tmp_path, tmp_path / "cache", *_render(tree))
    served = _cli(tmp_path, tmp_path / "cache", *_render(tree))
    plain = _cli(tmp_path, tmp_path / "cache", *_render(tree), env={"CALICO_RENDER_NO_CACHE": "1"})
    assert served.served and not plain.served
    assert (served.code, served.out, served.err) == (plain.code, plain.out, plain.err)


def test_a_failed_check_exit_1_is_served_too(tmp_path: Path, tree: Path) -> None:
    calico = tree / "kubernetes" / "calico" / VERSION / "002-calico.yaml"
    text = calico.read_text()
    assert "  name: calico-config\n" in text
    bogus = text.replace("  name: calico-config\n", "  name: calico-config\n  bogus: 1\n", 1)
    calico.write_text(bogus)
    first = _cli(tmp_path, tmp_path / "cache", *_render(tree))
    second = _cli(tmp_path, tmp_path / "cache", *_render(tree))
    assert first.code == 1 and first.out == b"" and b"schema-invalid" in first.err
    assert second.served and (second.code, second.out, second.err) == (1, b"", first.err)


def test_an_edited_template_is_a_miss(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    first = _cli(tmp_path, cache, *_render(tree))
    calico = tree / "kubernetes" / "calico" / VERSION / "002-calico.yaml"
    text = calico.read_text()
    size = calico.stat()
    # the same size and modification time: only the bytes tell
    calico.write_text(text.replace("calico-node", "calico-nodx", 1))
    os.utime(calico, ns=(size.st_atime_ns, size.st_mtime_ns))
    second = _cli(tmp_path, cache, *_render(tree))
    assert not second.served and second.out != first.out and b"calico-nodx" in second.out


def test_an_edited_values_file_is_a_miss(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    values = tmp_path / "values.yaml"
    values.write_text("calicoMode: vxlan\n")
    first = _cli(tmp_path, cache, *_render(tree, "--values", "values.yaml"))
    values.write_text("calicoMode: bgp\n")
    second = _cli(tmp_path, cache, *_render(tree, "--values", "values.yaml"))
    assert not second.served and second.out != first.out
    values.write_text("calicoMode: vxlan\n")  # back: one entry per key, the last run's
    third = _cli(tmp_path, cache, *_render(tree, "--values", "values.yaml"))
    assert not third.served and third.out == first.out
    assert _cli(tmp_path, cache, *_render(tree, "--values", "values.yaml")).served


def test_a_new_patch_version_is_a_miss(tmp_path: Path, tree: Path) -> None:
    """``--version v3.28`` means the newest patch the tree lists: a listing is an input."""
    cache = tmp_path / "cache"
    args = ["--manifests", str(tree), "--version", "v3.28", "--nodes", "601"]
    first = _cli(tmp_path, cache, *args)
    calico = tree / "kubernetes" / "calico"
    shutil.copytree(calico / VERSION, calico / "v3.28.9")
    second = _cli(tmp_path, cache, *args)
    assert not second.served and b"v3.28.9" in second.err and b"v3.28.9" not in first.err


def test_a_tree_appearing_in_the_working_directory_is_a_miss(tmp_path: Path, tree: Path) -> None:
    """Without --manifests a render uses ./kubernetes/calico when there is one: a
    file that did not exist is an input too."""
    cache = tmp_path / "cache"
    work = tmp_path / "work"
    work.mkdir()
    args = ["--version", VERSION, "--nodes", "601"]
    first = _cli(work, cache, *args)
    assert b"bundled tree" in first.err
    shutil.copytree(tree / "kubernetes", work / "kubernetes")
    second = _cli(work, cache, *args)
    assert not second.served and b"bundled tree" not in second.err


def test_the_environment_and_arguments_are_the_key(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    _cli(tmp_path, cache, *_render(tree))
    assert not _cli(tmp_path, cache, *_render(tree), env={"CALICO_RENDER_X": "1"}).served
    assert not _cli(tmp_path, cache, *_render(tree, "--repo", "r.example/")).served
    # a variable a shell changes between commands is not
    assert _cli(tmp_path, cache, *_render(tree), env={"OLDPWD": "/elsewhere"}).served


@pytest.mark.parametrize(
    ("extra", "stdin"),
    [
        (["--output-dir", "out"], None),  # writes files
        (["--values", "-"], b"calicoMode: vxlan\n"),  # reads stdin
        (["--values", "no-such.yaml"], None),  # exit 2
        (["--no-cache"], None),
    ],
    ids=["output-dir", "stdin", "bad-input", "no-cache"],
)
def test_runs_that_cannot_be_kept_are_not(
    tmp_path: Path, tree: Path, extra: list[str], stdin: bytes | None
) -> None:
    cache = tmp_path / "cache"
    first = _cli(tmp_path, cache, *_render(tree, *extra), stdin=stdin)
    second = _cli(tmp_path, cache, *_render(tree, *extra), stdin=stdin)
    assert not second.served
    assert (second.code, second.out, second.err) == (first.code, first.out, first.err)
    kept = cache / "invocation"
    assert not kept.exists() or not any(kept.iterdir())


def test_help_is_not_kept(tmp_path: Path) -> None:
    """Help depends on the terminal's width, which no file tells."""
    cache = tmp_path / "cache"
    _cli(tmp_path, cache, "--help")
    assert not _cli(tmp_path, cache, "--help").served


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip"])
def test_a_damaged_entry_is_a_miss(tmp_path: Path, tree: Path, damage: str) -> None:
    cache = tmp_path / "cache"
    first = _cli(tmp_path, cache, *_render(tree))
    (entry,) = (cache / "invocation").iterdir()
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        entry.write_bytes(b"\x00" * 64)
    else:
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    second = _cli(tmp_path, cache, *_render(tree))
    assert not second.served and (second.code, second.out, second.err) == (
        first.code,
        first.out,
        first.err,
    )
    assert _cli(tmp_path, cache, *_render(tree)).served  # rewritten whole


def test_changed_code_is_a_miss(tmp_path: Path, tree: Path) -> None:
    """Every module the run loaded is checked by size and time: a served run is what
    today's code prints."""
    cache = tmp_path / "cache"
    _cli(tmp_path, cache, *_render(tree))
    (entry,) = (cache / "invocation").iterdir()
    loaded = invocation._decode(entry.read_bytes())
    assert loaded is not None
    code_files = {path for path, _, _ in loaded[3]}
    assert invocation.__file__ in code_files
    assert any(p.endswith(os.path.join("renderer", "engine", "render.py")) for p in code_files)
    # an entry whose record of one module differs is not served
    path, size, mtime = next(f for f in loaded[3] if f[0].endswith("render.py"))
    assert not invocation._unchanged((*loaded[:3], ((path, size, mtime + 1),), (), (), ()))
    assert invocation._unchanged((*loaded[:3], ((path, size, mtime),), (), (), ()))


def test_a_closed_pipe_ends_a_served_run_quietly(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    _cli(tmp_path, cache, *_render(tree))
    proc = subprocess.Popen(
        [sys.executable, "-m", "renderer", *_render(tree)],
        cwd=tmp_path,
        env=environment(cache),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert b"Traceback" not in err and b"Exception ignored" not in err


def test_the_run_memo_alone_can_be_turned_off(tmp_path: Path, tree: Path) -> None:
    cache = tmp_path / "cache"
    off = {invocation.ENV_OFF: "1"}
    first = _cli(tmp_path, cache, *_render(tree), env=off)
    second = _cli(tmp_path, cache, *_render(tree), env=off)
    assert not second.served and second.out == first.out
    assert not (cache / "invocation").exists() and (cache / "render").is_dir()


#: ``python -m renderer`` with the Typha verdict judged in a forked child however busy
#: the machine is; writes "forked" to the file named first when it was.
_ASIDE = """
import sys
from renderer.checks import verdict
flag = open(sys.argv[1], "w")  # before the run is traced
real = verdict.judge_aside
def judge_aside(version):
    found = real(version)
    flag.write("forked" if found is not None else "")
    flag.flush()
    return found
verdict._spare_core = lambda: True
verdict.judge_aside = judge_aside
sys.argv = ["calico-render", *sys.argv[2:]]
from renderer._entry import main
main()
"""


def test_a_render_judging_its_verdict_in_a_child_is_kept_and_served(
    tmp_path: Path, tree: Path
) -> None:
    args = _render(tree)
    env = environment(tmp_path / "cache")
    flag = tmp_path / "judged"

    def run() -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-c", _ASIDE, str(flag), *args]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, check=False)

    first = run()
    assert first.returncode == 0 and flag.read_text() == "forked"
    flag.write_text("")
    again = run()
    assert flag.read_text() == ""  # served: nothing was judged, nor rendered
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)


def _forked_trace(path: Path, module: str) -> bytes:
    """What a child of :func:`invocation.fork` that reads ``path`` and imports
    ``module`` hands back."""
    read, write = os.pipe()
    pid = invocation.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            path.read_bytes()
            sys.dont_write_bytecode = True  # a write outside the cache would spoil it
            __import__(module)
            os.write(write, invocation.trace())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return b"".join(chunks)


def test_what_a_forked_child_read_and_ran_is_an_input_of_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "read-by-the-child.txt"
    data.write_text("x")
    before = tmp_path / "read-before.txt"
    before.write_text("y")
    (tmp_path / "run_by_the_child.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    recorder = invocation.record(["--trace-test"])
    assert recorder is not None
    try:
        before.read_bytes()
        trace = _forked_trace(data, "run_by_the_child")
        assert recorder.spoiled is None and str(data) not in recorder.reads  # the fork alone
        invocation.add_trace(trace)
    finally:
        recorder.stop()
    assert recorder.spoiled is None
    assert recorder.reads[str(data)] == ("content", b"x")
    assert recorder.child_code == {str(tmp_path / "run_by_the_child.py")}
    _, reads, _, _, _ = marshal.loads(trace)
    assert [path for path, _ in reads] == [str(data)]  # only what the parent did not have


def test_an_unreadable_child_trace_spoils_the_run() -> None:
    recorder = invocation.record(["--trace-test"])
    assert recorder is not None
    try:
        invocation.add_trace(b"not a trace")
    finally:
        recorder.stop()
    assert recorder.spoiled


@pytest.mark.parametrize(
    "path",
    [
        *("/a/b.py", "/a/./b.py", "/a/../b.py", "/a/b/", "/a/b/.", "/a/b/..", "//a", "/a//b"),
        *("/", "/.x/b.py", "/a/..b.py", "/a/...", "a/b.py", "./a.py", ""),
    ],
)
def test_module_paths_are_made_absolute_as_abspath_makes_them(path: str) -> None:
    """An entry names each module's file as os.path.abspath does: a served run checks
    the file the first run loaded, whatever shortcut recording takes."""
    assert invocation._absolute(path) == os.path.abspath(path)
