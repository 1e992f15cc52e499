"""The browser tests' artifacts (screenshots, the page, its PDF), listed after the run."""

from __future__ import annotations

import pytest

from tests.chromium import ARTIFACTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if ARTIFACTS:
        terminalreporter.section("HTML report artifacts")
        for path in ARTIFACTS:
            terminalreporter.write_line(str(path))
