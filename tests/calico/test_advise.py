"""Scale advice: the rules as pure functions at their boundaries, extraction from hand-made
objects, and whole reports (on the fixture tree under tests/fixtures/advise)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from renderer import api, output
from renderer.calico import advise as adv
from renderer.calico.advise import (
    BGP_MESH,
    CALICO_DEFAULT,
    CONFIG,
    CONTROLLER_DEFAULT,
    FELIX_RESOURCES,
    FLAG,
    IPAM_BLOCKS,
    KUBERNETES_DEFAULT,
    POD_ADDRESSES,
    RENDERED,
    SEED,
    TYPHA_REPLICAS,
    TYPHA_RESOURCES,
    Fact,
    Origins,
    Pool,
    Requests,
)
from renderer.data import schemas
from renderer.errors import InputError
from renderer.finding import Finding
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.output.documents import AdviceDocument, advice_data

FIXTURE = Path(__file__).parents[1] / "fixtures" / "advise"
LEGACY = Path(__file__).parents[1] / "fixtures" / "tree"


def n(value: int) -> Fact:
    return Fact(value, FLAG, "--nodes")


PODS = Fact(110, KUBERNETES_DEFAULT, "kubelet maxPods")


def pool(cidr: str, block: int | str = 26, family: int = 4) -> Pool:
    return Pool(family, Fact(cidr, RENDERED, "env"), Fact(block, RENDERED, "env"))


def requests(cpu: str | None, memory: str | None) -> Requests:
    return Requests(Fact(cpu, RENDERED, "cpu"), Fact(memory, RENDERED, "memory"))


# --- pod addresses -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nodes", "severity"),
    [
        (476, "info"),  # 52,360 of 65,536: 79.9 %
        (477, "warning"),  # 52,470: just above 80 %
        (595, "warning"),  # 65,450 fits
        (596, "error"),  # 65,560 does not
    ],
)
def test_pod_addresses_boundaries(nodes: int, severity: str) -> None:
    f = adv.pod_addresses(n(nodes), PODS, pool("10.250.0.0/16"))
    assert (f.stage, f.rule, f.severity) == ("scale", POD_ADDRESSES, severity)
    assert f.details["computed"]["pool_addresses"] == 65_536
    assert f.details["computed"]["pod_addresses"] == nodes * 110
    assert set(f.details["inputs"]) == {"nodes", "max_pods", "pool_cidr", "warn_above"}
    assert f.details["inputs"]["nodes"].source == FLAG
    assert f.details["inputs"]["warn_above"].source == adv.POLICY
    assert isinstance(f, Finding)


def test_pod_addresses_advice_for_601_nodes() -> None:
    f = adv.pod_addresses(n(601), PODS, pool("10.250.0.0/16"))
    assert f.severity == "error"
    assert f.details["suggestions"] == [
        {"cidr": "10.250.0.0/15", "pool_addresses": 131_072, "used_percent": 50.4},
        {"max_pods": 87},  # floor(65,536 x 0.8 / 601)
    ]


def test_pod_addresses_no_ipv4_pool_is_large_enough() -> None:
    f = adv.pod_addresses(n(10**9), PODS, pool("10.0.0.0/8"))
    assert f.severity == "error"
    assert f.details["suggestions"] == []


@pytest.mark.parametrize("cidr", ["<no value>", "", "fd00::/64", "10.0.0.0/33"])
def test_pod_addresses_bad_cidr_is_an_error(cidr: str) -> None:
    f = adv.pod_addresses(n(10), PODS, pool(cidr))
    assert (f.rule, f.severity) == (POD_ADDRESSES, "error")
    assert f.details["computed"] == {"family": "IPv4"}


def test_pod_addresses_ipv6() -> None:
    f = adv.pod_addresses(n(601), PODS, pool("fd00:10:244::/56", 122, family=6))
    assert (f.severity, f.details["computed"]["family"]) == ("info", "IPv6")
    assert f.details["computed"]["pool_addresses"] == 2**72
    small = adv.pod_addresses(n(601), PODS, pool("fd00:10:244::/112", 122, family=6))
    assert small.severity == "error"
    assert small.details["suggestions"][0]["cidr"] == "fd00:10:244::/111"


# --- IPAM blocks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "nodes", "severity", "per_node", "pool_blocks"),
    [
        (26, 512, "info", 2, 1024),  # 110 pods = 2 blocks of 64
        (26, 513, "warning", 2, 1024),
        (24, 256, "info", 1, 256),  # 1 block of 256
        (24, 257, "warning", 1, 256),
    ],
)
def test_ipam_blocks_boundaries(
    block: int, nodes: int, severity: str, per_node: int, pool_blocks: int
) -> None:
    f = adv.ipam_blocks(n(nodes), PODS, pool("10.250.0.0/16", block))
    assert (f.stage, f.rule, f.severity) == ("scale", IPAM_BLOCKS, severity)
    assert f.details["computed"]["blocks_per_node"] == per_node
    assert f.details["computed"]["pool_blocks"] == pool_blocks
    assert f.details["computed"]["blocks_needed"] == nodes * per_node
    assert set(f.details["inputs"]) == {"nodes", "max_pods", "pool_cidr", "block_size"}


def test_ipam_blocks_2000_nodes_need_a_wider_pool() -> None:
    f = adv.ipam_blocks(n(2000), PODS, pool("10.250.0.0/16"))
    assert f.severity == "warning"
    # 4,000 /26 blocks fit a /14, but 220,000 pods would use 84 % of it: a /13
    assert [(s["cidr"], s["block_size"]) for s in f.details["suggestions"]] == [
        ("10.248.0.0/13", 26)
    ]
    assert (
        f.details["suggestions"][0]["blocks_needed"] <= f.details["suggestions"][0]["pool_blocks"]
    )


def test_ipam_blocks_601_nodes_keep_the_default_block_in_a_15() -> None:
    f = adv.ipam_blocks(n(601), PODS, pool("10.250.0.0/16"))
    assert f.details["suggestions"] == [
        {
            "cidr": "10.250.0.0/15",
            "block_size": 26,
            "block_addresses": 64,
            "blocks_per_node": 2,
            "blocks_needed": 1202,
            "pool_blocks": 2048,
        }
    ]


def test_ipam_blocks_smaller_block_keeps_the_pool() -> None:
    """520 nodes: 1,040 /26 blocks > 1,024; /28 (7 per node) fits the /16, or /26 in a /15."""
    f = adv.ipam_blocks(n(520), PODS, pool("10.250.0.0/16"))
    assert f.severity == "warning"
    assert [
        (s["cidr"], s["block_size"], s["blocks_per_node"]) for s in f.details["suggestions"]
    ] == [
        ("10.250.0.0/16", 28, 7),
        ("10.250.0.0/15", 26, 2),
    ]
    for s in f.details["suggestions"]:
        assert s["blocks_needed"] <= s["pool_blocks"]


@pytest.mark.parametrize("block", ["abc", 19, 33, 24])
def test_ipam_blocks_bad_block_size_is_an_error(block: int | str) -> None:
    f = adv.ipam_blocks(n(10), PODS, pool("10.250.0.0/25", block))  # /24 is wider than a /25
    assert (f.rule, f.severity) == (IPAM_BLOCKS, "error")


def test_ipam_blocks_ipv6() -> None:
    f = adv.ipam_blocks(n(601), PODS, pool("fd00:10:244::/56", 122, family=6))
    assert f.severity == "info"
    assert (f.details["computed"]["block_addresses"], f.details["computed"]["blocks_per_node"]) == (
        64,
        2,
    )
    tight = adv.ipam_blocks(n(601), PODS, pool("fd00:10:244::/112", 122, family=6))
    assert tight.severity == "warning"
    assert all(s["blocks_needed"] <= s["pool_blocks"] for s in tight.details["suggestions"])
    assert all(116 <= s["block_size"] <= 128 for s in tight.details["suggestions"])


# --- BGP -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("nodes", "severity"), [(100, "info"), (101, "warning")])
def test_bgp_mesh_boundary(nodes: int, severity: str) -> None:
    f = adv.bgp_mesh(n(nodes), Fact("bird", RENDERED, "calico_backend"))
    assert (f.rule, f.severity) == (BGP_MESH, severity)
    assert f.details["computed"]["bgp_sessions"] == nodes * (nodes - 1) // 2


def test_bgp_mesh_601_nodes_route_reflectors() -> None:
    f = adv.bgp_mesh(n(601), Fact("bird", RENDERED, "calico_backend"))
    assert f.details["computed"] == {
        "bgp_sessions": 180_300,
        "sessions_per_node": 600,
        "route_reflectors": 3,
        "sessions_with_route_reflectors": 601,
    }
    assert f.details["suggestions"] == [{"route_reflectors": 3, "bgp_sessions": 601}]
    assert adv.route_reflectors(2000) == 6


@pytest.mark.parametrize("backend", ["vxlan", "none"])
def test_bgp_mesh_without_bird(backend: str) -> None:
    f = adv.bgp_mesh(n(5000), Fact(backend, RENDERED, "calico_backend"))
    assert (f.severity, f.details["computed"]) == ("info", {"bgp_sessions": 0})


# --- Typha ---------------------------------------------------------------------------------


def test_typha_replicas_off_at_50() -> None:
    f = adv.typha_replicas(n(50), Fact(None, RENDERED, "none"))
    assert (f.rule, f.severity, f.details["computed"]) == (TYPHA_REPLICAS, "info", {"typha": False})
    assert f.details["inputs"]["policy_replicas"].value == 0


def test_typha_replicas_on_at_51() -> None:
    f = adv.typha_replicas(n(51), Fact(3, RENDERED, "spec.replicas"))
    assert f.severity == "info"
    assert f.details["computed"]["connections_per_replica"] == 17
    assert f.details["computed"]["connections_per_replica_one_down"] == 26
    assert (
        f.details["inputs"]["policy_replicas"].value,
        f.details["inputs"]["policy_replicas"].source,
    ) == (3, "policy")


def test_typha_replicas_missing_deployment_is_an_error() -> None:
    f = adv.typha_replicas(n(51), Fact(None, RENDERED, "no Deployment"))
    assert (f.rule, f.severity) == (TYPHA_REPLICAS, "error")


@pytest.mark.parametrize(
    ("nodes", "rendered", "per_replica"),
    [(601, 2, 301), (601, 3, 201), (4001, 20, 201)],
)
def test_typha_replicas_warnings(nodes: int, rendered: int, per_replica: int) -> None:
    f = adv.typha_replicas(n(nodes), Fact(rendered, RENDERED, "spec.replicas"))
    assert f.severity == "warning"
    assert f.details["computed"]["connections_per_replica"] == per_replica


@pytest.mark.parametrize("rendered", [0, "x", True])
def test_typha_replicas_not_a_count(rendered: Any) -> None:
    f = adv.typha_replicas(n(601), Fact(rendered, RENDERED, "spec.replicas"))
    assert f.severity == "error"


@pytest.mark.parametrize(
    ("nodes", "row"),
    [
        (1, "1-50"),
        (50, "1-50"),
        (51, "51-200"),
        (200, "51-200"),
        (201, "201-500"),
        (500, "201-500"),
        (501, "501-1000"),
        (1000, "501-1000"),
        (1001, "1001-2000"),
        (2000, "1001-2000"),
        (2001, "2001+"),
        (10**6, "2001+"),
    ],
)
def test_size_rows(nodes: int, row: str) -> None:
    assert adv.size_row(nodes).label == row


def test_size_rows_cover_every_count_once() -> None:
    for a, b in zip(adv.SIZE_ROWS, adv.SIZE_ROWS[1:], strict=False):
        assert a.last is not None and b.first == a.last + 1
    assert adv.SIZE_ROWS[0].first == 1 and adv.SIZE_ROWS[-1].last is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("250m", Fraction(1, 4)),
        ("1", Fraction(1)),
        ("0.5", Fraction(1, 2)),
        ("1e3", Fraction(1000)),
        ("128Mi", Fraction(128 * 2**20)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("1G", Fraction(10**9)),
        (2, Fraction(2)),
        ("abc", None),
        ("1Qi", None),
        ("", None),
        (None, None),
    ],
)
def test_quantity(text: object, value: Fraction | None) -> None:
    assert adv.quantity(text) == value


@pytest.mark.parametrize(
    ("cpu", "memory", "severity"),
    [
        ("100m", "128Mi", "info"),  # the seed's minimum at 51-200 nodes
        ("99m", "128Mi", "warning"),
        ("100m", "127Mi", "warning"),
        ("100m", None, "warning"),
        (None, "128Mi", "warning"),
        ("lots", "128Mi", "warning"),
        ("1", "1Gi", "info"),
    ],
)
def test_typha_resources_at_51(cpu: str | None, memory: str | None, severity: str) -> None:
    f = adv.resources(TYPHA_RESOURCES, "calico-typha", n(51), requests(cpu, memory), typha=True)
    assert (f.rule, f.severity) == (TYPHA_RESOURCES, severity)
    assert f.details["inputs"]["cpu_minimum"] == Fact("100m", SEED, "资源分配指南: 100m-250m")
    assert f.details["inputs"]["memory_minimum"].value == "128Mi"
    assert f.details["inputs"]["size_row"].value == "51-200 nodes"


def test_typha_resources_not_checked_when_typha_is_off() -> None:
    f = adv.resources(TYPHA_RESOURCES, "calico-typha", n(50), requests(None, None), typha=True)
    assert f.severity == "info" and "cpu_request" not in f.details["inputs"]


@pytest.mark.parametrize(
    ("nodes", "severity"),
    [(50, "info"), (51, "warning"), (200, "warning"), (2001, "warning")],
)
def test_felix_resources_by_size(nodes: int, severity: str) -> None:
    """Calico's manifests request cpu 250m for calico-node: enough up to 50 nodes only
    (memory 128Mi given here)."""
    f = adv.resources(FELIX_RESOURCES, "calico-node", n(nodes), requests("250m", "128Mi"), False)
    assert (f.rule, f.severity) == (FELIX_RESOURCES, severity)


# --- extraction ------------------------------------------------------------------------------

CALICO_NODE = """\
kind: ConfigMap
apiVersion: v1
metadata: {name: calico-config, namespace: kube-system}
data:
  calico_backend: bird
---
kind: DaemonSet
apiVersion: apps/v1
metadata: {name: calico-node, namespace: kube-system}
spec:
  template:
    spec:
      containers:
        - name: calico-node
          resources:
            requests: {cpu: 500m, memory: 1Gi}
          env:
%s
"""

TYPHA = """\
---
kind: Deployment
apiVersion: apps/v1
metadata: {name: calico-typha, namespace: kube-system}
spec:
  %s
  template:
    spec:
      containers:
        - name: calico-typha
"""


DATASTORE = "            - {name: DATASTORE_TYPE, value: kubernetes}"


def objects(env: str = DATASTORE, typha: str = "") -> list[K8sObject]:
    return parse_stream(CALICO_NODE % env + typha, "v1/calico.yaml")


SUBNET = Fact("10.250.0.0/16", CONTROLLER_DEFAULT, "BKE controller default podSubnet")
IPV4 = Fact("ipv4", CONTROLLER_DEFAULT, "default")


def extract(objs: Any, ip_mod: Fact = IPV4) -> adv.ScaleInputs:
    return adv.extract(objs, nodes=n(601), max_pods=PODS, pod_subnet=SUBNET, ip_mod_version=ip_mod)


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
    assert adv.typha_replicas(n(601), text.typha_replicas).severity == "error"


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
    findings = adv.advise(i)
    felix = [f for f in findings if f.rule == FELIX_RESOURCES]
    assert [f.severity for f in felix] == ["info"]


def test_advise_rule_order() -> None:
    env = """\
            - {name: CALICO_IPV4POOL_CIDR, value: 10.0.0.0/12}
            - {name: CALICO_IPV6POOL_CIDR, value: "fd00::/48"}"""
    i = extract(objects(env, TYPHA % "replicas: 4"), Fact("dual", FLAG, "--set"))
    assert [(f.rule, f.details["computed"].get("family")) for f in adv.advise(i)] == [
        (POD_ADDRESSES, "IPv4"),
        (IPAM_BLOCKS, "IPv4"),
        (POD_ADDRESSES, "IPv6"),
        (IPAM_BLOCKS, "IPv6"),
        (BGP_MESH, None),
        (TYPHA_REPLICAS, None),
        (TYPHA_RESOURCES, None),
        (FELIX_RESOURCES, None),
    ]


# --- origins -------------------------------------------------------------------------------


def test_request_inputs_pod_subnet_origins() -> None:
    objs = objects()  # the templates set no CALICO_IPV4POOL_CIDR
    context = {"podSubnet": "10.50.0.0/16", "ipModVersion": "ipv4"}
    from_config = adv.request_inputs(
        objs, context, nodes=10, origins=Origins.of(config=context, config_file="c.yaml")
    )
    cidr = from_config.pools[0].cidr
    assert (cidr.value, cidr.source) == ("10.50.0.0/16", CONFIG)
    assert cidr.where == "CALICO_IPV4POOL_CIDR not rendered; podSubnet from c.yaml"
    unset = adv.request_inputs(objs, context, nodes=10)
    assert (unset.pools[0].cidr.value, unset.pools[0].cidr.source) == (
        "10.250.0.0/16",
        CONTROLLER_DEFAULT,
    )
    assert (unset.nodes.source, unset.max_pods.value) == (FLAG, 110)


def test_request_inputs_traces_a_rendered_pod_subnet() -> None:
    objs = objects("            - {name: CALICO_IPV4POOL_CIDR, value: 10.50.0.0/16}")
    context = {"podSubnet": "10.50.0.0/16"}
    traced = adv.request_inputs(objs, context, nodes=10, origins=Origins.of(flags=context))
    cidr = traced.pools[0].cidr
    assert cidr.source == RENDERED
    assert cidr.where == "env CALICO_IPV4POOL_CIDR = podSubnet from --set/--values (flag)"
    # the render context's own default, not the controller's: a note says so
    untraced = adv.request_inputs(objs, context, nodes=10)
    assert untraced.pools[0].cidr.where == "env CALICO_IPV4POOL_CIDR"
    assert untraced.notes == (
        "podSubnet is not set: the render used the render context's default 10.50.0.0/16, "
        "while BKE's controller passes 10.250.0.0/16",
    )


# --- whole reports -------------------------------------------------------------------------


def _report(nodes: int, **kw: Any) -> adv.AdviceReport:
    user = {"podSubnet": "10.250.0.0/16", **kw}
    return api.advise(api.Request.of("v1.0.0", nodes, root=FIXTURE, values=user))


def _data(report: adv.AdviceReport) -> dict[str, Any]:
    data = advice_data(report)
    schemas.validate_output(schemas.ADVISE_REPORT, data)
    data["manifests"] = "tests/fixtures/advise"
    return data


def test_report_601_nodes_ipip_dual_regression(data_regression: Any) -> None:
    report = _report(
        601, calicoMode="ipip", ipModVersion="dual", ClusterCidr={"Ipv6": "fd00:10:244::/56"}
    )
    assert not report.passed
    data_regression.check(_data(report))


def test_report_text_regression(file_regression: Any) -> None:
    report = _report(601, calicoMode="ipip")
    text = output.render("text", AdviceDocument(report)).replace(str(FIXTURE), "FIXTURE")
    file_regression.check(text, extension=".txt")


@pytest.mark.parametrize(
    ("mode", "bgp"), [("vxlan", "info"), ("ipip", "warning"), ("bgp", "warning")]
)
def test_report_backend_by_mode(mode: str, bgp: str) -> None:
    report = _report(601, calicoMode=mode)
    (f,) = [f for f in report.findings if f.rule == BGP_MESH]
    assert f.severity == bgp
    assert f.details["inputs"]["backend"].value == ("vxlan" if mode == "vxlan" else "bird")


@pytest.mark.parametrize(("nodes", "passed"), [(50, True), (51, True), (595, True), (596, False)])
def test_report_passed(nodes: int, passed: bool) -> None:
    report = _report(nodes)
    assert report.passed is passed
    data = json.loads(output.render("json", AdviceDocument(report)))
    assert data["passed"] is passed
    assert data["summary"]["error"] == (0 if passed else 1)


def test_report_block_size_from_the_render() -> None:
    report = _report(601, blockSize="24", podSubnet="10.248.0.0/14")
    (f,) = [f for f in report.findings if f.rule == IPAM_BLOCKS]
    assert (f.details["inputs"]["block_size"].value, f.details["inputs"]["block_size"].source) == (
        24,
        RENDERED,
    )
    assert (
        f.severity,
        f.details["computed"]["blocks_per_node"],
        f.details["computed"]["pool_blocks"],
    ) == (
        "info",
        1,
        1024,
    )


def test_report_legacy_version_takes_the_compatibility_path() -> None:
    """A version without Typha templates: advised with Typha off; its missing Typha is the
    error, and its pool (no CALICO_IPV4POOL_CIDR rendered) is the controller's default."""
    report = api.advise(api.Request.of("v9.0.0", 601, root=LEGACY))
    assert not report.passed
    assert [f.rule for f in report.findings if f.severity == "error"] == [
        POD_ADDRESSES,
        TYPHA_REPLICAS,
    ]
    assert report.notes == [
        "a first install of v9.0.0 on 601 nodes is refused (not Typha-capable); advised on "
        "the compatibility path, Typha off"
    ]
    assert report.inputs is not None
    assert report.inputs.pools[0].cidr.source == CONTROLLER_DEFAULT


def test_advise_bad_max_pods() -> None:
    with pytest.raises(InputError) as exc:
        api.advise(api.Request.of("v1.0.0", 10, root=FIXTURE), max_pods=0)
    assert exc.value.key == "max_pods"


def test_schema_names_every_source_and_rule() -> None:
    defs = schemas.load_schema(schemas.ADVISE_REPORT)["$defs"]
    fact = schemas.load_schema(schemas.FINDING)["$defs"]["fact"]
    assert tuple(fact["properties"]["source"]["enum"]) == adv.SOURCES
    assert tuple(defs["finding"]["properties"]["rule"]["enum"]) == adv.RULES
