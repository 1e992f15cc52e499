"""The text format: each document's human form, whole, as a command prints it."""

from __future__ import annotations

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from renderer import output
from tests.output.cases import DOCUMENTS


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_text(name: str, file_regression: FileRegressionFixture) -> None:
    document = DOCUMENTS[name]()
    text = output.render("text", document)
    assert text == "" or text.endswith("\n")
    file_regression.check(text, basename=f"text-{name}", extension=".txt")
