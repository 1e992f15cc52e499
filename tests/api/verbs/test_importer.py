"""The import verb: a version directory derived from upstream's release manifests."""

from __future__ import annotations

from pathlib import Path

from renderer import api
from renderer.data.bundled import bundled_manifests

UPSTREAM = Path(__file__).resolve().parents[3] / "upstream" / "calico"


def test_a_bundled_version_is_what_its_upstream_release_derives() -> None:
    checked = api.import_version(
        UPSTREAM / "v3.28.2", root=bundled_manifests(), check=True, given=()
    )
    assert checked.diff == "" and checked.differences == ()
    assert "000-crds.yaml" in checked.files


def test_an_import_writes_the_version_directory(tmp_path: Path) -> None:
    done = api.import_version(UPSTREAM / "v3.28.2", root=tmp_path)
    assert done.target == tmp_path / "kubernetes" / "calico" / "v3.28.2"
    assert sorted(p.name for p in done.target.iterdir()) == sorted(done.files)
