"""The render's document: its JSON meets render-result.schema.json and its text is the
lines a person reads beside the manifest."""

from __future__ import annotations

import jsonschema

from renderer import api
from renderer.calico import policy
from renderer.finding import Finding
from renderer.output.render_result import RenderDocument


def _document(
    findings: tuple[Finding, ...] = (),
    warnings: tuple[str, ...] = (),
    notes: tuple[str, ...] = (),
    images: dict[str, list[str]] | None = None,
    written: dict[str, str] | None = None,
    exit_code: int = 0,
) -> RenderDocument:
    route = policy.route(601, True, "install", version="v3.28.2")
    return RenderDocument(
        "bundled tree", "v3.28.2", 601, route, findings, warnings, notes, (), images, written,
        exit_code,
    )  # fmt: skip


def test_the_json_meets_its_published_schema() -> None:
    finding = Finding("schema-invalid", "error", "unknown field", stage="schema", file="a.yaml")
    data = _document(
        findings=(finding,),
        images={"worker": ["r/calico/cni:v3.28.2"]},
        written={"out/a.yaml": "0" * 64},
        exit_code=1,
    ).data()
    jsonschema.validate(data, api.schema("render-result"))
    assert data["decision"] == {**route_context(), "reason": data["decision"]["reason"]}
    assert data["written"] == [{"path": "out/a.yaml", "sha256": "0" * 64}]


def route_context() -> dict[str, str]:
    return {"allowTypha": "true", "typhaReplicas": "4"}


def test_the_text_leads_with_the_decision_and_says_why_nothing_was_written() -> None:
    finding = Finding("schema-invalid", "error", "unknown field", stage="schema", file="a.yaml")
    text = _document(findings=(finding,), warnings=("w",), notes=("n",)).text().splitlines()
    assert text[0] == "calico-render: n" and text[1] == "calico-render: warning: w"
    assert "allowTypha=true typhaReplicas=4" in text[2]
    assert text[-1] == "calico-render: 1 error finding(s); nothing written"


def test_a_refused_install_has_no_decision_line() -> None:
    refused = policy.route(601, False, "install", version="v3.27.3")
    text = RenderDocument("bundled tree", "v3.27.3", 601, refused, exit_code=3).text()
    assert "allowTypha" not in text
