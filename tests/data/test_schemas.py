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


CONTEXTS: list[Any] = [
    {},
    {"allowTypha": "true", "typhaReplicas": "4", "repo": "r/"},
    {"allowTypha": "true", "typhaReplicas": "0"},
    {"allowTypha": "false", "typhaReplicas": "0"},
    {"allowTypha": "True"},
    {"allowTypha": True, "typhaReplicas": "3"},
    {"typhaReplicas": "03"},
    {"typhaReplicas": "4\n"},
    {"typhaReplicas": 4},
    {"ClusterCidr": {"Ipv6": "fd00::/48"}},
    {"ClusterCidr": "10.0.0.0/8"},
    {"other": {"a": [1, 2.5, None, True]}, "n": 1.0, "m": 3},
    {"other": ("a", "b")},
    {"other": {1, 2}},
    {"allowTypha": None},
    ["not", "an", "object"],
    "text",
]


@pytest.mark.parametrize("context", CONTEXTS)
def test_the_plain_python_check_is_never_more_lenient_than_jsonschema(context: Any) -> None:
    valid = schemas.best_error(RENDER_CONTEXT, context) is None
    fast = schemas.certainly_valid(schemas.load_schema(RENDER_CONTEXT), context)
    assert not fast or valid  # it may defer, never pass what jsonschema refuses


def test_the_plain_python_check_decides_the_usual_contexts() -> None:
    schema = schemas.load_schema(RENDER_CONTEXT)
    assert schemas.certainly_valid(schema, {"allowTypha": "true", "typhaReplicas": "4"})
    assert schemas.certainly_valid(schema, {"allowTypha": "false", "typhaReplicas": "0"})
    assert not schemas.certainly_valid(schema, {"allowTypha": "true", "typhaReplicas": "0"})
    assert not schemas.certainly_valid({"type": "string", "format": "date"}, "x")  # unknown


BKE_INPUT = "bke-input.schema.json"
_NODE = {"apiVersion": "v1", "kind": "BKENode", "metadata": {"name": "n0"}}
BKE_DOCS: list[Any] = [
    {**_NODE, "spec": {"role": ["node"], "ip": "10.0.0.1"}},
    {**_NODE, "spec": {"role": ["master/node", "etcd"], "hostname": "h"}},
    {**_NODE, "spec": {"role": []}},
    {**_NODE, "spec": {"role": ["nodes"]}},
    {**_NODE, "spec": {"role": "node"}},
    {**_NODE, "spec": {"ip": "10.0.0.1"}},
    {**_NODE, "spec": {"role": ["node"], "ip": 10}},
    {"kind": "BKENode", "metadata": {"name": ""}, "spec": {"role": ["node"]}},
    {"kind": "BKENode", "metadata": {}, "spec": {"role": ["node"]}},
    {"kind": "BKENode", "spec": {"role": ["node"]}},
    {**_NODE, "metadata": {"name": "n", "labels": {"a": None, "b": 1}}, "spec": {"role": ["node"]}},
    {
        **_NODE,
        "metadata": {"name": "n", "ownerReferences": [{"kind": 1}]},
        "spec": {"role": ["node"]},
    },
    {"kind": "BKECluster", "spec": {"controlPlaneEndpoint": {"host": "h", "port": 6443}}},
    {"kind": "BKECluster", "spec": {"controlPlaneEndpoint": {"port": 70000}}},
    {"kind": "BKECluster", "spec": {"controlPlaneEndpoint": {"port": -1}}},
    {"kind": "BKECluster", "spec": {"controlPlaneEndpoint": {"port": 1.5}}},
    {"kind": "BKEConfig", "spec": {"addons": [{"name": "calico", "param": {"a": [1]}}]}},
    {"kind": "BKEConfig", "spec": {"addons": [{"version": "v3.28.2"}]}},
    {"kind": "BKEConfig", "spec": {"cluster": {"imageRepo": {"port": True}}}},
    {"kind": "BKEConfig"},
    {"kind": 3},
    {},
]


@pytest.mark.parametrize("doc", BKE_DOCS)
def test_the_compiled_check_of_bke_input_passes_nothing_jsonschema_refuses(doc: Any) -> None:
    valid = schemas.best_error(BKE_INPUT, doc) is None
    assert not schemas.certainly_valid_as(BKE_INPUT, doc) or valid


def test_the_compiled_check_decides_the_usual_bke_node() -> None:
    # 20,000 BKENodes are judged without jsonschema: the usual node must be decided here
    assert schemas.certainly_valid_as(BKE_INPUT, BKE_DOCS[0])
    assert schemas.certainly_valid_as(BKE_INPUT, BKE_DOCS[1])
