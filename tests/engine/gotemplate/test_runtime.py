"""The functions and value rules templates run with: Go's truth and comparisons, and
the functions BKE's controller adds (split, indent, int, version compares, ...)."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.engine.gotemplate import runtime
from renderer.engine.gotemplate.runtime import FuncError


@pytest.mark.parametrize(
    ("value", "truth"),
    [(None, False), (0, False), (0.0, False), ("", False), ([], False), ({}, False),
     (False, False), ("false", True), (1, True), ([0], True), ({"a": None}, True)],
)  # fmt: skip
def test_truth_is_gos(value: Any, truth: bool) -> None:
    assert runtime.is_true(value) is truth
    assert runtime.fn_not(value) is not truth


def test_eq_takes_any_of_several_and_lt_refuses_mixed_types() -> None:
    assert runtime.fn_eq("b", "a", "b") and not runtime.fn_eq("c", "a", "b")
    assert runtime.fn_lt(1, 2) and runtime.fn_lt("a", "b")
    with pytest.raises(FuncError):
        runtime.fn_lt(1, "2")


@pytest.mark.parametrize(
    ("a", "b", "greater"),
    [("v3.28.2", "v3.28.1", True), ("v3.28", "v3.28.0", False), ("3.30.0-rc1", "v3.29.9", True),
     ("junk", "v0.0.1", False)],
)  # fmt: skip
def test_version_compares_are_tolerant_semver(a: str, b: str, greater: bool) -> None:
    assert runtime.fn_vgt(a, b) is greater
    assert runtime.fn_vlte(a, b) is not greater


def test_bke_string_functions() -> None:
    assert runtime.fn_split("a,b", ",") == ["a", "b"]
    assert runtime.fn_string_to_slice_string("a,b", ",") == '["a","b"]'
    assert runtime.fn_string_to_slice_string("", ",") == "[]"
    assert runtime.fn_indent("a\nb", "  ") == "a\n  b"
    assert (runtime.fn_int("42"), runtime.fn_int("4x"), runtime.fn_int("")) == (42, 0, 0)
    assert runtime.fn_b64encode("calico") == "Y2FsaWNv"
    assert (runtime.fn_default_false("true"), runtime.fn_default_false("yes")) == (
        "true",
        "false",
    )


def test_len_and_index_of_plain_values() -> None:
    assert runtime.fn_len([1, 2, 3]) == 3 and runtime.fn_len("héllo") == 6  # bytes, as Go
    assert runtime.fn_index({"k": "v"}, "k") == "v"
    assert runtime.fn_index([4, 5], 1) == 5
