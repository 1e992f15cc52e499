"""The Calico image rules: which references are Calico's, their tag, repo and version."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from renderer.calico.rules import run_rules
from renderer.calico.rules.images import CALICO_IMAGE
from renderer.calico.rules.registry import RuleInput
from renderer.k8s.parse import K8sObject
from tests.calico.rules.inputs import pod_spec, rule_input
from tests.clihelp import ref
from tests.gatehelp import REPO


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
    [registry] = [f for f in findings if f.rule == "calico-one-registry"]
    assert (ref(registry.object), registry.field) == (
        "DaemonSet kube-system/calico-node",
        "spec.template.spec.containers[0].image",
    )
    [mixed] = [f for f in findings if f.rule == "calico-one-version"]
    assert (
        "v9.0.9: node" in mixed.message and "v9.1.0: cni, kube-controllers, typha" in mixed.message
    )


def test_non_calico_images_are_ignored() -> None:
    def other(d: dict[str, Any]) -> None:
        pod_spec(d)["containers"].append({"name": "sidecar", "image": "busybox:1.36"})

    assert run_rules(rule_input(other, "DaemonSet", "calico-node")) == []


def test_one_registry_without_repo() -> None:
    """With ``repo`` empty the templates' default registry applies: one image with a
    misspelled default stands out from the others."""

    def typo(d: dict[str, Any]) -> None:
        c = pod_spec(d)["containers"][0]
        c["image"] = "hub.oepkgs.nte/openfuyao/calico/" + c["image"].rpartition("/")[2]

    def strip(data: RuleInput) -> RuleInput:
        objects = []
        for o in data.objects:
            text = json.dumps(o.data).replace(REPO, "hub.oepkgs.net/openfuyao/")
            objects.append(K8sObject(o.file, o.index, o.line, json.loads(text)))
        return replace(data, objects=objects, context={"repo": ""})

    assert [f for f in run_rules(strip(rule_input())) if f.rule == "calico-one-registry"] == []
    found = [f for f in run_rules(strip(rule_input(typo))) if f.rule == "calico-one-registry"]
    assert [(ref(f.object), f.field, f.severity) for f in found] == [
        ("Deployment kube-system/calico-typha", "spec.template.spec.containers[0].image", "error")
    ]


@pytest.mark.parametrize("tag", ["v9.0.9", "v9.9.9"])  # sorting before or after the version
def test_one_version_points_at_the_image_whose_tag_is_not_the_versions(tag: str) -> None:
    def bump(d: dict[str, Any]) -> None:
        c = pod_spec(d)["containers"][0]
        c["image"] = c["image"].replace(":v9.1.0", f":{tag}")

    [mixed] = [
        f
        for f in run_rules(rule_input(bump, "DaemonSet", "calico-node"))
        if f.rule == "calico-one-version"
    ]
    assert (ref(mixed.object), mixed.field) == (
        "DaemonSet kube-system/calico-node",
        "spec.template.spec.containers[0].image",
    )


def test_image_tag_names_the_image_without_its_registry() -> None:
    """So the same line is one finding whatever registry each scenario renders it from."""

    def bump(d: dict[str, Any]) -> None:
        c = pod_spec(d)["containers"][0]
        c["image"] = c["image"].replace(":v9.1.0", ":v9.0.9")

    [tag] = [
        f
        for f in run_rules(rule_input(bump, "DaemonSet", "calico-node"))
        if f.rule == "calico-image-tag"
    ]
    assert tag.message.endswith(": calico/node:v9.0.9 is not tagged v9.1.0")
