"""Whole advice reports on the fixture tree under tests/fixtures/advise, and the report
schema's enums against the sources and rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from renderer import api, output
from renderer.calico.scale.facts import CONTROLLER_DEFAULT, RENDERED, SOURCES
from renderer.calico.scale.report import AdviceReport
from renderer.calico.scale.rules import (
    BGP_MESH,
    IPAM_BLOCKS,
    POD_ADDRESSES,
    RULES,
    TYPHA_REPLICAS,
)
from renderer.data import schemas
from renderer.errors import InputError
from renderer.output.documents import AdviceDocument, advice_data
from tests.calico.scale.inputs import details

FIXTURE = Path(__file__).parents[2] / "fixtures" / "advise"
LEGACY = Path(__file__).parents[2] / "fixtures" / "tree"


def _report(nodes: int, **kw: Any) -> AdviceReport:
    user = {"podSubnet": "10.250.0.0/16", **kw}
    return api.advise(api.Request.of("v1.0.0", nodes, root=FIXTURE, values=user))


def _data(report: AdviceReport) -> dict[str, Any]:
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
    assert details(f).inputs["backend"].value == ("vxlan" if mode == "vxlan" else "bird")


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
    assert (details(f).inputs["block_size"].value, details(f).inputs["block_size"].source) == (
        24,
        RENDERED,
    )
    assert (
        f.severity,
        details(f).computed["blocks_per_node"],
        details(f).computed["pool_blocks"],
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
    assert tuple(fact["properties"]["source"]["enum"]) == SOURCES
    assert tuple(defs["finding"]["properties"]["rule"]["enum"]) == RULES
