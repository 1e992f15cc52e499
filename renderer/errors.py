"""Error types and the exit codes every command shares (0, success, is no error).

Each error carries where it happened (file, line, key) so the CLI can print one short
line and exit with the right code without a traceback.
"""

from __future__ import annotations

import os
from types import FrameType

EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_REFUSED = 3
EXIT_INTERRUPTED = 130


def interrupted(signum: int, frame: FrameType | None) -> None:
    """SIGINT handler that leaves at once with one line (exit 130): installed while
    importing and after a first Ctrl-C, when there is nothing to clean up."""
    os.write(2, b"calico-render: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


class CalicoRenderError(Exception):
    """Base class: a user-facing failure with a location and an exit code."""

    exit_code = EXIT_BAD_INPUT

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
        argument: str | None = None,
        value: object = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        #: The library argument that was wrong (``nodes``), and the value it was given:
        #: a caller (the CLI) names the argument in its own words.
        self.argument = argument
        self.value = value

    def location(self) -> str:
        """`file:line:column` with whatever parts are known."""
        parts: list[str] = []
        if self.file:
            parts.append(self.file)
            if self.line is not None:
                parts.append(str(self.line))
                if self.column is not None:
                    parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.location()
        key = f"{self.key}: " if self.key else ""
        return f"{where}: {key}{self.message}" if where else f"{key}{self.message}"


class InputError(CalicoRenderError):
    """Bad input: a file, flag or value the user supplied (exit 2)."""


class TemplateError(CalicoRenderError):
    """A template failed to parse or execute (exit 2): names file:line:column."""


class RefusedError(CalicoRenderError):
    """The Typha capability policy refused the request (exit 3)."""

    exit_code = EXIT_REFUSED
