"""Source maps: findings about rendered objects name the template line that produced
them, on BKE's real single-file v3.31.3 (a Typha conditional, images behind ``repo``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from renderer import api
from renderer.checks.pipeline import release_rules
from renderer.checks.verdict import capability_of
from renderer.engine.gotemplate import compile_go
from renderer.engine.jinja import JinjaTemplate
from renderer.engine.render import RenderedFile, documents
from renderer.engine.sourcemap import SourceMap, template_line
from renderer.errors import InputError
from renderer.k8s.locate import field_line
from renderer.k8s.parse import K8sObject, parse_files, parse_stream
from renderer.manifests.tree import resolve_version

REAL = Path(__file__).parents[1] / "fixtures" / "bke-real"
CALICO = REAL / "kubernetes" / "calico" / "v3.31.3" / "calico.yaml"


def _render(root: Path, nodes: int = 601, kube: list[str] | None = None) -> api.RenderResult:
    return api.render(api.Request.of("v3.31.3", nodes, root=root, kube=kube))


def _object(objects: tuple[K8sObject, ...], kind: str, name: str) -> K8sObject:
    return next(o for o in objects if o.kind == kind and o.name == name)


def _file(result: api.RenderResult, obj: K8sObject) -> RenderedFile:
    return next(f for f in result.files if f.name == obj.file)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "kubernetes" / "calico" / "v3.31.3"
    target.mkdir(parents=True)
    shutil.copy(CALICO, target / "calico.yaml")
    return target / "calico.yaml"


def test_object_start_is_the_template_line() -> None:
    result = _render(REAL)
    typha = _object(result.objects, "Deployment", "calico-typha")
    assert (typha.file, typha.source_line) == ("v3.31.3/calico.yaml", 7467)
    assert typha.line != typha.source_line  # the rendered line is elsewhere
    assert typha.where == "v3.31.3/calico.yaml:7467"


def test_every_rendered_line_maps_to_its_template_line() -> None:
    source = CALICO.read_text().splitlines()
    result = _render(REAL)
    (f,) = result.files
    assert f.lines is not None
    rendered, lines = f.text.splitlines(), f.lines.lines()
    assert len(lines) == len(rendered)
    literal = [i for i, line in enumerate(rendered) if "{{" not in source[lines[i] - 1]]
    assert all(rendered[i] == source[lines[i] - 1] for i in literal)
    assert len(literal) > len(rendered) - 10


def test_field_inside_a_conditional_block() -> None:
    result = _render(REAL)
    node = _object(result.objects, "DaemonSet", "calico-node")
    f = _file(result, node)
    containers = node.data["spec"]["template"]["spec"]["containers"]
    env = containers[0]["env"]
    i = next(i for i, e in enumerate(env) if e["name"] == "FELIX_TYPHAK8SSERVICENAME")
    path: list[str | int] = ["spec", "template", "spec", "containers", 0, "env", i, "name"]
    line = field_line(f.text, f.lines, node.line, path)
    assert line is not None
    assert CALICO.read_text().splitlines()[line - 1].strip() == "- name: FELIX_TYPHAK8SSERVICENAME"
    assert line > 7217  # inside {{- if eq .allowTypha "true" }} of line 7217


def test_image_bump_is_located_at_its_template_line(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    lines = copy.read_text().splitlines(keepends=True)
    assert "calico/node:v3.31.3" in lines[7175]
    lines[7175] = lines[7175].replace("calico/node:v3.31.3", "calico/node:v3.31.4")
    copy.write_text("".join(lines))
    report = capability_of(resolve_version("v3.31.3", tmp_path))
    findings = [
        f for f in release_rules(report) if f.rule in ("calico-one-version", "calico-image-tag")
    ]
    assert {(f.rule, f.file, f.line) for f in findings} == {
        ("calico-one-version", "v3.31.3/calico.yaml", 7176),
        ("calico-image-tag", "v3.31.3/calico.yaml", 7176),
    }
    assert all(f.rendered_line != 7176 for f in findings)  # the object's rendered line
    result = _render(tmp_path)
    node = _object(result.objects, "DaemonSet", "calico-node")
    init = node.data["spec"]["template"]["spec"]["initContainers"]
    i = next(i for i, c in enumerate(init) if c["image"].endswith("calico/node:v3.31.4"))
    path: list[str | int] = ["spec", "template", "spec", "initContainers", i, "image"]
    assert field_line(_file(result, node).text, _file(result, node).lines, node.line, path) == 7176


def test_indentation_error_names_the_template_line(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    lines = copy.read_text().splitlines(keepends=True)
    assert lines[7510].startswith("      terminationGracePeriodSeconds: 300")
    lines[7510] = "   " + lines[7510]
    copy.write_text("".join(lines))
    with pytest.raises(InputError) as err:
        _ = _render(tmp_path).objects
    assert (err.value.file, err.value.line) == ("v3.31.3/calico.yaml", 7511)


def test_jinja_dialect_maps_lines() -> None:
    src = (
        "a: 1\n{% if x %}\nb: {{ x }}\nc: 2\n{% endif %}\n"
        "d:\n{%- for i in [1, 2] %}\n  - {{ i }}\n{%- endfor %}\ne: 3\n"
    )
    t = JinjaTemplate(src, "t.yaml.j2")
    text, source = t.render_mapped({"x": "yes"})
    assert text == t.render({"x": "yes"})
    rendered, lines = text.splitlines(), source.lines()
    assert len(lines) == len(rendered)
    assert dict(zip(rendered, lines, strict=True)) | {"": 0} == {
        "a: 1": 1,
        "b: yes": 3,
        "c: 2": 4,
        "d:": 6,
        "  - 1": 8,
        "  - 2": 8,
        "e: 3": 10,
        "": 0,
    }


def test_go_action_lines_and_macros() -> None:
    src = (
        'a: {{ .x }}\n{{ define "inner" }}x: 1\ny: 2\n'
        '{{ end }}{{ template "inner" }}z: {{ "m\\nn" }}\n'
    )
    t = compile_go(src, "t")
    text, source = t.render_mapped({"x": "v"})
    assert text == t.render({"x": "v"}) == "a: v\nx: 1\ny: 2\nz: m\nn\n"
    assert source.lines() == [1, 4, 4, 4, 4]


def test_go_lines_inside_deeply_nested_blocks() -> None:
    """The interpreter marks every top-level chunk at any depth, each with its own line."""
    depth = 12
    src = "{{ if .x }}\n" * depth + "a: 1\nb: {{ .x }}\n" + "{{ end }}" * depth
    text, source = compile_go(src, "t").render_mapped({"x": "v"})
    assert text == "\n" * depth + "a: 1\nb: v\n"
    assert source.lines()[depth:] == [depth + 1, depth + 2]


def test_source_map_segments() -> None:
    source = SourceMap()
    source.add("a\nb", 3)  # text from line 3
    source.add("X\nY\n", -9)  # an action on line 9
    source.add("c\n", 5, 1)  # text from line 5, newlines counted at compile time
    assert (source.lines(), len(source)) == ([3, 4, 9, 5], 4)
    assert template_line(source, 2) == 4 and template_line(source, 99) == 5
    assert template_line(None, 1) is None and template_line(source, None) is None
    assert SourceMap.identity("a\nb\n").lines() == [1, 2]


def test_stream_heads_every_document_with_its_source_like_helm() -> None:
    result = api.render(api.Request.of("v3.28", 601))
    stream = result.stream()
    docs = stream.split("---\n")[1:]
    assert docs and all(d.startswith("# Source: calico/v3.28.2/") for d in docs)
    assert [o.data for o in parse_stream(stream, "-")] == [
        o.data for o in parse_files((f.name, f.text) for f in result.files)
    ]
    assert documents("a: 1\n--- # x\nb: 2\n---\n\n---\nc: 3") == ["a: 1\n", "# x\nb: 2\n", "c: 3\n"]


def test_schema_error_names_the_field_template_line(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    lines = copy.read_text().splitlines(keepends=True)
    lines[7510] = lines[7510].replace("300", '"soon"')
    copy.write_text("".join(lines))
    (error,) = _render(tmp_path, kube=["1.34"]).errors
    assert (error.field, error.file, error.line) == (
        "spec.template.spec.terminationGracePeriodSeconds",
        "kubernetes/calico/v3.31.3/calico.yaml",
        7511,
    )
