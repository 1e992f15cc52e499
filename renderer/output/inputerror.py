"""The report a command writes to ``--output`` when its run ends in bad input (exit 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from renderer.finding import Finding
from renderer.output import Findings, SortedDocument
from renderer.output.findings import findings_list, report_header, severity_counts
from renderer.output.suites import Suites, TestSuite, finding_suites

INPUT_ERROR = "input-error.schema.json"


@dataclass(frozen=True)
class InputErrorDocument(SortedDocument, Suites, Findings):
    """The report a command writes to ``--output`` when its run ends in exit 2: one
    error finding of stage ``input`` saying what was wrong, in the requested format, so
    a CI step that keeps the report always has one to show."""

    schema = INPUT_ERROR

    command: str
    finding: Finding
    #: SARIF says the run did not complete.
    failed_run = True

    @property
    def suites_name(self) -> str:  # type: ignore[override]
        return f"calico-render {self.command}"

    def data(self) -> dict[str, Any]:
        return {
            **report_header(self.command),
            "passed": False,
            "summary": severity_counts([self.finding]),
            "findings": findings_list([self.finding]),
        }

    def text(self) -> str:
        return f"{self.finding}\n"

    def annotations(self) -> list[Finding]:
        return [self.finding]

    def testsuites(self) -> list[TestSuite]:
        return finding_suites(self.command, (), [self.finding])
