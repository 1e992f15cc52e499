"""libyaml: the loaders this package reads YAML with, as it configures them."""

from __future__ import annotations

import io

import pytest

from renderer.k8s.libyaml import (
    C_LOADER,
    LAST_WINS,
    SAFE,
    MarkedYAMLError,
    position_loader,
    safe_loader,
)


def test_c_loader_is_used() -> None:
    assert C_LOADER


@pytest.mark.parametrize(
    "text", ["a: yes\nb: 010\nc: 0o17\nd: on\n", "%YAML 1.1\n---\na: yes\nb: 010\nc: 0o17\nd: on\n"]
)
def test_the_safe_loader_resolves_as_yaml_1_2_whatever_the_directive(text: str) -> None:
    assert SAFE.load(text) == {"a": "yes", "b": 10, "c": 15, "d": "on"}


def test_values_files_keep_the_last_of_equal_keys_where_the_safe_loader_refuses() -> None:
    text = "a: 1\nb: 2\na: 3\n"
    loaded = LAST_WINS.load(text)
    assert loaded == {"a": 3, "b": 2}
    assert list(loaded) == ["a", "b"]
    with pytest.raises(MarkedYAMLError) as info:
        SAFE.load(text)
    assert info.value.problem_mark is not None
    assert info.value.problem_mark.line == 2  # zero-based: the second "a"


def test_the_position_loader_records_lines_and_columns() -> None:
    doc = position_loader().load("a:\n  b: 1\n  c: [1]\n")
    assert doc == {"a": {"b": 1, "c": [1]}}
    assert doc["a"].lc.key("c") == (2, 2)
    assert doc["a"].lc.value("c") == (2, 5)


def test_safe_loaders_are_ruamel_s_own_loader_made_once() -> None:
    first, second = safe_loader("a: 1\n"), safe_loader("b: [2]\n")
    assert first[0] is first[1] and first[0] is not second[0]
    ruamel_s = SAFE.get_constructor_parser(io.StringIO("a: 1\n"))[0]
    assert type(second[0]).__mro__[1:] == type(ruamel_s).__mro__[1:]
    assert type(first[0]) is type(second[0])  # the class is not made again
    assert first[0].get_single_data() == {"a": 1}
    assert second[0].get_single_data() == {"b": [2]}
