"""Strict schema validation: findings, caches, and verdicts equal to kubernetes-validate's."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from kubernetes_validate.utils import SchemaNotFoundError

from renderer import api
from renderer.checks.verdict import capability_of
from renderer.errors import InputError
from renderer.finding import Finding
from renderer.k8s import schema as kubeschema
from renderer.k8s.crd import CrdSet
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.k8s.schema import SchemaValidator
from renderer.manifests.tree import list_versions
from tests.clihelp import ref
from tests.gatehelp import BROKEN, broken_variants, typha_on_objects


def _broken(name: str) -> list[K8sObject]:
    path = BROKEN / name
    return parse_stream(path.read_text(), str(path))


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

    def counting(data: dict[str, Any], version: str, crds: CrdSet | None = None) -> list[Finding]:
        calls.append(version)
        return real(data, version, crds)

    monkeypatch.setattr(kubeschema, "check_object", counting)
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    validator = SchemaValidator(["1.36", "1.37"])
    obj = _broken("misspelled.yaml")[0]
    first = validator.validate(obj)
    unlocated = [replace(f, file="", line=0) for f in first]
    assert validator.validate(copy.deepcopy(obj.data)) == unlocated
    assert calls == ["1.36", "1.37"]  # each version once
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


PARITY_VERSIONS = ("1.25", "1.37")


@pytest.mark.parametrize("version", PARITY_VERSIONS)
def test_verdicts_equal_library_on_fixtures_and_broken(version: str) -> None:
    objects = [o.data for o in typha_on_objects()]
    objects += [o.data for name in ("misspelled.yaml", "removed-api.yaml") for o in _broken(name)]
    objects += broken_variants()
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


def test_a_validator_keeps_findings_for_a_bounded_number_of_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    validator = SchemaValidator(kubeschema.default_kube_versions()[-1:], keep=2)
    for i in range(3):
        data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}}
        assert validator.validate(data) == []
    assert len(validator._results) == 2


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


def test_valid_objects_need_no_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled check proves every built-in object of a bundled render valid."""

    def boom(*_: Any) -> Any:
        raise AssertionError("jsonschema used for a valid object")

    monkeypatch.setattr(kubeschema, "validator_for", boom)
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    objects = api.render(api.Request.of("v3.28", 601)).objects
    builtin = [
        o for o in objects if kubeschema.is_builtin_group(kubeschema.api_group(o.api_version))
    ]
    assert builtin and SchemaValidator().validate_all(builtin) == []


# --- a copy of kubernetes-validate, its schema files edited -------------------------------

NEWEST = kubeschema.default_kube_versions()[-1]
META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def library_copy(tmp_path: Path) -> tuple[Path, Path]:
    """kubernetes-validate copied under ``tmp_path/site`` with its newest strict schemas
    only (a process with that directory on PYTHONPATH reads these), and their folder."""
    source = Path(str(files("kubernetes_validate")))
    site = tmp_path / "site"
    schemas = site / "kubernetes_validate" / "kubernetes-json-schema"
    schemas.mkdir(parents=True)
    for module in source.glob("*.py"):
        shutil.copy(module, schemas.parent)
    folder = schemas / kubeschema.schema_dir(NEWEST)
    shutil.copytree(source / "kubernetes-json-schema" / folder.name, folder)
    return site, folder


def run_with(site: Path, *args: str) -> tuple[int, str, str]:
    """A fresh process of ``python args`` reading the library copied to ``site``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CALICO_RENDER_")}
    env.update(PYTHONPATH=str(site), CALICO_RENDER_CACHE_DIR=str(site.parent / "cache"))
    done = subprocess.run(
        [sys.executable, *args], cwd=site, env=env, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


def edit_in_place(path: Path, change: Callable[[Any], None]) -> None:
    """Rewrite a JSON file with ``change`` made, its modification time kept."""
    stat = path.stat()
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _configmap_v2(schema: Any) -> None:
    schema["properties"]["apiVersion"]["enum"] = ["v2"]


def _integer_names(definitions: Any) -> None:
    definitions["$defs"][META]["properties"]["name"]["type"] = "integer"


@pytest.mark.parametrize(
    ("edited", "change", "field"),
    [
        ("configmap-v1.json", _configmap_v2, "ConfigMap kube-system/calico-config apiVersion"),
        ("_definitions.json", _integer_names, "metadata.name"),
    ],
)
def test_a_schema_file_edited_in_place_moves_the_cached_answer(
    tmp_path: Path, edited: str, change: Callable[[Any], None], field: str
) -> None:
    """The result cache is keyed by the schema files' bytes: after an edit, a cached
    render answers what an uncached one does, not what it answered before."""
    site, folder = library_copy(tmp_path)
    render = ("-m", "renderer", "--version", "v3.28", "--nodes", "3")
    before = run_with(site, *render)  # fills the cache
    assert before[0] == 0 and "schema-invalid" not in before[2]
    assert run_with(site, *render) == before  # and answers from it
    edit_in_place(folder / edited, change)
    cached = run_with(site, *render)
    assert cached == run_with(site, *render, "--no-cache") != before
    assert cached[0] == 1 and "[schema-invalid]" in cached[2] and field in cached[2]
    assert f"(kube {NEWEST})" in cached[2]


CHECK_CONFIGMAP = """
import json
from renderer.k8s.schema import check_object
data = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
print(json.dumps([[f.rule, f.severity, f.field, f.message] for f in check_object(data, %r)]))
"""


@pytest.mark.parametrize(
    ("edited", "text", "why"),
    [
        ("configmap-v1.json", "{", "JSONDecodeError"),
        ("configmap-v1.json", "[]", "no $schema"),
        ("configmap-v1.json", '{"$schema": "https://example.com/s"}', "UnknownDialect"),
        ("configmap-v1.json", None, "IsADirectoryError"),
        ("_definitions.json", '{"$defs": {}}', "no $schema"),
        ("_definitions.json", b"\xff{}", "UnicodeDecodeError"),
        ("_definitions.json", "", "JSONDecodeError"),
    ],
)
def test_a_schema_that_cannot_be_read_is_a_finding(
    tmp_path: Path, edited: str, text: str | bytes | None, why: str
) -> None:
    site, folder = library_copy(tmp_path)
    path = folder / edited
    if text is None:
        path.unlink()
        path.mkdir()
    elif isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    code, out, err = run_with(site, "-c", CHECK_CONFIGMAP % NEWEST)
    assert code == 0, err
    [[rule, severity, field, message]] = json.loads(out)
    assert (rule, severity, field) == (kubeschema.INVALID, "error", "")
    assert message.startswith("the schema for ConfigMap v1 could not be read (") and why in message


def test_a_kind_the_version_does_not_ship_is_no_schema(tmp_path: Path) -> None:
    site, folder = library_copy(tmp_path)
    (folder / "configmap-v1.json").unlink()
    code, out, err = run_with(site, "-c", CHECK_CONFIGMAP % NEWEST)
    assert code == 0, err
    [[rule, _, field, message]] = json.loads(out)
    assert (rule, field) == (kubeschema.INVALID, "apiVersion") and "serves no ConfigMap" in message
