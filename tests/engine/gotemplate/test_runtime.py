"""The functions and value rules templates run with: Go's truth and comparisons, and
the functions BKE's controller adds (split, indent, int, version compares, ...)."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
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


#: Every ordered pair of 49 tricky version strings with each function's result, computed
#: by the controller's library (blang/semver v4.0.0 ParseTolerant, Go 1.19); a copy of
#: ../shared/controller-semver/cases.json.
SEMVER_CASES = json.loads(
    (Path(__file__).parent / "controller_semver_cases.json").read_text(encoding="utf-8")
)
VERSION_FUNCS = ("vgt", "vlt", "veq", "vgte", "vlte", "vne")


def test_version_functions_match_the_controllers_library_on_every_pair() -> None:
    pairs = SEMVER_CASES["pairs"]
    assert len(pairs) == len(SEMVER_CASES["versions"]) ** 2 == 2304
    wrong = [
        (p["a"], p["b"], name)
        for p in pairs
        for name in VERSION_FUNCS
        if getattr(runtime, f"fn_{name}")(p["a"], p["b"]) is not p[name]
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("a", "b", "relation"),
    [("v1.34.3-of.1", "v1.34.3", "<"), (" 1.2", "1.2.0", "="), ("1.2-rc", "0.0.0", "="),
     ("v3.27.3-rc.2", "v3.27.3-rc.10", "<"), ("1.2.3-beta", "1.2.3-1", ">"),
     ("v3.27.3+build.5", "v3.27.3", "="), ("V1.2.0", "0.0.0", "="), ("01.02.03", "1.2.3", "="),
     ("18446744073709551615", "18446744073709551616", ">"), ("1.2.3-a.b", "1.2.3-a", ">"),
     ("\u20281.2\u3000", "1.2.0", "="), ("\x1c1.2", "0.0.0", "=")],
)  # fmt: skip
def test_version_ordering_is_strict_semver_after_tolerant_reading(
    a: str, b: str, relation: str
) -> None:
    cmp = runtime.compare_versions(runtime.parse_version(a), runtime.parse_version(b))
    assert "<=>"[cmp + 1] == relation


def _version_pool() -> list[str]:
    """The data's strings and random near-versions built from semver's pieces."""
    rng = random.Random(19)
    pieces = ["0", "1", "2", "10", "01", "v", ".", "-", "+", "rc", "a", "1a", " ", "x"]
    pool = list(SEMVER_CASES["versions"])
    for _ in range(250):
        pool.append("".join(rng.choice(pieces) for _ in range(rng.randint(1, 9))))
    for _ in range(150):
        core = ".".join(str(rng.randint(0, 3)) for _ in range(rng.randint(1, 3)))
        pre = ".".join(rng.choice(["rc", "1", "0", "2", "a-b", "beta"]) for _ in range(3))
        pool.append(rng.choice(["", "v"]) + core + rng.choice(["", f"-{pre}", f"+{pre}"]))
    return pool


@pytest.mark.slow
def test_version_functions_are_one_total_order() -> None:
    """Each function is a view of one comparison: exactly one of <, =, > holds, the six
    agree with it, it is antisymmetric, and it is transitive (as sorting relies on)."""
    pool = _version_pool()
    for a in pool:
        for b in pool[::12]:
            gt, lt, eq = runtime.fn_vgt(a, b), runtime.fn_vlt(a, b), runtime.fn_veq(a, b)
            assert gt + lt + eq == 1, (a, b)
            assert runtime.fn_vgte(a, b) is (gt or eq) and runtime.fn_vlte(a, b) is (lt or eq)
            assert runtime.fn_vne(a, b) is not eq
            assert runtime.fn_vlt(b, a) is gt and runtime.fn_veq(b, a) is eq
    parsed = [runtime.parse_version(v) for v in pool]
    ordered = sorted(parsed, key=functools.cmp_to_key(runtime.compare_versions))
    for i, first in enumerate(ordered):
        for later in ordered[i + 1 :]:
            assert runtime.compare_versions(first, later) <= 0, (first, later)


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
