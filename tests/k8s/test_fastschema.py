"""The compiled check never calls valid what jsonschema (kubernetes-validate) rejects,
and proves the bundled renders valid without jsonschema."""

from __future__ import annotations

import copy
import functools
import json
import os
import random
from typing import Any

import pytest

from renderer import api
from renderer.errors import RefusedError
from renderer.k8s import schema as kubeschema
from renderer.k8s.fastschema import (
    Definitions,
    Unsupported,
    _is_type,
    _types,
    compile_schema,
    references,
)
from renderer.manifests.tree import list_versions
from tests.memohelp import cold

KUBE = kubeschema.default_kube_versions()


def _defs_path(kube_version: str) -> str:
    root = kubeschema._schema_root()
    assert root is not None
    return os.path.join(
        root, "kubernetes-json-schema", kubeschema.schema_dir(kube_version), "_definitions.json"
    )


@pytest.mark.parametrize("kube_version", KUBE)
def test_definitions_parsed_by_entry_equal_the_whole_file(kube_version: str) -> None:
    with open(_defs_path(kube_version), "rb") as fh:
        raw = fh.read()
    whole = json.loads(raw)
    defs = Definitions(raw)
    assert defs.names() == list(whole["$defs"])
    assert {n: defs.node(n) for n in defs.names()} == whole["$defs"]
    assert defs.head == {k: v for k, v in whole.items() if k != "$defs"}


@pytest.mark.parametrize(
    "text",
    [b"{}", b'{"$defs": {}}', b'{\n  "$defs": {\n    "a": {}\n  }\n}', b"\xff"],
)
def test_definitions_of_another_layout_are_unsupported(text: bytes) -> None:
    with pytest.raises(Unsupported):
        Definitions(text)


def _shipped_definitions() -> list[bytes]:
    root = kubeschema._schema_root()
    assert root is not None
    return [
        open(os.path.join(root, "kubernetes-json-schema", d, "_definitions.json"), "rb").read()
        for d in sorted(os.listdir(os.path.join(root, "kubernetes-json-schema")))
        if d.endswith("-local-strict")
    ]


def _same_index(built: Definitions, scanned: Definitions) -> None:
    """``built`` indexes its file exactly as the whole scan did, and an entry it says is
    another file's text is that text."""
    assert built._entries == scanned._entries
    assert list(built._spans.items()) == list(scanned._spans.items())
    assert built.head == scanned.head and built.head_text == scanned.head_text
    for name, other in built._same.items():
        assert other.text(name) == scanned.text(name)
        assert built.text(name) is other.text(name)


def test_definitions_indexed_like_another_version_equal_the_whole_scan() -> None:
    files = _shipped_definitions()
    scanned = [Definitions(raw) for raw in files]
    assert len(files) >= 4
    for raw, alone in zip(files, scanned, strict=True):
        for like in scanned:
            _same_index(Definitions(raw, like), alone)
    # most entries of a release are its predecessor's: those are not scanned again
    newest = Definitions(files[-1], scanned[-2])
    assert len(newest._same) > len(newest._entries) // 2


def _layout(defs: dict[str, Any]) -> bytes:
    return json.dumps({"$defs": defs, "$id": "i"}, indent=2).encode()


def test_definitions_indexed_like_edited_ones_equal_the_whole_scan() -> None:
    rng = random.Random(7)
    base = {f"d{i}": {"type": "object", "description": "x" * rng.randrange(40)} for i in range(40)}
    like = Definitions(_layout(base))
    for _ in range(200):
        names = list(base)
        edited = {n: copy.deepcopy(base[n]) for n in names if rng.random() > 0.1}
        for n in rng.sample(names, 5):
            if n in edited:
                edited[n]["description"] = "y"
        for i in range(rng.randrange(4)):
            edited[f"new{i}"] = {"enum": ["a", "b"]} if i % 2 else []
        items = list(edited.items())
        rng.shuffle(items) if rng.random() < 0.3 else None
        raw = _layout(dict(items))
        _same_index(Definitions(raw, like), Definitions(raw))
    # a name given twice: the last wins, as in the whole scan, and nothing is shared
    twice = _layout(base).replace(b'"d3": ', b'"d1": ')
    _same_index(Definitions(twice, like), Definitions(twice))
    assert Definitions(twice, like)._same == {}
    assert Definitions(_layout(base), Definitions(twice))._same == {}


@pytest.mark.parametrize(
    "broken",
    [
        b'{\n      "a": 1\n    }\n    "d2": ',  # no "," before an entry
        b'{\n      "a": 1\n    },\n    "d\\"2": ',  # a name with an escape
        b'{\n      "a": 1\n    },\n    "x",\n    "d2": ',  # a line at depth two, no name
        b'{\n      "a": "\xc3\xa9"\n    },\n    "d2": ',  # not ASCII
        b'{\n      "\xc3\xa9": 1\n    },\n    "d\xc3\xa9": ',  # a name not ASCII
    ],
)
def test_definitions_indexed_like_another_raise_as_the_whole_scan(broken: bytes) -> None:
    base = {f"d{i}": {"type": "object"} for i in range(4)}
    raw = _layout(base)
    head = b'"d1": '
    at = raw.index(head) + len(head)
    text = raw[:at] + broken + raw[raw.index(b'"d2": ') + len(b'"d2": ') :]
    with pytest.raises(Unsupported) as alone:
        Definitions(text)
    with pytest.raises(Unsupported) as like:
        Definitions(text, Definitions(raw))
    assert str(like.value) == str(alone.value)


def test_definitions_not_ascii_after_their_entries_are_unsupported_like_another() -> None:
    raw = _layout({f"d{i}": {"type": "object"} for i in range(4)})
    text = raw.replace(b'"$id": "i"', b'"$id": "\xc3\xa9"')
    with pytest.raises(Unsupported, match="ASCII"):
        Definitions(text, Definitions(raw))


@functools.cache
def _objects() -> list[dict[str, Any]]:
    out = []
    for v in list_versions():
        for nodes in (1, 601):
            try:
                out.extend(
                    o.data
                    for o in api.render(api.Request.of(v.name, nodes, operation="upgrade")).objects
                )
            except RefusedError:  # a version without Typha on 601 nodes
                continue
    return out


def _mutations(data: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
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
    for _ in range(40):
        copied = copy.deepcopy(data)
        paths.clear()
        walk(copied)
        parent, key = rng.choice(paths)
        old = parent[key]
        choices: list[Any] = [None, 7, 7.0, 7.5, True, "x", [], {}, {"bogus": 1}, [old]]
        if isinstance(old, int) and not isinstance(old, bool):
            choices += [float(old), str(old)]
        if isinstance(old, dict):
            old["unknownField"] = "x"
            choices = [old]
        parent[key] = rng.choice(choices)
        out.append(copied)
    return out


def _jsonschema_valid(data: dict[str, Any], kube_version: str, like: dict[str, Any]) -> bool:
    """jsonschema's verdict on ``data`` with the schema of ``like``'s kind."""
    validator = kubeschema.validator_for(kube_version, like["kind"], like["apiVersion"])
    assert validator is not None
    return next(iter(validator.iter_errors(data)), None) is None


@pytest.mark.slow
@pytest.mark.parametrize("v", KUBE)
def test_compiled_check_agrees_with_jsonschema(v: str) -> None:
    rng = random.Random(f"20261130-{v}")
    seen: set[str] = set()
    objects = []
    for data in _objects():
        digest = kubeschema.canonical_hash(data)
        if digest not in seen:
            seen.add(digest)
            objects.append(data)
    passed = rejected = 0
    for data in objects:
        fast = kubeschema._fast(v, data["kind"], data["apiVersion"])
        if not isinstance(fast, kubeschema._Fast):
            continue
        assert fast.passes(data) and _jsonschema_valid(data, v, data), (v, data["kind"])
        for mutated in _mutations(data, rng)[:8]:
            if fast.passes(mutated):
                passed += 1
                assert _jsonschema_valid(mutated, v, data), (v, mutated)
            else:
                rejected += 1
    assert passed > 12 and rejected > 12


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
    fast = kubeschema._fast(KUBE[-1], "Service", "v1")
    assert isinstance(fast, kubeschema._Fast)
    assert fast.passes(data) is valid
    assert _jsonschema_valid(data, KUBE[-1], data) is valid


def test_valid_objects_need_no_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: Any) -> Any:
        raise AssertionError("jsonschema used for a valid object")

    monkeypatch.setattr(kubeschema, "validator_for", boom)
    cold("k8s.schema.shared_verdicts", "k8s.schema.closures")
    objects = api.render(api.Request.of("v3.28", 601)).objects
    builtin = [
        o for o in objects if kubeschema.is_builtin_group(kubeschema.api_group(o.api_version))
    ]
    with monkeypatch.context() as m:
        m.setenv("CALICO_RENDER_NO_CACHE", "1")
        assert kubeschema.SchemaValidator().validate_all(builtin) == []


def test_unsupported_keyword_falls_back() -> None:
    with open(_defs_path(KUBE[-1]), "rb") as fh:
        defs = Definitions(fh.read())
    base = {"$id": "https://kubernetes.io/api/x", "type": "object"}
    with pytest.raises(Unsupported):
        compile_schema({**base, "minLength": 1}, defs)
    check = compile_schema({**base, "properties": {"a": {"pattern": "^x$"}}}, defs)
    assert check({}) is True
    with pytest.raises(Unsupported):
        check({"a": "y"})  # reached only now; kubeschema reads this as "not sure"
    check = compile_schema({**base, "properties": {"a": {"$ref": "#/$defs/x"}}}, defs)
    with pytest.raises(Unsupported):
        check({"a": 1})


def _refs_in(node: Any) -> list[str]:
    """Every ``$ref`` string value in parsed JSON."""
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs_in(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs_in(v)]
    return []


@pytest.mark.parametrize("kube_version", KUBE)
def test_references_read_from_the_text_are_those_of_the_parsed_entries(
    kube_version: str,
) -> None:
    with open(_defs_path(kube_version), "rb") as fh:
        raw = fh.read()
    whole = json.loads(raw)["$defs"]
    defs = Definitions(raw)
    for name in defs.names():
        entry = defs.entry(name)
        assert entry is not None, name
        expected = [r.rsplit("/", 1)[1] for r in _refs_in(whole[name])]
        assert sorted(entry[1]) == sorted(expected), name


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (b'{"$ref": "#/$defs/a", "x": {"$ref": "/api/_definitions.json#/$defs/b"}}', ("a", "b")),
        (b'{"$ref" :  "#/$defs/a"}', ("a",)),  # other spacing: read the slow way
        (b'{"properties": {"$ref": {"type": "string"}}, "$ref": "#/$defs/a"}', ("a",)),
        (b'{"description": "see \\"$ref\\": \\"#/$defs/x\\"", "$ref": "#/$defs/a"}', ("a",)),
        (b'{"$ref": "#/$defs/a~1b"}', None),  # a pointer escape: not followed by name
        (b'{"$ref": "other.json#/a"}', None),
        (b'{"$id": "https://example.com/", "$ref": "#/$defs/a"}', None),
        (b'{"$anchor": "x"}', None),
        (b'{"\\u0024ref": "#/$defs/a"}', None),  # a keyword spelled with an escape
    ],
)
def test_references_are_plain_or_none(text: bytes, found: tuple[str, ...] | None) -> None:
    assert references(text, False) == found


def test_a_kind_file_may_name_itself() -> None:
    text = b'{"$id": "https://kubernetes.io/x", "$ref": "/api/_definitions.json#/$defs/a"}'
    assert references(text, True) == ("a",)
    assert references(b'{"$ref": "#/$defs/a"}', True) is None  # its own $defs: not followed


def test_definitions_with_a_member_after_defs_holding_objects_are_unsupported() -> None:
    head = {"$defs": {"a": {"type": "string"}}}
    for later in ({"b": {"type": "string"}}, ["x", "y"]):
        text = json.dumps(
            {**head, "x": later, "$id": "https://kubernetes.io/api/_definitions.json"}, indent=2
        )
        with pytest.raises(Unsupported):
            Definitions(text.encode())
    text = json.dumps({**head, "x": {}, "$id": "i"}, indent=2)
    assert Definitions(text.encode()).head == {"x": {}, "$id": "i"}


TYPE_NAMES = ["object", "array", "string", "boolean", "integer", "number", "null"]


@pytest.mark.parametrize("other", TYPE_NAMES)
def test_nullable_types_check_exactly_either_type(other: str) -> None:
    samples: list[Any] = [None, {}, [], "s", True, False, 0, 1, 1.0, 1.5, 10**30]
    for names in ([other, "null"], ["null", other]):
        check = _types(names)
        one = [_is_type(n) for n in names]
        assert [check(x) for x in samples] == [any(c(x) for c in one) for x in samples]
