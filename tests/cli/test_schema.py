"""``calico-render schema``: the published schemas, self-contained, and every report the
tool writes valid against the printed schema by a plain ``jsonschema.validate``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from renderer import api
from renderer.data.bundled import data_dir
from tests.bke.installer import create_request
from tests.clihelp import one_error, run
from tests.gatehelp import TREE

SCHEMAS = data_dir("schemas")


def printed(capsys: pytest.CaptureFixture[str], name: str) -> dict[str, Any]:
    r = run(capsys, "schema", name)
    assert r.code == 0 and r.err == "", r.err
    schema: dict[str, Any] = json.loads(r.out)
    return schema


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for k, v in node.items() if k != "$ref" for r in refs(v)]
    if isinstance(node, list):
        return [r for item in node for r in refs(item)]
    return []


def test_schema_lists_every_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "schema")
    assert r.code == 0 and r.err == ""
    names = [line.split()[0] for line in r.out.splitlines()]
    assert names == sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.json"))
    assert "check-report" in names and " ".join(r.out.split()[:4]) == (
        "advise-report calico-render advise report"
    )


@pytest.mark.parametrize("name", sorted(api.schema_names()))
def test_a_printed_schema_is_self_contained(capsys: pytest.CaptureFixture[str], name: str) -> None:
    """Every reference is local and names something; the library gives the same."""
    schema = printed(capsys, name)
    jsonschema.Draft202012Validator.check_schema(schema)
    for ref in refs(schema):
        assert ref.startswith("#"), ref
        node: Any = schema
        for token in filter(None, ref[1:].split("/")):
            node = node[token.replace("~1", "/").replace("~0", "~")]
    assert schema == api.schema(name) == api.schema(f"{name}.schema.json")
    assert printed(capsys, name) == schema  # the same bytes each time: json.loads agrees


def test_an_unknown_schema_is_exit_2_naming_the_nearest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    message = one_error(run(capsys, "schema", "chek-report"))
    assert message.startswith("no schema named 'chek-report'; did you mean check-report?")


def _validate_input(tmp: Path) -> list[str]:
    bad = tmp / "bad.yaml"
    bad.write_text("kind: [\n", encoding="utf-8")
    return ["validate", str(bad), "--format", "json", "--output", str(tmp / "report.json")]


def _manifest(tmp: Path) -> str:
    path = tmp / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8")
    return str(path)


def _create_request(tmp: Path) -> str:
    path = tmp / "create.yaml"
    path.write_text(create_request(60, version="v3.31.3"), encoding="utf-8")
    return str(path)


#: Each report schema -> a command writing that report (to stdout, or to the file
#: ``report.json`` in the test's directory).
REPORTS: dict[str, Callable[[Path], list[str]]] = {
    "images-addons": lambda tmp: ["images", "--config", _create_request(tmp), "--addon", "calico"],
    "advise-report": lambda tmp: ["advise", "--version", "v3.28", "--nodes", "601"],
    "capability-report": lambda tmp: ["capability", "--manifests", str(TREE), "--version",
                                      "v9.4.0"],
    "check-report": lambda tmp: ["check", "--manifests", str(TREE), "--jobs", "1"],
    "explain-context": lambda tmp: ["explain-context", "--version", "v3.28", "--nodes", "3"],
    "images": lambda tmp: ["images", "--version", "v3.28"],
    "input-error": _validate_input,
    "plan": lambda tmp: ["plan", "--to-version", "v3.28", "--nodes", "60", "--from-nodes", "10"],
    "render-result": lambda tmp: ["render", "--config", _create_request(tmp)],
    "rules": lambda tmp: ["rules"],
    "typha": lambda tmp: ["typha", "--nodes", "601"],
    "validate": lambda tmp: ["validate", _manifest(tmp)],
    "versions": lambda tmp: ["versions"],
}  # fmt: skip
#: Reports written only with a registry to ask: their own tests validate them the same
#: way (tests/cli/test_images.py).
ELSEWHERE = {"images-registry", "image-lock"}


#: What the tool reads, not writes (and the finding, part of every report).
NOT_REPORTS = {"bke-fields", "bke-input", "exceptions", "finding", "render-context"}


def test_every_report_schema_has_a_command_here() -> None:
    """A schema added to schemas/ is a report to test here, or an input named above."""
    reports = {p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.json")}
    assert reports - NOT_REPORTS == set(REPORTS) | ELSEWHERE


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_every_report_meets_its_printed_schema_by_a_plain_validate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    """What a consumer does: the printed schema, ``jsonschema.validate``, nothing else."""
    args = REPORTS[name](tmp_path)
    if "--format" not in args:
        args = [*args, "--format", "json"]
    r = run(capsys, *args)
    written = tmp_path / "report.json"
    report = json.loads(written.read_text(encoding="utf-8") if written.exists() else r.out)
    jsonschema.validate(report, printed(capsys, name))


def test_the_files_resolve_their_references_from_their_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A validator given only the directory (each file by its file: URI, references
    read from the files beside it) validates a report; the old absolute ``$id`` on a
    host that does not exist made it "Unresolvable"."""

    def from_disk(uri: str) -> Resource[Any]:
        assert uri.startswith(SCHEMAS.as_uri() + "/"), uri
        path = Path(uri.removeprefix("file://"))
        return Resource.from_contents(json.loads(path.read_text(encoding="utf-8")))

    report = json.loads(run(capsys, "typha", "--nodes", "601", "--format", "json").out)
    uri = (SCHEMAS / "typha.schema.json").as_uri()
    # referencing declares its attrs classes with the pre-PEP 681 __dataclass_transform__,
    # which mypy does not read: it sees no fields, so not Registry's documented retrieve=.
    registry: Registry[Any] = Registry(retrieve=from_disk)  # type: ignore[call-arg]
    jsonschema.Draft202012Validator({"$ref": uri}, registry=registry).validate(report)
    for path in SCHEMAS.glob("*.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert schema["$id"] == path.name  # relative: resolved against where it is read
