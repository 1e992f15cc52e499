"""Where the bundled data is found: the tree, goldens and schemas every command defaults to."""

from __future__ import annotations

import json

import pytest

from renderer.data.bundled import (
    EXAMPLE_CLUSTER,
    bundled_example,
    bundled_golden,
    bundled_manifests,
    data_dir,
    schema_path,
)


def test_a_checkout_finds_manifests_goldens_and_schemas() -> None:
    assert (bundled_manifests() / "kubernetes" / "calico").is_dir()
    assert bundled_golden().is_dir()
    assert data_dir("schemas").is_dir()


def test_every_published_schema_is_found_by_name() -> None:
    for name in ("check-report.schema.json", "render-context.schema.json"):
        path = schema_path(name)
        assert path.parent == data_dir("schemas")
        assert "$schema" in json.loads(path.read_text(encoding="utf-8"))


def test_a_missing_data_directory_is_an_error_not_a_guess() -> None:
    with pytest.raises(FileNotFoundError):
        data_dir("no-such-data")


def test_the_example_cluster_is_installer_services_create_request() -> None:
    """The cluster an addon renders with by default: BKENodes, then the BKECluster."""
    text = bundled_example().read_text(encoding="utf-8")
    assert bundled_example().name == EXAMPLE_CLUSTER
    assert text.count("kind: BKENode\n") == 3 and text.rstrip().endswith("ready: false")
