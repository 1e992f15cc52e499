"""The bundled goldens, kept with pytest-regressions.

Each bundled version's scenarios are rendered and every golden file is checked with
``file_regression`` against ``golden/<version>/`` itself, so a change to a bundled
manifest fails here until the goldens are regenerated (``calico-render check
--update-golden``, or ``pytest --force-regen`` which writes the same files).
"""

from __future__ import annotations

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from renderer.checks import golden as compare
from renderer.checks.pipeline import VersionRun
from renderer.data.bundled import bundled_golden
from renderer.manifests.tree import list_versions, resolve_version

VERSIONS = [v.name for v in list_versions()]


@pytest.mark.parametrize("name", VERSIONS)
def test_bundled_goldens_match_the_renders(
    name: str, file_regression: FileRegressionFixture
) -> None:
    version = resolve_version(name)
    renders = VersionRun(version).scenarios  # what the gate's stages render
    expected = compare.golden_files(
        [compare.ScenarioOutput(r.scenario.name, r.decision, tuple(r.files)) for r in renders]
    )
    directory = bundled_golden() / version.name
    on_disk = compare.load_golden(directory) or {}
    for path, text in expected.items():
        file_regression.check(text, fullpath=directory / path, encoding="utf-8", newline="")
    assert sorted(on_disk) == sorted(expected), "stale or missing golden files"
    assert on_disk == expected, "goldens differ byte for byte (line endings, final newline)"


def test_every_bundled_version_has_goldens_and_no_others() -> None:
    golden = {p.name for p in bundled_golden().iterdir() if p.is_dir()}
    assert golden == set(VERSIONS)
