"""Error types and the exit codes every command shares (0, success, is no error).

Each error carries where it happened (file, line, key) so the CLI can print one short
line and exit with the right code without a traceback.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from types import FrameType

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_REFUSED = 3
EXIT_INTERRUPTED = 130
#: SIGTERM, as a shell reports a process it ended (128 + 15).
EXIT_TERMINATED = 143


def interrupted(signum: int, frame: FrameType | None) -> None:
    """SIGINT handler that leaves at once with one line (exit 130): installed while
    importing and after a first Ctrl-C, when there is nothing to clean up."""
    os.write(2, b"calico-render: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


#: What a remedy names when no argument changes it (a fixed limit).
FIXED = ""

#: How the library names what a remedy points to: an argument of its API (``render_timeout``),
#: a verb (``rules``), or :data:`FIXED`. Anything else is "the <argument> argument".
LIBRARY_NAMES: Mapping[str, str] = {
    FIXED: "not configurable",
    "render_timeout": "set_render_timeout(seconds)",
    "config": "a config",
    "nodes": "a given node count of",
    "rules": "the rule catalogue",
    "ca_file": "the CA file argument",
    "insecure": "the insecure registry argument",
    "kube_version": "the kube_versions argument",
}

_names: dict[str, str] = {}


def name(argument: str) -> str:
    """How a remedy names ``argument``: in the words of the caller that takes it (see
    :func:`naming`), else the library's (:data:`LIBRARY_NAMES`)."""
    return _names.get(argument) or LIBRARY_NAMES.get(argument) or f"the {argument} argument"


def names() -> dict[str, str]:
    """The names in use (to hand to a worker process, see :func:`naming`)."""
    return dict(_names)


def use_names(own: Mapping[str, str]) -> None:
    """From now on, remedies name arguments as ``own`` says (a worker process takes
    the names of the process that started it)."""
    _names.clear()
    _names.update(own)


@contextlib.contextmanager
def naming(own: Mapping[str, str]) -> Iterator[None]:
    """While it lasts, remedies name arguments as ``own`` says (a front end such as the
    command line takes them as flags); the previous names come back afterwards."""
    previous = dict(_names)
    use_names(own)
    try:
        yield
    finally:
        use_names(previous)


def remedy(text: str, argument: str = FIXED) -> str:
    """What to try, ``text`` with ``{}`` where the argument that does it is named."""
    return text.format(name(argument))


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
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        #: The structured remedy: the library argument that was wrong or changes the
        #: outcome (``nodes``, ``render_timeout``), the value it was given, and what to
        #: try (worded by :func:`remedy`; also in ``message``). A caller such as the CLI
        #: names the argument in its own words.
        self.argument = argument
        self.value = value
        self.hint = hint

    def label(self, names: Mapping[str, str] | None = None) -> str | None:
        """The key, its argument (the first word) in ``names``' words when it has one."""
        key = self.key
        if names and key is not None and self.argument in names:
            argument = str(self.argument)
            if key == argument or key.startswith(argument + " "):
                return names[argument] + key[len(argument) :]
        return key

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
