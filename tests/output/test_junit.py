"""The JUnit format: every document with test suites, whole (times zeroed), and the
suites-to-XML rules (unique names, totals, properties) on hand-made suites."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from renderer import output
from renderer.output.junit import dumps
from renderer.output.suites import Suites, TestCase, TestSuite
from tests.output.cases import DOCUMENTS

WITH_SUITES = [n for n, case in DOCUMENTS.items() if "junit" in output.names(case.kind)]
WITHOUT = [n for n in DOCUMENTS if n not in WITH_SUITES]


def zero_times(xml: str) -> str:
    return re.sub(r'time="[0-9]+\.[0-9]{3}"', 'time="0.000"', xml)


@pytest.mark.parametrize("name", WITH_SUITES)
def test_junit(name: str, file_regression: FileRegressionFixture) -> None:
    document = DOCUMENTS[name]()
    assert isinstance(document, Suites)
    xml = output.render("junit", document)
    assert xml.startswith("<?xml version='1.0' encoding='utf-8'?>\n") and xml.endswith(">\n")
    root = ET.fromstring(xml)
    assert root.get("name") == document.suites_name
    assert [s.get("name") for s in root.iter("testsuite")] == [
        s.name for s in document.testsuites()
    ]
    file_regression.check(zero_times(xml), basename=f"junit-{name}", extension=".xml")


@pytest.mark.parametrize("name", WITHOUT)
def test_documents_without_suites_have_no_junit_form(name: str) -> None:
    document = DOCUMENTS[name]()
    assert "junit" not in output.names(type(document))
    with pytest.raises(ValueError, match="cannot render"):
        output.render("junit", document)


PASS = TestCase("c", "a")
FAIL = TestCase("c", "b", failure="body", message="why")
SKIP = TestCase("c", "s", skipped="not run")


@pytest.mark.parametrize(
    ("suites", "expected"),
    [
        ([], {"totals": ("0", "0", "0", "0.000"), "names": []}),
        (
            [TestSuite("one", (PASS, FAIL, SKIP), seconds=1.25)],
            {"totals": ("3", "1", "1", "1.250"), "names": [["a", "b", "s"]]},
        ),
        (
            [TestSuite("dup", (PASS, PASS, PASS)), TestSuite("other", (PASS,), seconds=0.5)],
            {"totals": ("4", "0", "0", "0.500"), "names": [["a", "a #2", "a #3"], ["a"]]},
        ),
    ],
    ids=["empty", "fail-and-skip", "unique-names"],
)
def test_suites_totals_and_unique_names(
    suites: list[TestSuite], expected: dict[str, object]
) -> None:
    root = ET.fromstring(dumps("root", suites))
    totals = tuple(root.get(k) for k in ("tests", "failures", "skipped", "time"))
    assert (root.get("errors"), totals) == ("0", expected["totals"])
    names = [[c.get("name") for c in s.iter("testcase")] for s in root.iter("testsuite")]
    assert names == expected["names"]


def test_case_failure_skip_and_properties() -> None:
    suite = TestSuite("s", (FAIL, SKIP, TestCase("c", "f", failure="")), (("k", "v"),))
    (el,) = ET.fromstring(dumps("root", [suite])).iter("testsuite")
    assert [(p.get("name"), p.get("value")) for p in el.iter("property")] == [("k", "v")]
    failed, skipped, bare = el.findall("testcase")
    failure = failed.find("failure")
    assert failure is not None
    assert (failure.get("message"), failure.get("type"), failure.text) == ("why", "failure", "body")
    assert skipped.find("skipped") is not None and skipped.find("failure") is None
    bare_failure = bare.find("failure")
    assert bare_failure is not None and bare_failure.get("message") == "failed"
