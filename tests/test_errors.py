"""The error types: which exit code each carries and the one line the CLI prints."""

from __future__ import annotations

import pytest

from renderer.errors import (
    EXIT_BAD_INPUT,
    EXIT_CHECK_FAILED,
    EXIT_REFUSED,
    CalicoRenderError,
    InputError,
    RefusedError,
    TemplateError,
)


def test_exit_codes_are_distinct_and_carried_by_each_error() -> None:
    assert len({EXIT_CHECK_FAILED, EXIT_BAD_INPUT, EXIT_REFUSED, 0}) == 4
    assert InputError("x").exit_code == TemplateError("x").exit_code == EXIT_BAD_INPUT
    assert RefusedError("x").exit_code == EXIT_REFUSED
    assert issubclass(RefusedError, CalicoRenderError)


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ({"file": "a.yaml", "line": 3, "column": 7, "key": "spec.x"}, "a.yaml:3:7: spec.x: bad"),
        ({"file": "a.yaml", "line": 3}, "a.yaml:3: bad"),
        ({"file": "a.yaml", "column": 7}, "a.yaml: bad"),  # a column needs its line
        ({"line": 3, "key": "k"}, "k: bad"),  # a line needs its file
        ({"key": "--nodes"}, "--nodes: bad"),
        ({}, "bad"),
    ],
)
def test_the_line_holds_whatever_location_is_known(where: dict[str, object], line: str) -> None:
    err = InputError("bad", **where)  # type: ignore[arg-type]
    assert str(err) == line
    assert (err.message, err.file, err.line, err.key) == (
        "bad",
        where.get("file"),
        where.get("line"),
        where.get("key"),
    )
