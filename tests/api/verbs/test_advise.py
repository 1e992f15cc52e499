"""The advise verb: the scale limits a cluster meets, with the numbers its render uses
and where each came from."""

from __future__ import annotations

from pathlib import Path

from renderer import api

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_a_config_s_pod_subnet_is_the_pool_advised_on() -> None:
    request = api.Request.from_config(
        EXAMPLES / "bkecluster-601.yaml", nodes_file=EXAMPLES / "bkenodes-601.yaml"
    )
    report = api.advise(request)
    assert report.inputs is not None
    [pool] = [p for p in report.inputs.pools if p.family == 4]
    assert str(pool.cidr.value) == "10.96.0.0/12"
    assert "bkecluster-601.yaml" in pool.cidr.where
    assert report.passed  # a /12 holds 601 nodes x 110 pods with room to spare


def test_a_refused_install_is_advised_on_as_its_compatibility_path() -> None:
    report = api.advise(api.Request.of("v3.27", 601))
    assert any("compatibility path" in n for n in report.notes)
    assert not report.passed  # Typha missing on a large cluster is an error finding
