"""``calico-render import``: the bundled tree is what import derives; writing, checking
and bad input through the CLI."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.clihelp import one_error, run

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = REPO_ROOT / "upstream" / "calico"
MANIFESTS = REPO_ROOT / "manifests"
#: The line of calico/typha's image in upstream v3.31.3's calico-typha.yaml.
LINE_OF_TYPHA_IMAGE = 7515
#: How each bundled version is imported: (tag, extra arguments).
BUNDLED = {
    "v3.25.0": ("--no-typha", "--layout", "single"),
    "v3.27.3": ("--no-typha", "--layout", "single"),
    "v3.28.2": (),
    "v3.29.3": (),
    "v3.31.3": (),
}


def test_bundled_tree_is_exactly_the_imported_versions() -> None:
    versions = sorted(p.name for p in (MANIFESTS / "kubernetes" / "calico").iterdir())
    assert versions == sorted(BUNDLED)


@pytest.mark.parametrize("flags", [True, False], ids=["flags", "recorded"])
@pytest.mark.parametrize("tag", sorted(BUNDLED))
def test_bundled_version_is_derived_by_import(
    tag: str, flags: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Byte for byte; ``--check`` needs no flags: the header records the choices."""
    r = run(
        capsys,
        "import",
        str(UPSTREAM / tag),
        "--manifests",
        str(MANIFESTS),
        "--check",
        *(BUNDLED[tag] if flags else ()),
    )
    assert r.code == 0, r.out
    assert r.out == "" and r.err.endswith(": as derived\n")


def test_a_differing_choice_is_named_in_one_line_before_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, root = _source(tmp_path), tmp_path / "root"
    registry = "hub.oepkgs.net/openfuyao/"
    args = ("import", str(src), "--manifests", str(root))
    assert run(capsys, *args, "--layout", "single", "--default-registry", registry).code == 0
    assert run(capsys, *args, "--check").code == 0  # the recorded choices
    r = run(capsys, *args, "--check", "--layout", "split")
    target = root / "kubernetes" / "calico" / "v3.31.3"
    assert r.code == 1 and r.out.startswith("--- ")
    first = r.err.splitlines()[0]
    assert first == (
        f"calico-render: {target}: imported with other choices: layout single (recorded) -> "
        "split (given)"
    )
    # an upstream file that is not the one imported: named with both checksums
    generated = target / "calico.yaml"
    text = generated.read_text(encoding="utf-8")
    sha = re.search(r"# calico.yaml sha256:([0-9a-f]{64})", text)
    assert sha is not None
    generated.write_text(text.replace(sha.group(1), "0" * 64), encoding="utf-8")
    r = run(capsys, *args, "--check")
    assert r.code == 1 and r.out.startswith("--- ")  # the header line differs
    assert r.err.splitlines()[0] == (
        f"calico-render: {src / 'calico.yaml'}: sha256 {sha.group(1)[:12]} differs from "
        "000000000000 recorded at import"
    )


def _source(
    tmp_path: Path,
    tag: str = "v3.31.3",
    names: tuple[str, ...] = ("calico.yaml", "calico-typha.yaml", "calico-vxlan.yaml"),
) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        shutil.copy(UPSTREAM / tag / name, src / name)
    return src


def _tree(root: Path, tag: str) -> dict[str, bytes]:
    d = root / "kubernetes" / "calico" / tag
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_write_check_force_idempotent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, root = _source(tmp_path), tmp_path / "root"
    r = run(capsys, "import", str(src), "--manifests", str(root), "--version", "v3.31.3")
    assert r.code == 0, r.err
    first = _tree(root, "v3.31.3")
    assert sorted(first) == ["000-crds.yaml", "001-typha.yaml", "002-calico.yaml"]
    assert run(capsys, "import", str(src), "--manifests", str(root), "--check").code == 0
    # never overwritten without --force
    r = run(capsys, "import", str(src), "--manifests", str(root))
    assert "--force" in one_error(r, file=root / "kubernetes" / "calico" / "v3.31.3")
    r = run(capsys, "import", str(src), "--manifests", str(root), "--force")
    assert r.code == 0 and _tree(root, "v3.31.3") == first
    assert sorted(os.listdir(root / "kubernetes" / "calico")) == ["v3.31.3"]  # no temporaries


def test_check_shows_hand_edits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file_regression: Any
) -> None:
    src, root = _source(tmp_path), tmp_path / "root"
    assert run(capsys, "import", str(src), "--manifests", str(root), "--layout", "single").code == 0
    target = root / "kubernetes" / "calico" / "v3.31.3"
    path = target / "calico.yaml"
    path.write_text(path.read_text().replace("  replicas: {{ .typhaReplicas }}", "  replicas: 2"))
    (target / "extra.yaml").write_text("kind: ConfigMap\n")
    r = run(capsys, "import", str(src), "--manifests", str(root), "--layout", "single", "--check")
    assert r.code == 1  # the diff: the hand-edited replicas and the extra file
    file_regression.check(r.out.replace(str(tmp_path), "TMP"), extension=".diff")
    # a missing directory differs too
    r = run(capsys, "import", str(src), "--manifests", str(tmp_path / "none"), "--check")
    assert r.code == 1


def test_no_typha_needs_only_calico_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, root = _source(tmp_path, "v3.25.0", ("calico.yaml",)), tmp_path / "root"
    r = run(capsys, "import", str(src), "--manifests", str(root), "--no-typha")
    assert r.code == 0, r.err
    assert sorted(_tree(root, "v3.25.0")) == ["000-crds.yaml", "002-calico.yaml"]


def test_source_without_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "import", str(tmp_path), "--manifests", str(tmp_path))
    assert one_error(r, file=tmp_path / "calico.yaml") == "missing"
    src = _source(tmp_path, names=("calico.yaml",))
    r = run(capsys, "import", str(src), "--manifests", str(tmp_path))
    assert one_error(r, file=src / "calico-typha.yaml").startswith("missing ")
    one_error(
        run(capsys, "import", str(tmp_path / "nope"), "--manifests", str(tmp_path)),
        file=tmp_path / "nope",
    )


def test_bad_input_names_file_line_and_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _source(tmp_path)
    typha = src / "calico-typha.yaml"
    typha.write_text(typha.read_text().replace("calico/typha:v3.31.3", "calico/typha:v3.30.0"))
    r = run(capsys, "import", str(src), "--manifests", str(tmp_path))
    message = one_error(r, file=typha, line=LINE_OF_TYPHA_IMAGE, key="image")
    assert "v3.30.0, v3.31.3" in message  # both tags


def test_unwritable_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _source(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run(capsys, "import", str(src), "--manifests", str(blocker))
    assert f"'{blocker}'" in one_error(r)  # click's usage error quotes the path
    root = tmp_path / "root"
    root.mkdir()
    (root / "kubernetes").write_text("")  # a file where a directory must go
    r = run(capsys, "import", str(src), "--manifests", str(root))
    one_error(r, file=root / "kubernetes")
    assert [p.name for p in root.iterdir()] == ["kubernetes"]


def test_default_registry_needs_slash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _source(tmp_path)
    r = run(capsys, "import", str(src), "--manifests", str(tmp_path), "--default-registry", "hub")
    one_error(r, key="--default-registry")


def test_import_works_on_the_tree_you_stand_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --manifests: the current directory when it holds kubernetes/calico/, else
    the bundled tree (here a checkout's, so a check of it passes)."""
    monkeypatch.chdir(tmp_path)
    r = run(capsys, "import", str(UPSTREAM / "v3.28.2"), "--check")
    assert (
        r.code == 0
        and r.err == f"calico-render: {MANIFESTS}/kubernetes/calico/v3.28.2: as derived\n"
    )
    (tmp_path / "kubernetes" / "calico").mkdir(parents=True)
    r = run(capsys, "import", str(UPSTREAM / "v3.28.2"))
    assert r.code == 0 and sorted(_tree(tmp_path, "v3.28.2")) == [
        "000-crds.yaml",
        "001-typha.yaml",
        "002-calico.yaml",
    ]
