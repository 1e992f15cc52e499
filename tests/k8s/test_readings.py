"""readings: the yaml-1.1-reading warning, one per scalar BKE's controller reads
otherwise than YAML 1.2, at its template line."""

from __future__ import annotations

from renderer.engine.compile import compile_source
from renderer.finding import SCHEMA, WARNING, ObjectRef
from renderer.k8s.parse import parse_stream
from renderer.k8s.readings import RULE, field_path, reading_findings

TEMPLATE = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}
  labels:
    enabled: {{ .enabled }}
data:
  mode: "on"
  {{ .key }}: x
"""


def test_a_warning_names_the_file_the_template_line_and_both_readings() -> None:
    compiled = compile_source(TEMPLATE, "cm.yaml", "go")
    text, lines = compiled.render_mapped({"name": "cm", "enabled": "yes", "key": "y"})
    found = reading_findings(parse_stream(text, "cm.yaml", lines=lines))
    assert [(f.rule, f.severity, f.stage, f.file, f.line, f.field) for f in found] == [
        (RULE, WARNING, SCHEMA, "cm.yaml", 7, "metadata.labels.enabled"),
        (RULE, WARNING, SCHEMA, "cm.yaml", 10, "data.true"),
    ]
    assert {f.object for f in found} == {ObjectRef("ConfigMap", "cm", "", "v1")}
    assert [f.message for f in found] == [
        'value `yes` is true to BKE\'s controller (YAML 1.1), "yes" in YAML 1.2; '
        "quote it to keep the string",
        'key `y` is "true" to BKE\'s controller (YAML 1.1), "y" in YAML 1.2; '
        "quote it to keep the string",
    ]


def test_scalars_both_readings_agree_on_give_no_warning() -> None:
    text = "---\nkind: A\nv: [true, 10, 0x1F, 1e3, 'yes', \"010\", ~, x]\n"
    assert reading_findings(parse_stream(text, "a.yaml")) == []


def test_a_number_yaml_1_2_reads_otherwise_is_a_warning_without_advice() -> None:
    [finding] = reading_findings(parse_stream("kind: A\nmode: 010\n", "a.yaml"))
    assert finding.message == "value `010` is 8 to BKE's controller (YAML 1.1), 10 in YAML 1.2"
    assert (finding.line, finding.field) == (2, "mode")


def test_field_paths_are_written_as_findings_write_them() -> None:
    assert field_path(("spec", "containers", 0, "env", 2, "value")) == (
        "spec.containers[0].env[2].value"
    )
    assert field_path(()) == ""
