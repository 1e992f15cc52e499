"""``images --check-registry`` as a document: the JSON installer-service reads, the text
rows, and a JUnit case per image and platform (failing only where the registry lacks it)."""

from __future__ import annotations

import json

from renderer import output
from renderer.checks.registry import ImageResult, ImageUse, RegistryReport
from renderer.data import schemas
from renderer.output.images import RegistryDocument, image_dict
from tests.output.cases import DOCUMENTS

BOTH = ("linux/amd64", "linux/arm64")
DIGEST = "sha256:" + "d" * 64


def _document() -> RegistryDocument:
    """cni served on both platforms, node without arm64, typha's tag missing, a stale
    lock entry (see tests/output/cases.py)."""
    document = DOCUMENTS["images-registry"]()
    assert isinstance(document, RegistryDocument)
    return document


def test_json_reports_each_image_the_verdict_and_the_counts() -> None:
    data = json.loads(output.render("json", _document()))
    schemas.validate_output("images-registry.schema.json", data)
    assert (data["version"], data["registry"], data["passed"]) == ("v3.28.2", "r.io", False)
    assert data["summary"] == {"images": 3, "errors": 2, "warnings": 1}
    by = {i["image"]: i for i in data["images"]}
    assert [p["digest"] is None for p in by["calico/node:v3.28.2"]["platforms"]] == [False, True]
    assert (by["calico/typha:v3.28.2"]["missing"], by["calico/typha:v3.28.2"]["manifest"]) == (
        "tag",
        None,
    )
    assert [f["rule"] for f in data["findings"]] == [
        "registry-platform-missing",
        "registry-tag-missing",
        "registry-lock-stale",
    ]


def test_unset_values_of_an_image_are_null() -> None:
    use = ImageUse("calico/cni:v3.28.2", "", 0, "", "")
    result = ImageResult("calico/cni:v3.28.2", "r.io/calico/cni:v3.28.2", (use,), ())
    got = image_dict(result)
    assert (got["missing"], got["manifest"], got["platforms"]) == (None, None, [])
    assert got["uses"] == [
        {"file": None, "line": None, "object": None, "field": None, "scenarios": []}
    ]


def test_junit_has_a_case_per_image_and_platform_failing_only_where_it_is_missing() -> None:
    [suite] = _document().testsuites()
    assert dict(suite.properties) == {"version": "v3.28.2", "platforms": ",".join(BOTH)}
    cases = {(c.classname, c.name): c for c in suite.cases}
    failing = {key for key, c in cases.items() if c.failure is not None}
    assert failing == {
        ("registry", "r.io/calico/node:v3.28.2 linux/arm64"),
        ("registry", "r.io/calico/typha:v3.28.2 linux/amd64"),
        ("registry", "r.io/calico/typha:v3.28.2 linux/arm64"),
    }
    assert cases["registry", "r.io/calico/cni:v3.28.2 linux/amd64"].failure is None
    skipped = [key for key, c in cases.items() if c.skipped is not None]
    assert skipped == [("calico/gone:v3.28.2", "linux/amd64")]  # the stale lock entry
    assert len(cases) == 3 * len(BOTH) + 1


def test_text_marks_each_missing_image_and_ends_with_the_verdict() -> None:
    lines = _document().text().splitlines()
    rows = [line.split()[:2] for line in lines[:3]]
    assert rows == [
        ["ok", "r.io/calico/cni:v3.28.2"],
        ["MISSING", "r.io/calico/node:v3.28.2"],
        ["MISSING", "r.io/calico/typha:v3.28.2"],
    ]
    assert lines[-1].startswith("FAIL: ")


def test_a_clean_report_passes_in_every_form() -> None:
    use = ImageUse("calico/cni:v3.28.2", "v3.28.2/002-calico.yaml", 520, "DaemonSet x/y", "f")
    image = ImageResult(use.image, "r.io/calico/cni:v3.28.2", (use,), ((BOTH[0], DIGEST),))
    document = RegistryDocument(RegistryReport("v3.28.2", "r.io", BOTH[:1], (image,), ()))
    data = document.data()
    assert data["passed"] is True and data["summary"] == {"images": 1, "errors": 0, "warnings": 0}
    [suite] = document.testsuites()
    assert [(c.name, c.failure, c.skipped) for c in suite.cases] == [
        ("r.io/calico/cni:v3.28.2 linux/amd64", None, None)
    ]
    assert document.text().splitlines()[-1].startswith("PASS: ")
    assert document.annotations() == []
