"""What documents keep for stderr, and which plans have nothing to change."""

from __future__ import annotations

import pytest

from renderer import api
from renderer.output.documents import (
    TyphaDocument,
    ValidateDocument,
    VersionsDocument,
    nothing_to_change,
)
from tests.output.cases import DOCUMENTS


def test_versions_warn_about_errors_and_non_legacy_verdicts_only() -> None:
    doc = DOCUMENTS["versions"]()
    assert isinstance(doc, VersionsDocument)
    assert doc.warnings == ["v9.9.9: bad.yaml:3: unexpected “}”"]
    legacy = doc.entries[1]
    broken = VersionsDocument(doc.manifests, [{**legacy, "legacy": False}])
    assert broken.warnings == ["v3.27.3: no Typha templates"]


@pytest.mark.parametrize(("nodes", "warned"), [(None, False), (3, False), (4001, True)])
def test_typha_warnings_are_the_one_decisions(nodes: int | None, warned: bool) -> None:
    assert bool(TyphaDocument.of(api.typha(nodes)).warnings) is warned


@pytest.mark.parametrize(
    ("change", "same", "expected"),
    [("reconfigure", True, True), ("reconfigure", False, False), ("scale", True, False)],
)
def test_nothing_to_change(change: str, same: bool, expected: bool) -> None:
    side = {"version": "v3.28.2", "nodes": 3}
    other = side if same else {**side, "nodes": 4}
    assert nothing_to_change({"change": change, "from": side, "to": other}) is expected


def test_validate_counts_errors_for_its_summary_line() -> None:
    doc = DOCUMENTS["validate"]()
    assert isinstance(doc, ValidateDocument)
    # one finding per problem in every format, whatever the Kubernetes versions
    assert (doc.errors, doc.data()["errors"], len(doc.text().splitlines())) == (1, 1, 1)
    assert doc.data()["resources"] == {"valid": 0, "invalid": 1, "skipped": 0, "not_checked": 0}
    assert doc.summary().startswith("Summary: 1 resource(s) found in 1 file(s)")
