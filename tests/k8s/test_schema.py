"""Strict schema validation: findings, caches, and verdicts equal to kubernetes-validate's."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from kubernetes_validate.utils import SchemaNotFoundError

from renderer.checks.renders import capability_of
from renderer.errors import InputError
from renderer.finding import Finding
from renderer.k8s import schema as kubeschema
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.k8s.schema import SchemaValidator
from renderer.manifests.tree import list_versions
from tests.clihelp import ref
from tests.gatehelp import BROKEN, typha_on_objects
from tests.memohelp import cold, isolated


def _broken(name: str) -> list[K8sObject]:
    path = BROKEN / name
    return parse_stream(path.read_text(), str(path))


SCHEMA_MEMOS = (
    "k8s.schema.validators",
    "k8s.schema.registries",
    "k8s.schema.definitions",
    "k8s.schema.fast",
    "k8s.schema.fast_defs",
    "k8s.schema.closures",
    "k8s.schema.definition_digests",
    "k8s.schema.shared_verdicts",
    "k8s.schema.fast_shared",
    "k8s.schema.passed",
    "k8s.schema.fast_definitions",
    "k8s.schema.definition_closures",
    "k8s.schema.definitions_before",
    "k8s.schema.components",
    "k8s.schema.kind_closures",
)


def test_default_versions_are_the_newest_shipped() -> None:
    shipped = kubeschema.shipped_versions()
    assert shipped[0] == "1.25" and len(shipped) >= 4
    assert kubeschema.default_kube_versions() == shipped[-4:]
    assert SchemaValidator().kube_versions == shipped[-4:]


def test_unknown_kube_version_lists_shipped() -> None:
    with pytest.raises(InputError) as exc:
        kubeschema.resolve_kube_versions(["1.99"])
    assert exc.value.key == "kube_version" and "1.25" in exc.value.message
    assert kubeschema.resolve_kube_versions(["v1.30", "1.26", "1.30"]) == ("1.26", "1.30")


def test_removed_api_is_an_error_naming_the_object() -> None:
    [f] = SchemaValidator(["1.25"]).validate(_broken("removed-api.yaml")[0])
    assert f.severity == "error" and ref(f.object) == "PodDisruptionBudget kube-system/calico-typha"
    assert f.field == "apiVersion" and "policy/v1beta1" in f.message
    assert f.file.endswith("removed-api.yaml") and f.line == 1


def test_misspelled_fields_name_the_field() -> None:
    findings = SchemaValidator(["1.37"]).validate(_broken("misspelled.yaml")[0])
    assert [(ref(f.object), f.field) for f in findings] == [
        ("Deployment kube-system/calico-typha", "spec.replica"),
        ("Deployment kube-system/calico-typha", "spec.template.spec.containers[0].imagePullPolcy"),
    ]
    assert all(f.severity == "error" and "unknown field" in f.message for f in findings)


def test_custom_resource_is_not_checked() -> None:
    [cr] = [o for o in typha_on_objects() if o.kind == "FelixConfiguration"]
    [f] = SchemaValidator(["1.30"]).validate(cr)
    assert (f.rule, f.severity) == (kubeschema.NOT_CHECKED_RULE, "info")
    assert "crd.projectcalico.org" in f.message
    assert kubeschema.errors([f]) == []


def test_missing_kind_is_an_error() -> None:
    [f] = SchemaValidator(["1.30"]).validate({"apiVersion": "v1", "metadata": {"name": "x"}})
    assert f.severity == "error" and f.field == "kind"


def test_result_cache_is_per_distinct_object(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = kubeschema.check_object

    def counting(data: dict[str, Any], version: str) -> list[Finding]:
        calls.append(version)
        return real(data, version)

    monkeypatch.setattr(kubeschema, "check_object", counting)
    cold("k8s.schema.shared_verdicts")
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    validator = SchemaValidator(["1.36", "1.37"])
    obj = _broken("misspelled.yaml")[0]
    first = validator.validate(obj)
    unlocated = [kubeschema.replace(f, file="", line=0) for f in first]
    assert validator.validate(copy.deepcopy(obj.data)) == unlocated
    # each version at most once: one with the same schema closure may share the verdict
    assert calls and len(calls) == len(set(calls)) and set(calls) <= {"1.36", "1.37"}
    # an equal object in another key order may be checked again, to the same findings
    reordered = dict(reversed(list(copy.deepcopy(obj.data).items())))
    assert validator.validate(reordered) == unlocated
    assert kubeschema.validator_for("1.37", "Deployment", "apps/v1") is (
        kubeschema.validator_for("1.37", "Deployment", "apps/v1")
    )


def test_thread_safe_results_match_sequential() -> None:
    objects = typha_on_objects() + _broken("misspelled.yaml") + _broken("removed-api.yaml")
    expected = [SchemaValidator(["1.33"]).validate(o) for o in objects * 4]
    shared = SchemaValidator(["1.33"])
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(shared.validate, objects * 4))
    assert got == expected


def _library_verdict(data: dict[str, Any], version: str) -> str:
    try:
        kubernetes_validate.validate(data, version, strict=True)
    except kubernetes_validate.ValidationError:
        return "invalid"
    except SchemaNotFoundError:
        return "no-schema"
    return "valid"


def _our_verdict(data: dict[str, Any], version: str) -> str:
    findings = kubeschema.check_object(data, version)
    if any(f.field == "apiVersion" and "serves no" in f.message for f in findings) or any(
        f.rule == kubeschema.NOT_CHECKED_RULE for f in findings
    ):
        return "no-schema"
    return "invalid" if findings else "valid"


def _broken_variants() -> list[dict[str, Any]]:
    base = next(o.data for o in typha_on_objects() if o.kind == "Deployment")
    variants = []
    for change in (
        lambda d: d["spec"].__setitem__("replicas", "three"),
        lambda d: d["spec"]["template"]["spec"].__setitem__("hostNetwrok", True),
        lambda d: d["spec"].pop("selector"),
        lambda d: d.__setitem__("apiVersion", "extensions/v1beta1"),
    ):
        data = copy.deepcopy(base)
        change(data)  # type: ignore[no-untyped-call]
        variants.append(data)
    return variants


PARITY_VERSIONS = ("1.25", "1.37")


@pytest.mark.parametrize("version", PARITY_VERSIONS)
def test_verdicts_equal_library_on_fixtures_and_broken(version: str) -> None:
    objects = [o.data for o in typha_on_objects()]
    objects += [o.data for name in ("misspelled.yaml", "removed-api.yaml") for o in _broken(name)]
    objects += _broken_variants()
    verdicts = [(_our_verdict(d, version), _library_verdict(d, version)) for d in objects]
    assert all(ours == lib for ours, lib in verdicts), verdicts
    assert {v for v, _ in verdicts} == {"valid", "invalid", "no-schema"}


@pytest.mark.slow
@pytest.mark.parametrize("version", PARITY_VERSIONS)
def test_verdicts_equal_library_on_bundled_renders(version: str) -> None:
    seen: dict[str, dict[str, Any]] = {}
    for vdir in list_versions():
        for scenario in capability_of(vdir).scenarios:
            for o in scenario.objects:
                seen.setdefault(kubeschema.canonical_hash(o.data), o.data)
    for data in seen.values():
        assert _our_verdict(data, version) == _library_verdict(data, version), data.get("kind")


@pytest.mark.parametrize(
    ("kind", "api_version", "path"),
    [
        ("Foo/Bar", "v1", "kind"),
        ("a\0b", "v1", "kind"),
        ("..", "v1", "kind"),
        ("../v1.30.0-local-strict/configmap", "v1", "kind"),
        ("7", "v1", "kind"),
        ("ConfigMap", "5", "apiVersion"),
        ("ConfigMap", "../v1", "apiVersion"),
        ("ConfigMap", "apps/v1/x", "apiVersion"),
        ("ConfigMap", "v1\0", "apiVersion"),
        ("ConfigMap", "Apps/v1", "apiVersion"),
    ],
)
def test_kind_and_api_version_never_reach_a_path(kind: str, api_version: str, path: str) -> None:
    data = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    [f] = kubeschema.check_object(data, "1.30")
    assert f.severity == "error" and f.field == path and "not a valid" in f.message


def test_library_errors_reading_a_schema_are_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes_validate.utils import InvalidSchemaError, VersionNotSupportedError

    def unreadable(*_: Any) -> Any:
        raise OSError("denied")

    for exc in (
        VersionNotSupportedError(version="1.30"),
        InvalidSchemaError("bad"),
        OSError("denied"),
        ValueError("embedded null byte"),
    ):

        def boom(*_: Any, exc: Exception = exc) -> Any:
            raise exc

        monkeypatch.setattr(kubeschema.kv, "schema_contents", boom)
        monkeypatch.setattr(kubeschema, "read_schema_file", unreadable)  # no fast path either
        data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
        with isolated(*SCHEMA_MEMOS):
            [f] = kubeschema.check_object(data, "1.30")
        assert f.severity == "error" and "schema" in f.message, f


@pytest.mark.parametrize(
    "data",
    [
        {"metadata": {"name": "x"}},
        {"kind": "ConfigMap"},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": None},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": []},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": "x", "data": 5},
        {"apiVersion": None, "kind": None, "metadata": {"name": "x"}},
        {"apiVersion": ["v1"], "kind": {"a": 1}},
    ],
)
def test_odd_identity_gives_findings_not_exceptions(data: dict[str, Any]) -> None:
    findings = SchemaValidator(["1.30"]).validate(data)
    assert all(f.severity == "error" for f in findings)
    # Null metadata is allowed by the schema (as kubernetes-validate says); the rest is not.
    assert findings or data.get("metadata", {}) is None


def test_shared_closures_give_the_uncached_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdicts shared across Kubernetes versions by schema closure equal validating on
    each version alone, for every object the bundled versions render."""
    from renderer.checks.renders import capability_of
    from renderer.manifests.tree import list_versions

    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    cold("k8s.schema.shared_verdicts")
    versions = ("1.25", "1.30", "1.34", "1.35", "1.36", "1.37")
    seen: dict[str, dict[str, Any]] = {}
    for vdir in list_versions():
        for scenario in capability_of(vdir).scenarios:
            for obj in scenario.objects:
                seen.setdefault(kubeschema.canonical_hash(obj.data), obj.data)
    validator = SchemaValidator(versions)
    for data in seen.values():
        expected = [f for v in versions for f in kubeschema.check_object(data, v)]
        assert validator.validate(data) == expected
    shared = {
        v: kubeschema.closure_digest(v, "CustomResourceDefinition", "apiextensions.k8s.io/v1")
        for v in versions
    }
    assert None not in shared.values() and len(set(shared.values())) < len(versions)


def test_closure_digest_reads_definitions_again_once_their_memo_let_them_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    version = kubeschema.default_kube_versions()[-1]
    first = kubeschema.closure_digest(version, "Deployment", "apps/v1")
    assert first is not None
    # evicted, the registry kept
    cold("k8s.schema.closures", "k8s.schema.definition_digests", "k8s.schema.definitions")
    assert kubeschema.closure_digest(version, "Deployment", "apps/v1") == first


def test_a_validator_keeps_findings_for_a_bounded_number_of_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    validator = SchemaValidator(kubeschema.default_kube_versions()[-1:], keep=2)
    for i in range(3):
        data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}}
        assert validator.validate(data) == []
    assert len(validator._results) == 2


def _two_version_tree(tmp_path: Path, changed: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of the newest shipped schemas as Kubernetes 1.90, 1.91 (a definition
    edited by ``changed``) and 1.92 (the same as 1.90), laid out as the library ships them."""
    real = kubeschema._schema_root()
    assert real is not None
    source = Path(real, "kubernetes-json-schema", kubeschema.schema_dir(KUBE_NEWEST))
    defs = json.loads((source / "_definitions.json").read_text())
    kind = (source / "configmap-v1.json").read_text()
    for version in ("1.90", "1.91", "1.92"):
        target = tmp_path / "kubernetes-json-schema" / f"v{version}.0-local-strict"
        target.mkdir(parents=True)
        data = copy.deepcopy(defs)
        if version == "1.91":
            changed(data["$defs"])
        (target / "_definitions.json").write_text(json.dumps(data, indent=2))
        (target / "configmap-v1.json").write_text(kind)
    return tmp_path


KUBE_NEWEST = kubeschema.default_kube_versions()[-1]
FAKE_VERSIONS = ("1.90", "1.91", "1.92")


@pytest.fixture
def fake_versions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """kubeschema and kubernetes-validate reading the tree of :func:`_two_version_tree`
    (ObjectMeta's ``name`` an integer on 1.91)."""

    def integer_name(defs: dict[str, Any]) -> None:
        meta = defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
        meta["properties"]["name"]["type"] = "integer"

    root = _two_version_tree(tmp_path, integer_name)

    def contents(filename: str, version: str) -> Any:
        with open(root / filename) as fh:
            return json.load(fh)

    with isolated(*SCHEMA_MEMOS):
        monkeypatch.setattr(kubeschema, "_schema_root", lambda: str(root))
        monkeypatch.setattr(kubeschema, "_all_versions", lambda: ("1.90.0", "1.91.0", "1.92.0"))
        monkeypatch.setattr(kubeschema, "shipped_versions", lambda: FAKE_VERSIONS)
        monkeypatch.setattr(kubeschema.kv, "schema_contents", contents)
        monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
        kubeschema._schema_dirs.cache_clear()
        try:
            yield root
        finally:
            kubeschema._schema_dirs.cache_clear()


def test_versions_whose_definitions_differ_share_nothing(fake_versions: Path) -> None:
    data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    for order in (FAKE_VERSIONS, tuple(reversed(FAKE_VERSIONS))):
        cold("k8s.schema.shared_verdicts", "k8s.schema.passed")
        findings = SchemaValidator(order).validate(data)
        assert [(f.kube_versions, f.field, f.severity) for f in findings] == [
            (("1.91",), "metadata.name", "error")
        ]
        # the same as each version checked alone, uncached
        assert findings == [f for v in FAKE_VERSIONS for f in kubeschema.check_object(data, v)]
    # an object invalid everywhere: jsonschema's findings, shared where the closure is
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": 5}
    expected = [f for v in FAKE_VERSIONS for f in kubeschema.check_object(bad, v)]
    cold("k8s.schema.shared_verdicts", "k8s.schema.passed")
    assert SchemaValidator(FAKE_VERSIONS).validate(bad) == expected
    assert {f.kube_versions[0] for f in expected} == set(FAKE_VERSIONS)
    closures = {v: kubeschema.closure_digest(v, "ConfigMap", "v1") for v in FAKE_VERSIONS}
    assert None not in closures.values()
    assert closures["1.90"] == closures["1.92"] != closures["1.91"]
    fast = {v: kubeschema._fast(v, "ConfigMap", "v1") for v in FAKE_VERSIONS}
    assert fast["1.90"] is fast["1.92"] and fast["1.90"] is not fast["1.91"]
    # single definitions: shared where they and all they reach are the same text
    meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    owner = "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"
    assert kubeschema._reach("1.90", meta) != kubeschema._reach("1.91", meta)
    assert kubeschema._reach("1.90", owner) == kubeschema._reach("1.91", owner) is not None


def test_an_object_valid_under_a_shared_closure_is_checked_once(
    fake_versions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = kubeschema._Fast.passes

    def counting(self: kubeschema._Fast, data: Any) -> bool:
        calls.append(str(data["metadata"]["name"]))
        return real(self, data)

    monkeypatch.setattr(kubeschema._Fast, "passes", counting)
    data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "y"}}
    assert SchemaValidator(["1.90", "1.92"]).validate(data) == []
    assert calls == ["y"]


def _closure_text(version: str, name: str) -> dict[str, str] | None:
    """Every definition ``name`` reaches on ``version``, with its text's digest (a plain
    walk, to check the component digests against); None when one is missing."""
    root = kubeschema._schema_root()
    assert root is not None
    defs = kubeschema._fast_defs(version, root)
    assert defs is not None
    seen: dict[str, str] = {}
    todo = [name]
    while todo:
        n = todo.pop()
        if n not in seen:
            entry = defs.entry(n)
            if entry is None:
                return None
            seen[n] = entry[0]
            todo.extend(entry[1])
    return seen


def test_digests_taken_from_the_version_before_are_those_of_the_same_closure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closure digests of kinds computed version after version (most definitions' digests
    taken from the version before) are equal exactly where all they reach is."""
    versions = ("1.25", "1.30", *kubeschema.default_kube_versions())
    kinds = [
        ("DaemonSet", "apps/v1"),
        ("CustomResourceDefinition", "apiextensions.k8s.io/v1"),
        ("Service", "v1"),
        ("PodDisruptionBudget", "policy/v1"),
    ]
    copied: list[int] = []
    real = kubeschema._as_before

    def counting(version: str, defs: Any, roots: Any) -> None:
        before = len(kubeschema._reach_table(version))
        real(version, defs, roots)
        copied.append(len(kubeschema._reach_table(version)) - before)

    monkeypatch.setattr(kubeschema, "_as_before", counting)
    with isolated(*SCHEMA_MEMOS):
        for v in versions:
            for kind, api in kinds:
                assert kubeschema.closure_digest(v, kind, api) is not None
        assert sum(copied) > 100
        names = sorted({n for v in versions for n in kubeschema._reach_table(v)})
        for name in names:
            texts = {v: _closure_text(v, name) for v in versions}
            for a in versions:
                for b in versions:
                    if texts[a] is not None and texts[b] is not None:
                        same = texts[a] == texts[b]
                        assert (kubeschema._reach(a, name) == kubeschema._reach(b, name)) is same
        closures = {
            (v, kind): kubeschema.closure_digest(v, kind, api)
            for v in versions
            for kind, api in kinds
        }
    assert len(set(closures.values())) < len(closures)


def test_definition_digests_are_equal_exactly_when_all_they_reach_is() -> None:
    versions = ("1.25", "1.30", *kubeschema.default_kube_versions())
    with isolated(*SCHEMA_MEMOS):
        assert kubeschema.closure_digest(
            versions[-1], "CustomResourceDefinition", "apiextensions.k8s.io/v1"
        )
        names = sorted(_closure_text(versions[-1], "io.k8s.api.apps.v1.DaemonSet") or ())
        names += ["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"]
        equal = unequal = 0
        for name in names:
            texts = {v: _closure_text(v, name) for v in versions}
            for a in versions:
                assert (kubeschema._reach(a, name) is None) is (texts[a] is None)
                for b in versions:
                    if texts[a] is not None and texts[b] is not None:
                        same = texts[a] == texts[b]
                        assert (kubeschema._reach(a, name) == kubeschema._reach(b, name)) is same
                        equal, unequal = equal + same, unequal + (not same)
        assert equal > len(names) * len(versions) and unequal > 0


DIFFERENT = [
    {"a": 1},
    {"a": 1.0},
    {"a": True},
    {"a": "1"},
    {"a": None},
    {"a": [1]},
    {"a": {"b": 1}},
    {"a": -0.0},
    {"a": 0.0},
    {"a": "\u2013"},
    {"a": "\\u2013"},
    {"a": float("inf")},
    {"a\u0000": 1},
    {"b": 1, "a": 2},
    {"a": 2, "b": 1},
    {"a": "2024-01-01 00:00:00"},
    {"a": __import__("datetime").datetime(2024, 1, 1)},
]


def test_different_objects_never_share_a_verdict_key() -> None:
    """A verdict key names one object: any two different objects (a type, a sign, an
    escape, key order, a value that is not JSON beside the string it prints as) have
    different keys, and an equal copy has the same one."""
    keys = [kubeschema.object_key(d) for d in DIFFERENT]
    assert len(set(keys)) == len(DIFFERENT)
    assert keys == [kubeschema.object_key(copy.deepcopy(d)) for d in DIFFERENT]
