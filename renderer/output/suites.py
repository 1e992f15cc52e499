"""Test suites, the shape a document gives its JUnit form (:class:`Suites`): cases that
fail, are skipped or pass, grouped in suites with properties. The XML is
:mod:`renderer.output.junit`'s; documents only say what their suites are.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

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
