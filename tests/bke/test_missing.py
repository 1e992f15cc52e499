"""renderer/bke/missing.py: a key the context lacks, named where a template reads it,
with whose fault its absence is."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.bke import missing
from renderer.engine.render import RenderedFile, render_each
from renderer.errors import TemplateError
from renderer.finding import ERROR, WARNING
from renderer.k8s.parse import parse_rendered
from renderer.manifests.tree import resolve_version

TEMPLATE = """\
# {{ .inComment }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: {{ .namespace }}
data:
  corefile: |
    bind {{ .localdns }}
    other {{ .dnsIP }}
  node: {{ .nodesIps }}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: kube-system}
spec:
  replicas: {{ .replicas }}
  template:
    spec:
      containers:
        - name: c
          image: x:{{ .tag.major }}
"""


def render(
    tmp_path: Path, addon: str, files: dict[str, str], context: dict[str, object]
) -> tuple[list[RenderedFile], dict[str, TemplateError]]:
    directory = tmp_path / "kubernetes" / addon / "v1"
    directory.mkdir(parents=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    vdir = resolve_version("v1", tmp_path, addon)
    return render_each(vdir, {tf.name: dict(context) for tf in vdir.files})


@pytest.mark.parametrize(
    ("key", "addon", "listed", "kind"),
    [
        ("dnsIP", "coredns", True, missing.CONTROLLER),
        ("repo", "anything", False, missing.CONTROLLER),
        ("typhaReplicas", "calico", True, missing.CONTROLLER),
        ("typhaReplicas", "coredns", True, missing.PARAM),
        ("apiServerSrcHost", "coredns", True, missing.CONDITIONAL),
        ("DNSserver", "nodelocaldns", True, missing.CONDITIONAL),
        ("domain", "nodelocaldns", True, missing.CONTROLLER),
        ("localdns", "nodelocaldns", True, missing.PARAM),
        ("clusterToken.x", "cluster-api", True, missing.CONDITIONAL),
        ("nodesIps", "clusterextra", False, missing.CONTROLLER),
        ("nodesIps", "clusterextra", True, missing.PARAM),
        ("nodesIps", "bkeagent-update", True, missing.PARAM),
    ],
)
def test_who_sets_a_key(key: str, addon: str, listed: bool, kind: str) -> None:
    assert missing.supplier(key, addon, "v1", listed=listed)[0] == kind


def test_no_value_printed_into_objects_is_named_at_the_template_line(tmp_path: Path) -> None:
    """Not in a comment; at the field it landed in; nested reads name their first key."""
    context = {"namespace": "kube-system", "nodesIps": "a", "replicas": 1}
    files, failed = render(tmp_path, "nodelocaldns", {"x.yaml": TEMPLATE}, context)
    assert not failed
    found = missing.no_value_reads(files, parse_rendered(files), "nodelocaldns", "v1", listed=True)
    got = [(f.line, f.details.key, f.details.supplier, str(f.object), f.field) for f in found]  # type: ignore[union-attr]
    assert got == [
        (9, "localdns", missing.PARAM, "ConfigMap kube-system/cm", "data.corefile"),
        (10, "dnsIP", missing.CONTROLLER, "ConfigMap kube-system/cm", "data.corefile"),
        (22, "tag", missing.PARAM, "Deployment kube-system/d",
         "spec.template.spec.containers[0].image"),
    ]  # fmt: skip
    assert {f.severity for f in found} == {WARNING} and {f.rule for f in found} == {
        missing.MISSING_RULE
    }
    assert "calico-render's context lacks it (a bug of calico-render)" in found[1].message
    assert "only the addon's param localdns can" in found[0].message


def test_a_file_failing_on_a_missing_key_is_an_error_naming_it(tmp_path: Path) -> None:
    files, failed = render(tmp_path, "clusterextra", {"agent-command.yaml":
                           "a: {{ split .nodesIps \",\" }}\n"}, {"namespace": "x"})  # fmt: skip
    assert not files
    found = missing.failed_read(
        failed["agent-command.yaml"], {"namespace": "x"}, "clusterextra", "v1", listed=False
    )
    assert found is not None
    assert (found.severity, found.line, found.details.key, found.details.supplier) == (  # type: ignore[union-attr]
        ERROR, 1, "nodesIps", missing.CONTROLLER,
    )  # fmt: skip


def test_a_failure_on_anything_else_is_no_missing_key(tmp_path: Path) -> None:
    _, failed = render(tmp_path, "coredns", {"a.yaml": "a: {{ .x.y }}\n"}, {"x": "s"})
    assert missing.failed_read(failed["a.yaml"], {"x": "s"}, "coredns", "v1", listed=True) is None
