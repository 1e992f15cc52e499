"""Our JSON Schemas at run time: a bad value is refused naming its key, in YAML's words."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.data import schemas
from renderer.data.schemas import RENDER_CONTEXT, check_context, unsafe_text
from renderer.errors import InputError


def test_python_words_are_spelled_as_yaml_outside_quotes() -> None:
    assert schemas.yaml_spelling("None is not 'None'") == "null is not 'None'"
    assert schemas.yaml_spelling('True or "False"') == 'true or "False"'
    assert (schemas.yaml_repr(None), schemas.yaml_repr(False), schemas.yaml_repr("x")) == (
        "null",
        "false",
        "'x'",
    )


@pytest.mark.parametrize(
    ("context", "key"),
    [
        ({"calicoMode": "foo"}, "calicoMode"),  # an enum of the schema
        ({"ipAutoDetectionMethod": "eth0"}, "ipAutoDetectionMethod"),  # a pattern
        ({"podNote": 'a"b'}, "podNote"),  # a key without its own property: yamlSafe
        ({"extra": {"n": ['x"y']}}, "extra.n.0"),  # nested: the path to the string
    ],
)
def test_a_bad_context_value_names_file_and_key(context: dict[str, Any], key: str) -> None:
    with pytest.raises(InputError) as err:
        check_context(RENDER_CONTEXT, context, file="ctx.yaml")
    assert (err.value.file, err.value.key) == ("ctx.yaml", key)


def test_a_good_context_passes() -> None:
    check_context(
        RENDER_CONTEXT,
        {"calicoMode": "vxlan", "allowTypha": "true", "podNote": "plain", "extra": {"n": [1]}},
    )


def test_unsafe_text_says_why_or_nothing() -> None:
    assert unsafe_text(RENDER_CONTEXT, "skip-interface=nerdctl*") is None
    for bad in ('a"b', "line\nbreak", "trail\\"):
        assert unsafe_text(RENDER_CONTEXT, bad) is not None


def test_our_own_output_that_breaks_its_schema_is_our_bug() -> None:
    with pytest.raises(AssertionError):
        schemas.validate_output("typha.schema.json", {"decision": "not an object"})
