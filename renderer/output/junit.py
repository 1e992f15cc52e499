"""The JUnit XML format, for documents that carry test suites (:class:`Suites`).

A document says which suites and cases it holds; this module only spells them the way
CI tools read them: a ``testsuites`` root with totals, one ``testsuite`` per suite with
its own totals and ``properties``, a ``testcase`` per case (names made unique within a
suite, as CI tools key test history on them). Times are the only measured values.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from renderer import output

if TYPE_CHECKING:
    from renderer.finding import Finding


@dataclass(frozen=True)
class TestCase:
    """One testcase: it fails with ``failure`` (the body) and ``message``, or is skipped
    with ``skipped`` (its message), or passes."""

    __test__ = False  # not a pytest class

    classname: str
    name: str
    failure: str | None = None
    message: str = ""
    skipped: str | None = None
    seconds: float = 0.0
    #: Where the case's finding is (the ``file`` and ``line`` attributes CI tools link).
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class TestSuite:
    """One testsuite: its cases in order, ``properties`` as (name, value) pairs."""

    __test__ = False  # not a pytest class

    name: str
    cases: tuple[TestCase, ...]
    properties: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0


class Suites(ABC):
    """A document with a JUnit form: the root's name and its suites."""

    #: The ``name`` of the ``testsuites`` root.
    suites_name: ClassVar[str]

    @abstractmethod
    def testsuites(self) -> list[TestSuite]:
        """The suites, in order."""


def finding_case(classname: str, f: Finding) -> TestCase:
    """A finding as a testcase: failing when it is an error, its body the finding's line
    of text (so a log shows the same ``path:line:column`` as the text report)."""
    at = " ".join(x for x in (str(f.object or ""), f.field) if x)
    name = f"{f.where or '-'} [{f.rule}]" + (f" {at}" if at else "")
    return TestCase(
        classname,
        name,
        str(f) if f.severity == "error" else None,
        message=f.message,
        file=f.file,
        line=f.line,
    )


def finding_suites(
    command: str, files: Sequence[str], findings: Sequence[Finding]
) -> list[TestSuite]:
    """A suite per file (in the order given) with a testcase per finding located in it,
    or one passing case when it has none; findings located nowhere get a suite of
    their own. Failures equal the error findings."""
    by_file: dict[str, list[Finding]] = {name: [] for name in files}
    for f in findings:
        by_file.setdefault(f.file, []).append(f)
    suites = []
    for name, found in by_file.items():
        label = name or "(no file)"
        cases = [finding_case(f"{command}.{label}", f) for f in found] or [
            TestCase(f"{command}.{label}", f"{label} valid", file=name)
        ]
        suites.append(TestSuite(label, tuple(cases)))
    return suites


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
