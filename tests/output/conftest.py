"""The browser tests' artifacts (screenshots, the page, its PDF), listed after the run.

Each test records its artifacts as a ``record_property("artifact", path)``, which
pytest-xdist carries from its workers, so the list is whole however the run was split.
"""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    paths = [
        str(value)
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for key, value in getattr(report, "user_properties", ())
        if key == "artifact"
    ]
    if paths:
        terminalreporter.section("HTML report artifacts")
        for path in dict.fromkeys(paths):
            terminalreporter.write_line(path)
