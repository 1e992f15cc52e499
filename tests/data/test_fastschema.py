"""The one schema compiler answers as jsonschema does wherever it answers: on Kubernetes'
strict schemas (as kubernetes-validate builds its validator) and on our own input
schemas (formats asserted), for real documents, one-edit mutations of them and random
schemas. Where it is not sure it says so, and the bundled renders and the usual inputs
are decided without jsonschema."""

from __future__ import annotations

import copy
import functools
import json
import random
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from renderer import api
from renderer.data import schemas
from renderer.data.fastschema import (
    DRAFT_2020_12,
    Check,
    Compiler,
    Unsupported,
    certainly_valid,
)
from renderer.errors import RefusedError
from renderer.k8s.parse import parse_stream
from renderer.k8s.schema import default_kube_versions, schema_dir, schema_file
from renderer.manifests.tree import list_versions
from tests.gatehelp import BROKEN, broken_variants, typha_on_objects
from tests.output.cases import DOCUMENTS

KUBE = default_kube_versions()
Validator = jsonschema.protocols.Validator


def answer(check: Check, validator: Validator, instance: Any) -> bool | None:
    """The check's verdict, asserted equal to jsonschema's; None where it is not sure."""
    try:
        got = check(instance)
    except Unsupported:
        return None
    assert got is validator.is_valid(instance), instance
    assert certainly_valid(check, instance) is got
    return got


# --- random schemas, both ways of reading ``format`` ------------------------------------

NAMES = ["a", "b", "c"]
TYPES = ["object", "array", "string", "boolean", "integer", "number", "null"]


def random_schema(rng: random.Random, depth: int = 0, refs: bool = True) -> Any:
    """A schema of the keywords the compiler mirrors (and a few it does not); ``refs``:
    with references to ``#/$defs/d`` (which has none: no endless loop)."""
    if depth > 2 or rng.random() < 0.15:
        return rng.choice([True, False, {}, {"type": rng.choice(TYPES)}])
    out: dict[str, Any] = {}
    for _ in range(rng.randrange(1, 4)):
        word = rng.choice(
            [
                *("type", "enum", "const", "pattern", "minLength", "minItems", "minimum"),
                *("maximum", "required", "properties", "additionalProperties", "items"),
                *("allOf", "anyOf", "oneOf", "not", "if", "$ref", "format", "description"),
                *("uniqueItems", "maxLength", "maxItems", "minProperties", "maxProperties"),
                *("x-kubernetes-list-type", "patternProperties"),
            ]
        )
        sub = functools.partial(random_schema, rng, depth + 1, refs)
        if word == "type":
            out[word] = rng.choice([rng.choice(TYPES), rng.sample(TYPES, 2), ["string", "null"]])
        elif word in ("enum", "const"):
            values = rng.sample(["x", "y", "1", "", 1, 1.0, 2.5, True, False, None, [1]], 2)
            out[word] = values if word == "enum" else values[0]
        elif word == "pattern":
            out[word] = rng.choice(["^x", "y$", "[0-9]"])
        elif word.startswith(("min", "max")) and word not in ("minimum", "maximum"):
            out[word] = rng.randrange(3)
        elif word in ("minimum", "maximum"):
            out[word] = rng.choice([0, 1, 1.5, -2])
        elif word == "required":
            out[word] = rng.sample(NAMES, rng.randrange(1, 3))
        elif word == "properties":
            out[word] = {n: sub() for n in rng.sample(NAMES, rng.randrange(1, 3))}
        elif word in ("additionalProperties", "items", "not"):
            out[word] = sub()
        elif word in ("allOf", "anyOf", "oneOf"):
            out[word] = [sub() for _ in range(rng.randrange(1, 3))]
        elif word == "if":
            out.update({"if": sub(), "then": sub()})
            if rng.random() < 0.5:
                out["else"] = sub()
        elif word == "$ref":
            if refs:
                out[word] = rng.choice(["#/$defs/d", "#/$defs/e"])
        elif word == "format":
            out[word] = rng.choice(["ipv4", "date", "unknown-format"])
        elif word == "uniqueItems":
            out[word] = rng.choice([True, False])
        elif word == "patternProperties":
            out[word] = {"^a": sub()}
        else:
            out[word] = "x"
    return out


def random_instance(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(10 if depth < 2 else 7)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, 1, 2, -3, 10**20])
    if pick == 3:
        return rng.choice([1.0, 1.5, -2.0, float("nan"), float("inf")])
    if pick in (4, 5, 6):
        return rng.choice(["", "x", "xy", "y", "1", "10.0.0.1", "2024-01-01", "2024-13-01"])
    if pick in (7, 8):
        keys = rng.sample([*NAMES, "z"], rng.randrange(4))
        return {k: random_instance(rng, depth + 1) for k in keys}
    if pick == 9 and rng.random() < 0.5:  # strings, some repeated (uniqueItems)
        return [rng.choice(["x", "y", "z"]) for _ in range(rng.randrange(4))]
    return [random_instance(rng, depth + 1) for _ in range(rng.randrange(4))]


@pytest.mark.parametrize("formats", [False, True])
def test_random_schemas_answer_as_jsonschema(formats: bool) -> None:
    rng = random.Random(f"fastschema-{formats}")
    cls = jsonschema.Draft202012Validator
    decided = unsure = 0
    for _ in range(600):
        schema = random_schema(rng)
        if isinstance(schema, dict):
            schema["$defs"] = {"d": random_schema(rng, 1, False), "e": {"$ref": "#/$defs/d"}}
        checker = cls.FORMAT_CHECKER if formats else None
        validator = cls(schema, format_checker=checker)
        check = Compiler(formats=formats).compile(schema)
        for _ in range(12):
            found = answer(check, validator, random_instance(rng))
            decided, unsure = decided + (found is not None), unsure + (found is None)
    assert decided > 2 * unsure


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"uniqueItems": True}, [1]),  # a keyword not mirrored
        ({"properties": {"a": {"patternProperties": {}}}}, {"a": {}}),  # reached only then
        ({"type": "string", "format": "date"}, "x"),  # formats asserted: not sure
        ({"enum": [[1]]}, [1]),  # jsonschema's equality of arrays
        ({"$ref": "other.json"}, 1),  # a document nobody gave
        ({"$ref": "#anchor"}, 1),
        ({"$ref": "#/$defs/missing"}, 1),
        ({"$schema": "http://json-schema.org/draft-07/schema#"}, 1),  # another dialect
        ({"properties": {"a": {"$id": "inner"}}}, {"a": 1}),  # an embedded resource
        ({"type": "decimal"}, 1),
    ],
)
def test_what_is_not_mirrored_is_not_sure(schema: dict[str, Any], instance: Any) -> None:
    check = Compiler(formats=True).compile(schema)
    with pytest.raises(Unsupported):
        check(instance)
    assert certainly_valid(check, instance) is False


def test_a_format_without_a_format_checker_is_an_annotation() -> None:
    check = Compiler(formats=False).compile({"type": "string", "format": "date"})
    assert check("not a date") is True


def test_a_reference_back_into_what_is_compiled_is_followed_when_reached() -> None:
    schema = {
        "$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}},
        "properties": {"x": {"$ref": "#/$defs/a"}},
    }
    validator = jsonschema.Draft202012Validator(schema)
    check = Compiler(formats=False).compile(schema)
    assert answer(check, validator, {"x": "s"}) is True
    assert certainly_valid(check, {"x": 1}) is False  # endless for jsonschema too


def test_references_follow_ids_and_pointers_as_referencing_does() -> None:
    other = {
        "$schema": DRAFT_2020_12,
        "$id": "https://example.com/schemas/other.json",
        "$defs": {"a/b": {"type": "string"}, "n": {"type": ["integer", "null"]}},
    }
    documents = {other["$id"]: other}
    schema = {
        "$id": "https://example.com/schemas/main.json",
        "properties": {
            "s": {"$ref": "other.json#/$defs/a~1b"},
            "n": {"$ref": "/schemas/other.json#/$defs/n"},
            "self": {"$ref": "#"},
        },
    }
    registry = Resource.from_contents(other) @ Registry()
    validator = jsonschema.Draft202012Validator(schema, registry=registry)
    check = Compiler(documents.get, formats=False).compile(schema)
    for instance in [{"s": "x"}, {"s": 1}, {"n": None}, {"n": 1.5}, {"self": {"s": 2}}]:
        assert answer(check, validator, instance) is not None


# --- our own schemas ------------------------------------------------------------------


@functools.cache
def ours(name: str) -> tuple[Check, Validator]:
    """Our schema ``name`` compiled with every schema of ours to refer to, and its
    validator as :mod:`renderer.data.schemas` builds it."""
    documents = {
        schemas.load_schema(n)["$id"]: schemas.load_schema(n) for n in schemas.schema_files()
    }
    check = Compiler(documents.get, formats=True).compile(schemas.load_schema(name))
    return check, schemas.validator(name)


RENDER_CONTEXT = schemas.RENDER_CONTEXT
BKE_INPUT = "bke-input.schema.json"
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


@pytest.mark.parametrize(("name", "documents"), [(RENDER_CONTEXT, CONTEXTS), (BKE_INPUT, BKE_DOCS)])
def test_our_schemas_answer_as_jsonschema(name: str, documents: list[Any]) -> None:
    check, validator = ours(name)
    rng = random.Random(name)
    answers = []
    for document in documents:
        answers.append(answer(check, validator, document))
        if isinstance(document, dict):
            for mutated in mutations(document, rng, 10):
                answers.append(answer(check, validator, mutated))
    assert {True, False} <= set(answers)
    # what is decided here is the same through the module's own compiled check
    for document in documents:
        expected = answer(check, validator, document) is True
        assert schemas.certainly_valid_as(name, document) is expected


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_our_report_schemas_answer_as_jsonschema(name: str) -> None:
    """Reports refer to ``finding.schema.json``: the references between our files are
    followed as jsonschema's registry follows them."""
    document = DOCUMENTS[name]()
    check, validator = ours(document.schema)
    data = json.loads(json.dumps(document.data()))
    rng = random.Random(name)
    assert answer(check, validator, data) is True  # decided without jsonschema
    answers = [answer(check, validator, m) for m in mutations(data, rng, 20)]
    assert False in answers


def test_the_usual_inputs_are_decided_without_jsonschema() -> None:
    # a render's context, and 20,000 BKENodes: the usual ones must be decided here
    for name, document in [
        (RENDER_CONTEXT, {"allowTypha": "true", "typhaReplicas": "4"}),
        (RENDER_CONTEXT, {"allowTypha": "false", "typhaReplicas": "0"}),
        (BKE_INPUT, BKE_DOCS[0]),
        (BKE_INPUT, BKE_DOCS[1]),
    ]:
        assert schemas.certainly_valid_as(name, document), document
    assert not schemas.certainly_valid_as(
        RENDER_CONTEXT, {"allowTypha": "true", "typhaReplicas": "0"}
    )


# --- Kubernetes' strict schemas, read as kubernetes-validate reads them -----------------


def _schema_root() -> Path:
    return Path(str(files("kubernetes_validate"))) / "kubernetes-json-schema"


@functools.cache
def _definitions(kube_version: str) -> tuple[Compiler, Registry[Any]]:
    """A version's definitions: a compiler of its kinds' schemas and the library's registry."""
    folder = _schema_root() / schema_dir(kube_version)
    with open(folder / "_definitions.json") as fh:
        defs = json.load(fh)
    compiler = Compiler(lambda uri: defs if uri == defs["$id"] else None, formats=False)
    return compiler, Resource.from_contents(defs) @ Registry()


@functools.cache
def kube(kube_version: str, kind: str, api_version: str) -> tuple[Check, Validator]:
    """A kind's compiled check and its validator, as ``kubernetes_validate.validate``
    builds it (the kind's schema in the registry, Draft 2020-12)."""
    compiler, registry = _definitions(kube_version)
    path = _schema_root().parent / schema_file(kube_version, kind, api_version)
    with open(path) as fh:
        schema = json.load(fh)
    validator = jsonschema.Draft202012Validator(
        schema, registry=Resource.from_contents(schema) @ registry
    )
    return compiler.compile(schema), validator


def kube_answer(kube_version: str, data: dict[str, Any], like: dict[str, Any]) -> bool | None:
    """The compiled check's verdict on ``data`` with the schema of ``like``'s kind."""
    return answer(*kube(kube_version, like["kind"], like["apiVersion"]), data)


def mutations(data: dict[str, Any], rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Objects one edit away: a value of another type, an unknown field, a null, a
    float for an integer, a string outside an enum."""
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                paths.append((node, k))
                walk(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                paths.append((node, i))
                walk(v)

    out = []
    for _ in range(count):
        copied = copy.deepcopy(data)
        paths.clear()
        walk(copied)
        if not paths:
            break
        parent, key = rng.choice(paths)
        old = parent[key]
        choices: list[Any] = [None, 7, 7.0, 7.5, True, "x", "", [], {}, {"bogus": 1}, [old]]
        if isinstance(old, int) and not isinstance(old, bool):
            choices += [float(old), str(old), -old]
        if isinstance(old, dict):
            old["unknownField"] = "x"
            choices = [old]
        parent[key] = rng.choice(choices)
        out.append(copied)
    return out


def _builtin(data: dict[str, Any]) -> bool:
    group = data["apiVersion"].rsplit("/", 1)[0] if "/" in data["apiVersion"] else ""
    return group == "" or "." not in group or group.endswith(".k8s.io")


def _differential(kube_version: str, objects: list[dict[str, Any]], edits: int) -> None:
    rng = random.Random(f"20261130-{kube_version}")
    seen: set[str] = set()
    decided = rejected = 0
    for data in objects:
        text = json.dumps(data, sort_keys=True)
        if text in seen or not _builtin(data):
            continue
        seen.add(text)
        if not (_schema_root().parent / schema_file(kube_version, *_named(data))).exists():
            continue
        # a valid render is proved valid here: it never needs jsonschema
        assert kube_answer(kube_version, data, data) is True, data["kind"]
        for mutated in mutations(data, rng, edits):
            found = kube_answer(kube_version, mutated, data)
            decided += found is not None
            rejected += found is False
    assert decided > 12 and rejected > 12


def _named(data: dict[str, Any]) -> tuple[str, str]:
    return data["kind"], data["apiVersion"]


@pytest.mark.parametrize("kube_version", [KUBE[0], KUBE[-1]])
def test_kubernetes_schemas_answer_as_jsonschema_on_the_fixtures(kube_version: str) -> None:
    objects = [o.data for o in typha_on_objects()]
    _differential(kube_version, objects, 12)
    broken = [
        o.data
        for p in (BROKEN / n for n in ("misspelled.yaml", "removed-api.yaml"))
        for o in _parsed(p)
    ] + broken_variants()
    for data in [*broken, *broken_variants()]:
        if (_schema_root().parent / schema_file(kube_version, *_named(data))).exists():
            kube_answer(kube_version, data, data)


def _parsed(path: Path) -> list[Any]:
    return parse_stream(path.read_text(), str(path))


@functools.cache
def _bundled_objects() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for v in list_versions():
        for nodes in (1, 601):
            try:
                request = api.Request.of(v.name, nodes, operation="upgrade")
                out.extend(o.data for o in api.render(request).objects)
            except RefusedError:  # a version without Typha on 601 nodes
                continue
    return out


@pytest.mark.slow
@pytest.mark.parametrize("kube_version", KUBE)
def test_kubernetes_schemas_answer_as_jsonschema_on_the_bundled_renders(
    kube_version: str,
) -> None:
    _differential(kube_version, _bundled_objects(), 8)


@pytest.mark.parametrize(
    ("value", "valid"),
    [("8443", True), (8443, True), (8443.0, True), (8443.5, False), (True, False), (None, False)],
)
def test_int_or_string_and_numbers(value: Any, valid: bool) -> None:
    data = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "x"},
        "spec": {"ports": [{"port": 443, "targetPort": value}]},
    }
    assert kube_answer(KUBE[-1], data, data) is valid


def test_a_definition_reaching_itself_compiles() -> None:
    crd = "apiextensions.k8s.io/v1"
    schema = {"type": "object", "properties": {"x": {"type": "object", "properties": {}}}}
    for props in (schema, {"type": "object", "properties": {"x": {"type": 5}}}):
        data = {
            "apiVersion": crd,
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "a.b.c"},
            "spec": {
                "group": "b.c",
                "names": {"kind": "A", "plural": "a"},
                "scope": "Namespaced",
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {"openAPIV3Schema": props},
                    }
                ],
            },
        }
        assert kube_answer(KUBE[-1], data, data) is (props is schema)
