"""Our JSON Schemas at run time: a bad value is refused naming its key, in YAML's words."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.data import schemas
from renderer.data.schemas import RENDER_CONTEXT, check_context
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
        ({"calicoMode": 5}, "calicoMode"),  # a param is a string
        ({"ClusterCidr": "fd00::/48"}, "ClusterCidr"),  # read as a map
        ({"typhaReplicas": "three"}, "typhaReplicas"),  # set by the policy: its own shape
    ],
)
def test_a_bad_context_value_names_file_and_key(context: dict[str, Any], key: str) -> None:
    with pytest.raises(InputError) as err:
        check_context(RENDER_CONTEXT, context, file="ctx.yaml")
    assert (err.value.file, err.value.key) == ("ctx.yaml", key)


@pytest.mark.parametrize(
    "context",
    [
        {"calicoMode": "IPIP"},  # no branch matches: a warning elsewhere, never a refusal
        {"ipAutoDetectionMethod": "first-found "},
        {"podNote": 'a"b\tc\\', "line": "x\u2028y"},  # characters: injections are findings
        {"extra": {"n": ['x"y']}},
        {"ipModVersion": "dual"},  # without ClusterCidr: what the controller renders
    ],
)
def test_the_controller_renders_it_so_the_context_takes_it(context: dict[str, Any]) -> None:
    check_context(RENDER_CONTEXT, context, file="ctx.yaml")


def test_a_good_context_passes() -> None:
    check_context(
        RENDER_CONTEXT,
        {"calicoMode": "vxlan", "allowTypha": "true", "podNote": "plain", "extra": {"n": [1]}},
    )


def test_our_own_output_that_breaks_its_schema_is_our_bug() -> None:
    with pytest.raises(AssertionError):
        schemas.validate_output("typha.schema.json", {"decision": "not an object"})
