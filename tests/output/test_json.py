"""The JSON format: the document's data, checked against its schema, spelled as the
document says (key order, ASCII escapes), one trailing newline."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer import api, output
from tests.output.cases import DOCUMENTS


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_json(name: str, data_regression: DataRegressionFixture) -> None:
    document = DOCUMENTS[name]()
    text = output.render("json", document)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    data = json.loads(text)
    assert data == document.data()
    expected = json.dumps(
        data, indent=2, sort_keys=document.sort_keys, ensure_ascii=document.ensure_ascii
    )
    assert text == expected + "\n"  # same keys in the same order, same escapes
    jsonschema.validate(data, api.schema(document.schema))  # as a consumer validates it
    data_regression.check(data, basename=f"json-{name}")


@dataclass(frozen=True)
class Off(output.Document):
    """A document whose data does not meet its schema."""

    schema = "typha.schema.json"

    def data(self) -> Any:
        return {"tool": 1}

    def text(self) -> str:
        return ""


def test_data_not_meeting_its_schema_is_our_bug() -> None:
    with pytest.raises(AssertionError, match=r"typha\.schema\.json"):
        output.render("json", Off())
    assert output.render("text", Off()) == ""
