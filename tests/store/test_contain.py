"""Containment: nothing read, written or deleted outside the directories named, and only
regular files and directories read from them. Each case of the adversarial battery is
its own test, grouped by kind; every refusal is exit 2 with one line naming the path."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from renderer.errors import InputError
from renderer.store import contain
from renderer.store import files as fsutil
from tests.clihelp import ERROR, one_error, run
from tests.store.nobody import as_nobody, nobody_ids, skip_reason

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = REPO_ROOT / "upstream" / "calico" / "v3.31.3"
TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: kube-system\n"
SECRET = "root:$6$secret-hash:19000:0:99999:7:::\n"


def _tree(tmp_path: Path, versions: tuple[str, ...] = ("v3.28.2",)) -> Path:
    root = tmp_path / "root"
    for v in versions:
        version = root / "kubernetes" / "calico" / v
        version.mkdir(parents=True)
        (version / "calico.yaml").write_text(TEMPLATE)
    return root


def _outside(tmp_path: Path) -> Path:
    """A directory outside every tree, with a file that must stay unread and unchanged."""
    out = tmp_path / "outside"
    out.mkdir()
    (out / "victim.yaml").write_text(SECRET)
    return out


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("calico.yaml", "calico-typha.yaml"):
        shutil.copy(UPSTREAM / name, src / name)
    return src


def _untouched(outside: Path) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["victim.yaml"]
    assert (outside / "victim.yaml").read_text() == SECRET


# -- the helper ------------------------------------------------------------------------


def test_inside_resolves_links_and_names_the_path(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "in").symlink_to(base)
    (base / "out").symlink_to(tmp_path)
    assert contain.inside(base / "in" / "x", base, "the tree") == base.resolve() / "x"
    with pytest.raises(InputError) as err:
        contain.inside(base / "out" / "x", base, "the tree")
    assert err.value.file == str(base / "out" / "x") and "outside the tree" in err.value.message


def test_kind_of_special_files(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert contain.kind(fifo) == contain.SPECIAL
    assert contain.kind(Path("/dev/null")) == contain.SPECIAL
    assert contain.kind(tmp_path) == contain.DIRECTORY
    assert contain.kind(tmp_path / "nothing") is None
    with pytest.raises(InputError) as err:
        contain.entry(fifo, tmp_path, "the tree")
    assert err.value.file == str(fifo)


def test_read_bytes_is_bounded_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(InputError):
            contain.read_bytes(path, 100)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(InputError) as err:
        contain.read_bytes(big, 100)
    assert "larger than 100 bytes" in err.value.message


def test_a_path_over_path_max_is_bad_input(tmp_path: Path) -> None:
    long = tmp_path / "/".join(["d" * 200] * 30)
    with pytest.raises(InputError) as err:
        contain.kind(long)
    assert "name too long" in err.value.message.lower()


# -- reads and writes outside ROOT -----------------------------------------------------


@pytest.mark.parametrize("link", ["kubernetes", "kubernetes/calico"])
def test_import_never_writes_through_a_linked_directory(
    link: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    outside = _outside(tmp_path)
    (root / link).symlink_to(outside)
    r = run(capsys, "import", str(_source(tmp_path)), "--manifests", str(root))
    assert str(outside) in one_error(r, file=root / link)
    _untouched(outside)


def test_import_check_never_reads_a_linked_version_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    (root / "kubernetes" / "calico").mkdir(parents=True)
    outside = _outside(tmp_path)
    version = root / "kubernetes" / "calico" / "v3.31.3"
    version.symlink_to(outside)
    r = run(capsys, "import", str(_source(tmp_path)), "--manifests", str(root), "--check")
    one_error(r, file=version)
    assert "secret-hash" not in r.out + r.err


def test_import_check_never_reads_a_linked_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    version = root / "kubernetes" / "calico" / "v3.31.3"
    version.mkdir(parents=True)
    outside = _outside(tmp_path)
    (version / "002-calico.yaml").symlink_to(outside / "victim.yaml")
    r = run(capsys, "import", str(_source(tmp_path)), "--manifests", str(root), "--check")
    one_error(r, file=version / "002-calico.yaml")
    assert "secret-hash" not in r.out + r.err


def test_import_force_onto_a_linked_version_leaves_nothing_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    calico = root / "kubernetes" / "calico"
    (calico / "real").mkdir(parents=True)
    (calico / "v3.31.3").symlink_to(calico / "real")
    r = run(capsys, "import", str(_source(tmp_path)), "--manifests", str(root), "--force")
    one_error(r, file=calico / "v3.31.3")
    assert sorted(p.name for p in calico.iterdir()) == ["real", "v3.31.3"]


def test_import_never_reads_a_source_linked_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _source(tmp_path)
    outside = _outside(tmp_path)
    (src / "calico-vxlan.yaml").symlink_to(outside / "victim.yaml")
    r = run(capsys, "import", str(src), "--manifests", str(tmp_path / "root"))
    one_error(r, file=src / "calico-vxlan.yaml")


def test_owned_list_through_a_link_deletes_nothing_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    outside = _outside(tmp_path)
    (out / "link").symlink_to(outside)
    (out / fsutil.OWNED_FILES).write_text("link/victim.yaml\n")
    args = ("--manifests", str(root), "--version", "v3.28.2", "--nodes", "3", "--no-validate")
    r = run(capsys, *args, "--output-dir", str(out))
    assert r.code == 2 and r.err.splitlines()[-1].startswith(f"{ERROR}{out / 'link'}"), r.err
    _untouched(outside)


@pytest.mark.parametrize("entry", ["/etc/hosts", "../victim.yaml", "a\x1bb.yaml"])
def test_owned_list_entries_must_be_plain_relative_names(entry: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / fsutil.OWNED_FILES).write_text(f"# header\n{entry}\n")
    with pytest.raises(InputError) as err:
        fsutil.write_owned_tree(out, {"calico.yaml": "x\n"})
    assert err.value.file == str(out / fsutil.OWNED_FILES) and err.value.line == 2
    assert not (out / "calico.yaml").exists()  # refused before anything is written


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge", "directory"])
def test_owned_list_that_is_not_a_small_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    listing = out / fsutil.OWNED_FILES
    if kind == "fifo":
        os.mkfifo(listing)
    elif kind == "dev-zero":
        listing.symlink_to("/dev/zero")
    elif kind == "huge":
        with listing.open("wb") as fh:
            fh.truncate(100 * 1024 * 1024)  # sparse: 100 MB of NUL bytes
    else:
        listing.mkdir()
    with pytest.raises(InputError) as err:
        fsutil.write_owned_tree(out, {"calico.yaml": "x\n"})
    assert err.value.file == str(listing)


def test_owned_entry_that_is_now_a_link_is_not_followed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    fsutil.write_owned_tree(out, {"a.yaml": "a\n", "b.yaml": "b\n"})
    outside = _outside(tmp_path)
    (out / "b.yaml").unlink()
    (out / "b.yaml").symlink_to(outside / "victim.yaml")
    with pytest.raises(InputError) as err:
        fsutil.write_owned_tree(out, {"a.yaml": "a\n"})
    assert err.value.file == str(out / "b.yaml")
    _untouched(outside)


def test_update_golden_never_deletes_through_a_linked_version_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    golden = tmp_path / "golden"
    golden.mkdir()
    outside = _outside(tmp_path)
    (golden / "v3.28.2").symlink_to(outside)
    r = run(capsys, "check", "--manifests", str(root), "--golden", str(golden), "--update-golden")
    assert r.code == 2, r.err
    assert str(golden / "v3.28.2") in r.err
    _untouched(outside)


def test_check_reports_a_golden_directory_linked_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    golden = tmp_path / "golden"
    golden.mkdir()
    outside = _outside(tmp_path)
    (golden / "v3.28.2").symlink_to(outside)
    r = run(capsys, "check", "--manifests", str(root), "--golden", str(golden), "--format", "json")
    assert (r.code, r.out) == (2, "") and "secret-hash" not in r.err
    one_error(r, file=golden / "v3.28.2")
    assert "symbolic link" in r.err
    update = run(
        capsys, "check", "--manifests", str(root), "--golden", str(golden), "--update-golden"
    )
    assert update.code == 2 and "symbolic link" in update.err
    _untouched(outside)


@pytest.mark.parametrize("target", ["template", "golden"])
def test_check_output_never_overwrites_what_it_checks(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    template = root / "kubernetes" / "calico" / "v3.28.2" / "calico.yaml"
    golden = tmp_path / "golden"
    run(capsys, "check", "--manifests", str(root), "--golden", str(golden), "--update-golden")
    path = template if target == "template" else golden / "v3.28.2" / "nodes-50" / "calico.yaml"
    before = path.read_text()
    r = run(
        capsys, "check", "--manifests", str(root), "--golden", str(golden), "--output", str(path)
    )
    one_error(r, file=path, key="--output")
    assert path.read_text() == before


def test_render_output_dir_never_inside_the_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    version = root / "kubernetes" / "calico" / "v3.28.2"
    args = ("--manifests", str(root), "--version", "v3.28.2", "--nodes", "3", "--no-validate")
    r = run(capsys, *args, "--output-dir", str(version))
    assert r.code == 2 and r.err.splitlines()[-1].startswith(f"{ERROR}{version}:"), r.err
    assert sorted(p.name for p in version.iterdir()) == ["calico.yaml"]


def test_output_over_another_users_file_keeps_owner_and_mode(tmp_path: Path) -> None:
    ids = nobody_ids()
    if os.geteuid() != 0 or ids is None:
        pytest.skip("needs root and a 'nobody' user to own a file as another user")
    report = tmp_path / "report.txt"
    report.write_text("old\n")
    os.chown(report, *ids)
    report.chmod(0o640)
    fsutil.write_output(report, "new\n")
    info = report.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (*ids, 0o640)
    assert report.read_text() == "new\n"


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A directory ``nobody`` can reach (pytest's own is private to root)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    path = Path(tempfile.mkdtemp(prefix="calico-render-nobody-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _cli_as_nobody(*args: str) -> subprocess.CompletedProcess[str]:
    return as_nobody("from renderer.cli import main; main()", *args)


def test_output_over_another_users_file_is_refused_when_owner_cannot_be_kept(
    shared_tmp: Path,
) -> None:
    shared = shared_tmp / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # sticky, like /tmp
    report = shared / "report.txt"
    report.write_text("root's\n")
    report.chmod(0o666)
    proc = as_nobody(
        "import sys\nfrom renderer.store.files import write_output\n"
        "from renderer.errors import InputError\n"
        "try:\n    write_output(sys.argv[1], 'x')\n"
        "except InputError as exc:\n    print(exc)\n",
        str(report),
    )
    assert proc.returncode == 0 and "owned by another user" in proc.stdout, proc.stderr
    assert report.read_text() == "root's\n" and report.stat().st_uid == 0


def test_output_in_a_sticky_directory_of_another_user_is_one_line(shared_tmp: Path) -> None:
    root = _tree(shared_tmp)
    shared = shared_tmp / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    report = shared / "report.txt"
    report.write_text("root's\n")
    report.chmod(0o666)
    golden = shared_tmp / "g"
    proc = _cli_as_nobody(
        "check", "--manifests", str(root), "--golden", str(golden), "--output", str(report),
        "--jobs", "1",
    )  # fmt: skip
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert str(report) in proc.stderr and report.read_text() == "root's\n"


def test_unsearchable_version_directory_as_nobody_is_one_line(shared_tmp: Path) -> None:
    root = _tree(shared_tmp, ("v3.28.2",))
    version = root / "kubernetes" / "calico" / "v3.28.2"
    version.chmod(0o744)  # readable, not searchable by others
    proc = _cli_as_nobody("--manifests", str(root), "--version", "v3.28.2", "--nodes", "3")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert str(version) in proc.stderr


def test_root_path_over_path_max_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    long = "/tmp/" + "/".join(["d" * 250] * 20)
    r = run(capsys, "--manifests", long, "--version", "v3.28.2", "--nodes", "3")
    assert r.code == 2 and len(r.err.splitlines()) == 1, r.err
    assert "internal error" not in r.err


# -- special files ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "socket", "char-device"])
def test_special_file_among_templates_is_refused(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    path = root / "kubernetes" / "calico" / "v3.28.2" / "odd.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.bind(str(path))
        except OSError:
            pytest.skip("path too long for a UNIX socket")
        finally:
            sock.close()
    else:
        path.symlink_to("/dev/null")  # a character device named *.yaml
    r = run(capsys, "--manifests", str(root), "--version", "v3.28.2", "--nodes", "3")
    one_error(r, file=path)


@pytest.mark.parametrize("kind", ["fifo", "directory", "char-device"])
def test_exceptions_file_that_is_not_a_regular_file_is_refused(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    path = root / ".calico-render.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")
    r = run(capsys, "check", "--manifests", str(root), "--golden", str(tmp_path / "g"))
    assert str(path) in one_error(r) or one_error(r, file=path)


def test_named_exceptions_fifo_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    fifo = tmp_path / "exceptions.yaml"
    os.mkfifo(fifo)
    r = run(
        capsys,
        "check",
        "--manifests",
        str(root),
        "--golden",
        str(tmp_path / "g"),
        "--exceptions",
        str(fifo),
    )
    assert r.code == 2 and str(fifo) in r.err and len(r.err.splitlines()) == 1


def test_golden_fifo_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(tmp_path)
    golden = tmp_path / "golden"
    (golden / "v3.28.2" / "common").mkdir(parents=True)
    os.mkfifo(golden / "v3.28.2" / "common" / "calico.yaml")
    r = run(capsys, "check", "--manifests", str(root), "--golden", str(golden))
    assert r.code in (1, 2) and "calico.yaml" in r.out + r.err


def test_output_fifo_nobody_reads_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fsutil, "FIFO_READER_WAIT", 0.2)
    fifo = tmp_path / "report"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as err:
        fsutil.write_output(fifo, "report\n")
    assert err.value.file == str(fifo) and "no process reads" in err.value.message


# -- concurrent writers ----------------------------------------------------------------


def _render_into(root: Path, version: str, out: Path) -> subprocess.CompletedProcess[str]:
    args = ["--manifests", str(root), "--version", version, "--nodes", "3", "--no-validate"]
    return subprocess.run(
        [sys.executable, "-m", "renderer", *args, "--output-dir", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["four-versions", "one-and-three-files"])
def test_concurrent_renders_leave_one_versions_files(shape: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    by_shape: dict[str, dict[str, tuple[str, ...]]] = {
        "four-versions": {f"v3.2{i}.0": (f"{i}-calico.yaml",) for i in range(4)},
        "one-and-three-files": {
            "v3.20.0": ("calico.yaml",),
            "v3.21.0": ("000-crds.yaml", "001-typha.yaml", "002-calico.yaml"),
        },
    }
    layouts = by_shape[shape]
    for version, names in layouts.items():
        directory = root / "kubernetes" / "calico" / version
        directory.mkdir(parents=True)
        for name in names:
            (directory / name).write_text(TEMPLATE.replace("name: x", f"name: {name[:-5]}"))
    out = tmp_path / "out"
    for _ in range(3):
        results: list[subprocess.CompletedProcess[str]] = []

        def render(version: str, into: list[subprocess.CompletedProcess[str]] = results) -> None:
            into.append(_render_into(root, version, out))

        threads = [threading.Thread(target=render, args=(v,)) for v in layouts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
        listed = {
            line
            for line in (out / fsutil.OWNED_FILES).read_text().splitlines()
            if line and not line.startswith("#")
        }
        present = {p.name for p in out.iterdir() if not p.name.startswith(".")}
        assert present == listed and any(set(names) == listed for names in layouts.values())
