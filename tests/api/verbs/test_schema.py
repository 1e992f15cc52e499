"""``api.schema``: a published schema as a caller takes it, self-contained."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from renderer import api
from renderer.data.bundled import data_dir
from renderer.errors import InputError


def test_the_names_are_the_files_in_schemas_with_their_titles() -> None:
    names = api.schema_names()
    files = sorted(p.name.removesuffix(".schema.json") for p in data_dir("schemas").glob("*"))
    assert sorted(names) == files and list(names) == sorted(names)
    assert names["check-report"] == "calico-render check report"


def test_a_report_schema_inlines_the_finding_schema_once() -> None:
    schema = api.schema("validate")
    defs = schema["$defs"]
    assert "finding" in defs and "finding.$defs.toolVersion" in defs
    assert schema["properties"]["tool_version"] == {"$ref": "#/$defs/finding.$defs.toolVersion"}
    # the finding's own references now point into the inlined copies
    assert all(not r.startswith("finding.schema.json") for r in _refs(schema))


def test_a_plain_validate_takes_it_and_judges_with_it() -> None:
    """No registry, no files: the check jsonschema makes is the published one."""
    schema = api.schema("typha")
    report = {"tool": "calico-render typha", "tool_version": "1", "report_version": 2}
    with pytest.raises(jsonschema.ValidationError, match="'decision' is a required property"):
        jsonschema.validate(report, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**report, "report_version": "two"}, api.schema("typha"))


def test_an_unknown_name_is_an_input_error_naming_the_argument() -> None:
    with pytest.raises(InputError) as exc:
        api.schema("advise")
    assert exc.value.argument == "name" and exc.value.value == "advise"
    assert "did you mean advise-report?" in exc.value.message


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "$ref"] + [
            r for v in node.values() for r in _refs(v)
        ]
    if isinstance(node, list):
        return [r for item in node for r in _refs(item)]
    return []
