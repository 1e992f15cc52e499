"""What a render returns: the rendered files, the decision that shaped them, the objects
parsed once on demand, and the schema check that says whether the render may be written."""

from __future__ import annotations

from typing import Any

import pytest

from renderer import api
from renderer.api import results
from renderer.api.results import RenderCheck
from renderer.finding import ERROR, SCHEMA, WARNING, Finding, ObjectRef
from renderer.k8s.parse import parse_rendered

DEPLOY = ObjectRef("Deployment", "calico-typha", "kube-system", "apps/v1")


def test_render_objects_are_parsed_once_and_validated_from_the_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = parse_rendered

    def counting(files: Any) -> Any:
        calls.append(1)
        return real(files)

    monkeypatch.setattr(results, "parse_rendered", counting)
    result = api.render(api.Request.of("v3.28", 601))
    assert calls == []  # lazily
    objects = result.objects
    assert any(o.kind == "Deployment" and o.name == "calico-typha" for o in objects)
    check = api.validate_render(result, ["1.30"])
    assert result.objects is objects and calls == [1]
    assert check.ok and check.kube_versions == ("1.30",) and check.errors == []
    assert all(f.file for f in check.findings)


def test_the_decision_and_the_stream_are_the_render_s() -> None:
    result = api.render(api.Request.of("v3.28", 601))
    assert result.decision is result.route.decision
    assert result.decision.context() == {"allowTypha": "true", "typhaReplicas": "4"}
    stream = result.stream()
    heads = [stream.find(f"---\n# Source: calico/{f.name}\n") for f in result.files if not f.empty]
    assert heads[0] == 0 and heads == sorted(set(heads))  # each once, in file order
    # every parsed object's file is one of the rendered files
    assert {o.file for o in result.objects} <= {f.name for f in result.files}


def _schema(severity: str, kube: str, field: str = "spec.x") -> Finding:
    return Finding(
        "schema-invalid", severity, "unknown field", stage=SCHEMA, object=DEPLOY, field=field,
        kube_versions=(kube,),
    )  # fmt: skip


def test_one_error_per_problem_whatever_the_kubernetes_versions() -> None:
    check = RenderCheck(
        ("1.29", "1.30"),
        (_schema(ERROR, "1.29"), _schema(ERROR, "1.30"), _schema(WARNING, "1.30", "spec.y")),
    )
    [error] = check.errors
    assert (error.field, error.kube_versions) == ("spec.x", ("1.29", "1.30"))
    assert not check.ok


def test_warnings_alone_leave_the_render_writable() -> None:
    check = RenderCheck(("1.30",), (_schema(WARNING, "1.30"),))
    assert check.errors == [] and check.ok
    assert RenderCheck(("1.30",), ()).ok
