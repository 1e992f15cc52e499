"""The JUnit XML format, for documents that carry test suites (:class:`Suites`).

A document says which suites and cases it holds; this module only spells them the way
CI tools read them: a ``testsuites`` root with totals, one ``testsuite`` per suite with
its own totals and ``properties``, a ``testcase`` per case (names made unique within a
suite, as CI tools key test history on them). Times are the only measured values.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from renderer import output
from renderer.output.suites import Suites, TestCase, TestSuite


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _add_case(parent: ET.Element, case: TestCase) -> None:
    taken = {c.get("name") for c in parent.findall("testcase")}
    unique, n = case.name, 1
    while unique in taken:
        n += 1
        unique = f"{case.name} #{n}"
    el = ET.SubElement(
        parent, "testcase", classname=case.classname, name=unique, time=_seconds(case.seconds)
    )
    if case.file:
        el.set("file", case.file)
        if case.line:
            el.set("line", str(case.line))
    if case.failure is not None:
        failure = ET.SubElement(el, "failure", message=case.message or "failed", type="failure")
        failure.text = case.failure
    elif case.skipped is not None:
        ET.SubElement(el, "skipped", message=case.skipped)


def _set_totals(el: ET.Element, tests: int, failures: int, skipped: int, seconds: float) -> None:
    for key, value in (("tests", tests), ("failures", failures), ("errors", 0)):
        el.set(key, str(value))
    el.set("skipped", str(skipped))
    el.set("time", _seconds(seconds))


def _add_suite(root: ET.Element, suite: TestSuite) -> tuple[int, int, int]:
    """Write ``suite`` under ``root``; returns its (tests, failures, skipped)."""
    el = ET.SubElement(root, "testsuite", name=suite.name)
    if suite.properties:
        props = ET.SubElement(el, "properties")
        for name, value in suite.properties:
            ET.SubElement(props, "property", name=name, value=value)
    for case in suite.cases:
        _add_case(el, case)
    counts = (
        len(suite.cases),
        sum(1 for c in suite.cases if c.failure is not None),
        sum(1 for c in suite.cases if c.failure is None and c.skipped is not None),
    )
    _set_totals(el, *counts, suite.seconds)
    return counts


def dumps(name: str, suites: list[TestSuite]) -> str:
    """``suites`` as a JUnit XML document (declaration first, one trailing newline)."""
    root = ET.Element("testsuites", name=name)
    totals = [0, 0, 0]
    for suite in suites:
        totals = [a + b for a, b in zip(totals, _add_suite(root, suite), strict=True)]
    tests, failures, skipped = totals
    _set_totals(root, tests, failures, skipped, sum(s.seconds for s in suites))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


class JUnitFormat:
    name = "junit"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, output.Document) and issubclass(kind, Suites)

    def render(self, document: output.Document) -> str:
        if not isinstance(document, Suites):
            raise ValueError(f"{type(document).__name__} carries no test suites")
        return dumps(document.suites_name, document.testsuites())


output.register(JUnitFormat())
