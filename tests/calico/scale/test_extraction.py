"""Extraction of the scale facts from hand-made rendered objects."""

from __future__ import annotations

import pytest

from renderer.calico.scale.facts import (
    CALICO_DEFAULT,
    CONFIG,
    CONTROLLER_DEFAULT,
    FLAG,
    KUBERNETES_DEFAULT,
    RENDERED,
    Fact,
)
from renderer.calico.scale.registry import advise
from renderer.calico.scale.rules import FELIX_RESOURCES
from renderer.k8s.parse import parse_stream
from tests.calico.scale.inputs import CALICO_NODE, TYPHA, advise_one, extract, objects


def test_extract_defaults_when_the_templates_set_nothing() -> None:
    i = extract(objects())
    (p,) = i.pools
    assert (p.family, p.cidr.value, p.cidr.source) == (4, "10.250.0.0/16", CONTROLLER_DEFAULT)
    assert p.cidr.where == "CALICO_IPV4POOL_CIDR not rendered; BKE controller default podSubnet"
    assert (p.block_size.value, p.block_size.source) == (26, CALICO_DEFAULT)
    # no CALICO_NETWORKING_BACKEND env: calico-config's calico_backend
    assert (i.backend.value, i.backend.source, i.backend.object) == (
        "bird",
        RENDERED,
        "ConfigMap kube-system/calico-config",
    )
    assert (i.typha_replicas.value, i.typha is None) == (None, True)
    assert i.felix is not None
    assert (i.felix.cpu.value, i.felix.memory.value) == ("500m", "1Gi")
    assert i.felix.cpu.file == "v1/calico.yaml:7"


def test_extract_rendered_env() -> None:
    env = """\
            - {name: CALICO_IPV4POOL_CIDR, value: 10.0.0.0/12}
            - {name: CALICO_IPV4POOL_BLOCK_SIZE, value: "24"}
            - name: CALICO_NETWORKING_BACKEND
              valueFrom: {configMapKeyRef: {name: calico-config, key: calico_backend}}"""
    i = extract(objects(env))
    (p,) = i.pools
    assert (p.cidr.value, p.cidr.source, p.cidr.object) == (
        "10.0.0.0/12",
        RENDERED,
        "DaemonSet kube-system/calico-node",
    )
    assert (p.block_size.value, p.block_size.source) == (24, RENDERED)
    assert (
        i.backend.where
        == "env CALICO_NETWORKING_BACKEND from ConfigMap calico-config key calico_backend"
    )


@pytest.mark.parametrize(("text", "value"), [("/25", 25), ("abc", "abc"), ("", 26)])
def test_extract_block_size_text(text: str, value: int | str) -> None:
    env = f'            - {{name: CALICO_IPV4POOL_BLOCK_SIZE, value: "{text}"}}'
    assert extract(objects(env)).pools[0].block_size.value == value


def test_extract_literal_backend_and_empty_cidr() -> None:
    env = """\
            - {name: CALICO_NETWORKING_BACKEND, value: vxlan}
            - {name: CALICO_IPV4POOL_CIDR, value: ""}"""
    i = extract(objects(env))
    assert (i.backend.value, i.backend.where) == ("vxlan", "env CALICO_NETWORKING_BACKEND")
    assert i.pools[0].cidr.source == CONTROLLER_DEFAULT


def test_extract_ipv6_only_and_dual() -> None:
    env = """\
            - {name: IP, value: none}
            - {name: CALICO_IPV6POOL_CIDR, value: "fd00::/48"}
            - {name: CALICO_IPV6POOL_BLOCK_SIZE, value: "120"}"""
    i = extract(objects(env), Fact("ipv6", CONFIG, "c.yaml"))
    assert [(p.family, p.cidr.value, p.block_size.value) for p in i.pools] == [
        (6, "fd00::/48", 120)
    ]
    assert i.notes == ("IPv4 pool not checked: calico-node env IP is none (IPv6 only)",)
    dual = extract(objects(env.replace("none", "autodetect")), Fact("dual", CONFIG, "c.yaml"))
    assert [p.family for p in dual.pools] == [4, 6]
    # ipv4: an IPv6 pool in the render is not the cluster's
    assert [p.family for p in extract(objects(env.replace("none", "autodetect"))).pools] == [4]


def test_extract_dual_without_ipv6_pool_is_a_note() -> None:
    i = extract(objects(), Fact("dual", FLAG, "--set"))
    assert [p.family for p in i.pools] == [4]
    assert i.notes == (
        "IPv6 pool not checked: ipModVersion is dual but the render sets no CALICO_IPV6POOL_CIDR",
    )


def test_extract_typha() -> None:
    i = extract(objects(typha=TYPHA % "replicas: 4"))
    assert (i.typha_replicas.value, i.typha_replicas.source) == (4, RENDERED)
    assert i.typha is not None and (i.typha.cpu.value, i.typha.memory.value) == (None, None)
    default = extract(objects(typha=TYPHA % "paused: false"))
    assert (default.typha_replicas.value, default.typha_replicas.source) == (1, KUBERNETES_DEFAULT)
    text = extract(objects(typha=TYPHA % 'replicas: "4"'))
    assert text.typha_replicas.value == "4"
    replicas = advise_one("scale-typha-replicas", 601, replicas=text.typha_replicas)
    assert replicas.severity == "error"


def test_extract_finds_calico_node_by_label() -> None:
    renamed = CALICO_NODE.replace(
        "metadata: {name: calico-node, namespace: kube-system}",
        "metadata: {name: node, namespace: kube-system, labels: {k8s-app: calico-node}}",
    )
    env = "            - {name: CALICO_IPV4POOL_CIDR, value: 10.9.0.0/16}"
    i = extract(parse_stream(renamed % env, "f"))
    assert (i.pools[0].cidr.value, i.pools[0].cidr.object) == (
        "10.9.0.0/16",
        "DaemonSet kube-system/node",
    )


def test_extract_without_calico_node() -> None:
    i = extract(parse_stream("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n", "f"))
    assert i.felix is None
    assert (i.backend.value, i.backend.source) == ("bird", CALICO_DEFAULT)
    findings = advise(i)
    felix = [f for f in findings if f.rule == FELIX_RESOURCES]
    assert [f.severity for f in felix] == ["info"]
