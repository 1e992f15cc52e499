"""files: the manifest files a list of paths names, directories walked as kubeconform walks them."""

from __future__ import annotations

import os
from pathlib import Path

from renderer.k8s.files import MANIFEST_SUFFIXES, kinds, manifest_files


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")


def test_a_directory_is_walked_recursively_in_sorted_order_keeping_manifests(
    tmp_path: Path,
) -> None:
    _touch(
        tmp_path,
        "b.yaml",
        "a.json",
        "c.yml",
        "notes.txt",
        "README",
        "z/inner.yaml",
        "m/deeper/x.yml",
        "m/a.yaml",
    )
    got = [os.path.relpath(p, tmp_path) for p in manifest_files([str(tmp_path)])]
    assert got == ["a.json", "b.yaml", "c.yml", "m/a.yaml", "m/deeper/x.yml", "z/inner.yaml"]
    assert MANIFEST_SUFFIXES == (".yaml", ".yml", ".json")


def test_hidden_files_and_directories_are_skipped(tmp_path: Path) -> None:
    _touch(tmp_path, ".hidden.yaml", ".git/config.yaml", "d/.x.yml", "d/kept.yaml")
    got = [os.path.relpath(p, tmp_path) for p in manifest_files([str(tmp_path)])]
    assert got == ["d/kept.yaml"]


def test_links_to_directories_are_not_followed(tmp_path: Path) -> None:
    _touch(tmp_path, "real/a.yaml")
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    assert manifest_files([str(tmp_path / "top")]) == []


def test_files_and_stdin_are_kept_as_given_in_argument_order(tmp_path: Path) -> None:
    _touch(tmp_path, "d/one.yaml")
    named = str(tmp_path / "any.txt")  # a file is taken whatever its name (and even if absent)
    got = manifest_files([named, "-", str(tmp_path / "d")])
    assert got == [named, "-", str(tmp_path / "d" / "one.yaml")]


def test_skip_kinds_split_on_commas_across_flags() -> None:
    assert kinds(["A,B", " C ", ",,", "A"]) == {"A", "B", "C"}
    assert kinds([]) == set()
