"""What a render returns: the rendered files, the decision that shaped them, the objects
parsed, every finding, and the exit code that says whether the render may be written."""

from __future__ import annotations

from pathlib import Path

from renderer import api
from renderer.finding import ERROR
from tests.gatehelp import write_tree


def test_a_render_holds_its_objects_findings_and_exit_code() -> None:
    result = api.render(api.Request.of("v3.28", 601, kube=["1.30"]))
    assert any(o.kind == "Deployment" and o.name == "calico-typha" for o in result.objects)
    assert result.kube_versions == ("1.30",)
    assert [f for f in result.findings if f.severity == ERROR] == []
    assert result.exit_code == 0
    assert all(f.file for f in result.findings)


def test_the_decision_and_the_stream_are_the_render_s() -> None:
    result = api.render(api.Request.of("v3.28", 601))
    assert result.decision is result.route.decision
    assert result.decision.context() == {"allowTypha": "true", "typhaReplicas": "4"}
    stream = result.stream()
    heads = [stream.find(f"---\n# Source: calico/{f.name}\n") for f in result.files if not f.empty]
    assert heads[0] == 0 and heads == sorted(set(heads))  # each once, in file order
    # every parsed object's file is one of the rendered files
    assert {o.file for o in result.objects} <= {f.name for f in result.files}


def test_what_each_role_pre_pulls_is_read_from_the_render() -> None:
    images = api.render(api.Request.of("v3.28", 601)).prepull()
    assert [i.split("/")[-1] for i in images["worker"]] == ["cni:v3.28.2", "node:v3.28.2"]
    assert images["master"] == images["worker"]
    assert images["etcd"] == ()


def test_an_invalid_object_is_an_error_finding_and_exit_1(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        "v9.9.9",
        {
            "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: d}\n"
            "data: {a: b}\nbogus: 1\n"
        },
    )
    result = api.render(api.Request.of("v9.9.9", 3, root=root, kube=["1.30"]))
    [error] = [f for f in result.findings if f.severity == ERROR]
    assert (error.rule, error.field) == ("schema-invalid", "bogus")
    assert error.file == "kubernetes/calico/v9.9.9/a.yaml" and error.line == 5
    assert result.exit_code == 1
