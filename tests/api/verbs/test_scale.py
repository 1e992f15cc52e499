"""The scale advice of a render: each number says where it came from, and a render
reports the limits as warnings."""

from __future__ import annotations

from pathlib import Path

from renderer import api
from renderer.api.verbs.scale import scale_findings, scale_warnings
from renderer.calico import scale

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _config_request() -> api.Request:
    return api.Request.from_config(
        EXAMPLES / "bkecluster-601.yaml", nodes_file=EXAMPLES / "bkenodes-601.yaml"
    )


def test_the_numbers_say_where_they_came_from() -> None:
    request = _config_request()
    result = api.render(request)
    inputs, _ = scale_findings(request, result.objects, result.contexts)
    assert inputs.nodes.source == scale.CONFIG and "bkenodes-601.yaml" in inputs.nodes.where
    [pool] = [p for p in inputs.pools if p.family == 4]
    assert "spec.clusterConfig.cluster.networking.podSubnet" in pool.cidr.where


def test_a_render_reports_the_limits_as_warnings() -> None:
    request = api.Request.of("v3.31", 601, values={"podSubnet": "10.250.0.0/16"})
    result = api.render(request)
    found = scale_warnings(request, result.objects, result.contexts)
    assert {f.severity for f in found} == {"warning"}
    assert "scale-pod-addresses" in {f.rule for f in found}  # an error in advise
