"""importsource: what ``import`` reads and compares besides the derivation."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.calico import importer
from renderer.calico.importsource import (
    check_default_registry,
    differences,
    read_upstream,
    read_version_dir,
    recorded,
)
from renderer.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = REPO_ROOT / "upstream" / "calico"
MANIFESTS = REPO_ROOT / "manifests"


@pytest.mark.parametrize("prefix", ["hub.oepkgs.net/openfuyao/", "reg.example.com:5000/a/b/"])
def test_a_registry_prefix_is_accepted(prefix: str) -> None:
    check_default_registry(prefix)


@pytest.mark.parametrize("prefix", ["hub", "hub.example.com/x", 'hub"x/', "hub x/", "hub\x00/"])
def test_anything_else_is_refused_under_the_default_registry_key(prefix: str) -> None:
    with pytest.raises(InputError) as info:
        check_default_registry(prefix)
    assert info.value.key == "default registry"


def _upstream(tmp_path: Path, *names: str) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        (src / name).write_text(f"# {name}\n")
    return src


def test_upstream_files_typha_only_when_asked_vxlan_when_present(tmp_path: Path) -> None:
    src = _upstream(tmp_path, "calico.yaml", "calico-typha.yaml", "other.yaml")
    assert read_upstream(src, typha=True) == {
        "calico.yaml": "# calico.yaml\n",
        "calico-typha.yaml": "# calico-typha.yaml\n",
    }
    assert list(read_upstream(src, typha=False)) == ["calico.yaml"]
    (src / "calico-vxlan.yaml").write_text("v\n")
    assert list(read_upstream(src, typha=False)) == ["calico.yaml", "calico-vxlan.yaml"]


def test_a_missing_upstream_file_or_directory_is_named(tmp_path: Path) -> None:
    src = _upstream(tmp_path, "calico.yaml")
    with pytest.raises(InputError) as info:
        read_upstream(src, typha=True)
    assert info.value.file == str(src / "calico-typha.yaml")
    with pytest.raises(InputError) as info:
        read_upstream(src / "calico.yaml", typha=False)
    assert info.value.file == str(src / "calico.yaml")


def test_a_version_directory_is_its_regular_files_and_nothing_when_absent(tmp_path: Path) -> None:
    root = tmp_path / "root"
    directory = root / "kubernetes" / "calico" / "v1.0.0"
    (directory / "sub").mkdir(parents=True)
    (directory / "b.yaml").write_text("b\n")
    (directory / "a.txt").write_text("a\n")
    (directory / "sub" / "c.yaml").write_text("c\n")
    assert read_version_dir(directory, root) == {"a.txt": "a\n", "b.yaml": "b\n"}
    assert read_version_dir(root / "kubernetes" / "calico" / "v2.0.0", root) == {}


def test_a_version_directory_may_not_lead_outside_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "root"
    directory = root / "v1.0.0"
    directory.mkdir(parents=True)
    (tmp_path / "secret.yaml").write_text("s\n")
    (directory / "x.yaml").symlink_to(tmp_path / "secret.yaml")
    with pytest.raises(InputError):
        read_version_dir(directory, root)


def test_the_bundled_directory_records_its_choices_and_the_sources_it_came_from() -> None:
    src = UPSTREAM / "v3.28.2"
    record = recorded(src, MANIFESTS, importer.Options())
    assert record.options == importer.Options()
    texts = read_upstream(src, typha=True)
    assert dict(record.sources) == {n: importer.Source(n, t).sha256 for n, t in texts.items()}


def test_differences_one_line_per_changed_choice_and_per_changed_or_unread_source() -> None:
    sha = importer.Source("calico.yaml", "same\n").sha256
    record = importer.Recorded(
        importer.Options(),
        {"calico.yaml": sha, "calico-typha.yaml": "a" * 64, "calico-vxlan.yaml": "b" * 64},
    )
    texts = {"calico.yaml": "same\n", "calico-vxlan.yaml": "changed\n"}
    source, target = Path("src"), Path("root/v1")
    lines = differences(record, importer.Options(layout="single"), texts, source, target)
    assert [line.split(": ", 1)[0] for line in lines] == [
        "root/v1",
        "src/calico-typha.yaml",
        "src/calico-vxlan.yaml",
    ]
    assert "a" * 12 in lines[1] and "b" * 12 in lines[2]
    assert importer.Source("v", "changed\n").sha256[:12] in lines[2]
    same = importer.Recorded(importer.Options(layout="single"), {"calico.yaml": sha})
    assert differences(same, importer.Options(layout="single"), texts, source, target) == ()
    unrecorded = importer.Recorded(None, {"calico.yaml": sha})  # no choices recorded
    assert differences(unrecorded, importer.Options(layout="single"), texts, source, target) == ()
