"""The registry of output formats: names, lookup, and what ``--format`` offers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import click
import pytest

from renderer import api, output
from renderer.cli.options import format_option
from renderer.output.capability import CapabilityDocument
from renderer.output.check import CheckDocument
from renderer.output.documents import AdviceDocument, TyphaDocument
from renderer.output.html import HtmlFormat

# The commands that offer HTML (check, capability) import it; so does this module, so
# the registry holds it whichever test module ran first.
assert isinstance(output.get("html"), HtmlFormat)


@dataclass(frozen=True)
class Marked(output.Document):
    """A document only the test format below supports."""

    schema = "typha.schema.json"

    def data(self) -> Any:
        return {}

    def text(self) -> str:
        return ""


class UpperFormat:
    """A format for :class:`Marked` documents only."""

    name = "upper"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, Marked)

    def render(self, document: output.Document) -> str:
        return document.text().upper()


@pytest.fixture
def upper() -> Iterator[UpperFormat]:
    fmt = UpperFormat()
    output.register(fmt)
    yield fmt
    output.unregister(fmt.name)


def test_builtin_formats_in_order() -> None:
    assert list(output.BUILTIN) == ["text", "json", "junit", "sarif", "codequality"]
    assert output.names() == [*output.BUILTIN, "html"]
    assert [output.get(n).name for n in output.names()] == [*output.BUILTIN, "html"]


@pytest.mark.parametrize(
    ("kind", "names"),
    [
        (TyphaDocument, ["text", "json"]),
        (CapabilityDocument, ["text", "json", "sarif", "codequality", "html"]),
        (AdviceDocument, ["text", "json"]),
        (CheckDocument, ["text", "json", "junit", "sarif", "codequality", "html"]),
    ],
)
def test_junit_sarif_codequality_only_for_documents_that_carry_them(
    kind: type[output.Document], names: list[str]
) -> None:
    assert output.names(kind) == names


def test_a_format_is_offered_only_for_documents_it_supports(upper: UpperFormat) -> None:
    assert output.names() == ["text", "json", "junit", "sarif", "codequality", "html", "upper"]
    assert output.names(TyphaDocument) == ["text", "json"]
    assert output.names(Marked) == ["text", "json", "upper"]
    with pytest.raises(ValueError, match="cannot render"):
        output.render("upper", TyphaDocument.of(api.typha(3)))


def test_format_option_takes_its_choices_from_the_document(upper: UpperFormat) -> None:
    def choices(decorator: Any) -> list[str]:
        command = click.command()(decorator(lambda fmt: None))
        (param,) = command.params
        assert isinstance(param.type, click.Choice)
        return list(param.type.choices)

    assert choices(format_option(TyphaDocument)) == ["text", "json"]
    assert choices(format_option(Marked)) == ["text", "json", "upper"]
    assert choices(format_option(["text", "json", "junit"])) == ["text", "json", "junit"]


@pytest.mark.parametrize(
    ("action", "error"),
    [
        (lambda: output.get("xml"), KeyError),
        (lambda: output.register(output.get("text")), ValueError),
    ],
    ids=["unknown-name", "registered-twice"],
)
def test_registry_errors(action: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        action()
