"""The Calico image rules: which references are Calico's, their tag, repo and version."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.calico.rules import run_rules
from renderer.calico.rules.images import CALICO_IMAGE
from tests.calico.rules.inputs import pod_spec, rule_input
from tests.clihelp import ref


@pytest.mark.parametrize(
    ("image", "prefix", "name", "tag"),
    [
        ("calico/node:v3.28.2", "", "node", "v3.28.2"),
        (
            "registry.example.com/openfuyao/calico/cni:v3.28.2",
            "registry.example.com/openfuyao/",
            "cni",
            "v3.28.2",
        ),
        ("host:5000/calico/typha:v3.31.3@sha256:ab", "host:5000/", "typha", "v3.31.3"),
        ("docker.io/calico/kube-controllers", "docker.io/", "kube-controllers", None),
    ],
)
def test_calico_images_are_recognised(image: str, prefix: str, name: str, tag: str | None) -> None:
    m = CALICO_IMAGE.match(image)
    assert m is not None
    assert (m.group("prefix"), m.group("name"), m.group("tag")) == (prefix, name, tag)


@pytest.mark.parametrize(
    "image", ["quay.io/notcalico/foo:1.0", "mycalico/node:v1", "registry/tigera/operator:v1.34"]
)
def test_other_images_are_not_calico(image: str) -> None:
    assert CALICO_IMAGE.match(image) is None


def test_image_tag_and_repo() -> None:
    def other(d: dict[str, Any]) -> None:
        pod_spec(d)["containers"][0]["image"] = "docker.io/calico/node:v9.0.9"

    findings = run_rules(rule_input(other, "DaemonSet", "calico-node"))
    tags = [f for f in findings if f.rule == "calico-image-tag"]
    assert {ref(f.object) for f in tags} == {"DaemonSet kube-system/calico-node"}
    assert {f.field for f in tags} == {"spec.template.spec.containers[0].image"}
    assert any("not tagged v9.1.0" in f.message for f in tags)
    assert any("does not start with repo" in f.message for f in tags)
    [mixed] = [f for f in findings if f.rule == "calico-one-version"]
    assert (
        "v9.0.9: node" in mixed.message and "v9.1.0: cni, kube-controllers, typha" in mixed.message
    )


def test_non_calico_images_are_ignored() -> None:
    def other(d: dict[str, Any]) -> None:
        pod_spec(d)["containers"].append({"name": "sidecar", "image": "busybox:1.36"})

    assert run_rules(rule_input(other, "DaemonSet", "calico-node")) == []
