"""``calico-render advise`` and the render command's scale warnings with ``--config``.

On the bundled tree only structural assertions that hold for any tree whose templates set
CALICO_IPV4POOL_CIDR from podSubnet (podSubnet is always passed explicitly); exact
numbers are checked on the fixture tree under tests/fixtures/advise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from renderer.calico.scale.rules import RULES
from renderer.cli.advise import no_advice
from renderer.data import schemas
from renderer.data.schemas import ADVISE_REPORT as ADVISE_REPORT_SCHEMA
from renderer.manifests.tree import list_versions
from tests.clihelp import one_error, run

FIXTURE = str(Path(__file__).parents[1] / "fixtures" / "advise")
NEWEST = list_versions(None)[-1].name

CLUSTER = """\
apiVersion: bke.bocloud.com/v1beta1
kind: BKECluster
metadata:
  name: c1
spec:
  clusterConfig:
    cluster:
      networking:
        podSubnet: {subnet}
    addons:
      - name: calico
        version: v1.0.0
        param:
          calicoMode: {mode}
"""

NODE = """\
---
apiVersion: bke.bocloud.com/v1beta1
kind: BKENode
metadata:
  name: n{i}
spec:
  role: [node]
  ip: 10.0.{a}.{b}
"""


def write_cluster(tmp_path: Path, subnet: str = "10.250.0.0/16", mode: str = "ipip") -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER.format(subnet=subnet, mode=mode), encoding="utf-8")
    return str(path)


def write_nodes(tmp_path: Path, count: int) -> str:
    path = tmp_path / "nodes.yaml"
    path.write_text(
        "".join(NODE.format(i=i, a=i // 250, b=i % 250 + 1) for i in range(count)),
        encoding="utf-8",
    )
    return str(path)


def advise_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    r = run(capsys, "advise", *args, "--format", "json")
    data = json.loads(r.out)
    schemas.validate_output(ADVISE_REPORT_SCHEMA, data)
    return r.code, data


def by_id(data: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in data["findings"] if f["rule"] == rule]


# --- bundled tree: structure only ------------------------------------------------------------


@pytest.mark.parametrize(
    ("subnet", "code", "severity"),
    [("10.250.0.0/16", 1, "error"), ("10.248.0.0/14", 0, "info")],
)
def test_bundled_601_nodes_pod_addresses(
    capsys: pytest.CaptureFixture[str], subnet: str, code: int, severity: str
) -> None:
    got, data = advise_json(
        capsys, "--version", NEWEST, "--nodes", "601", "--set", f"podSubnet={subnet}"
    )
    assert got == code
    (f,) = [
        f
        for f in by_id(data, "scale-pod-addresses")
        if f["details"]["computed"]["family"] == "IPv4"
    ]
    assert f["severity"] == severity
    assert f["details"]["inputs"]["pool_cidr"]["value"] == subnet
    assert f["details"]["inputs"]["pool_cidr"]["source"] == "rendered"
    assert f["details"]["inputs"]["nodes"] == {
        "value": 601,
        "source": "flag",
        "where": "--nodes",
        "object": "",
        "file": "",
    }
    assert data["passed"] is (code == 0)
    assert {f["rule"] for f in data["findings"]} <= set(RULES)
    assert {f["stage"] for f in data["findings"]} == {"scale"}


def test_bundled_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(
        capsys, "advise", "--version", NEWEST, "--nodes", "40", "--set", "podSubnet=10.250.0.0/16"
    )
    assert r.code == 0
    assert r.out.startswith(f"calico-render advise: Calico {NEWEST} (bundled tree), 40 nodes")
    assert "scale-pod-addresses" in r.out and r.out.rstrip().splitlines()[-1].startswith("PASS")


# --- fixture tree: numbers ---------------------------------------------------------------------


@pytest.mark.parametrize(("nodes", "code", "pods"), [("595", 0, "warning"), ("596", 1, "error")])
def test_exit_code_at_the_pool_limit(
    capsys: pytest.CaptureFixture[str], nodes: str, code: int, pods: str
) -> None:
    got, data = advise_json(
        capsys,
        "--manifests",
        FIXTURE,
        "--version",
        "v1.0.0",
        "--nodes",
        nodes,
        "--set",
        "podSubnet=10.250.0.0/16",
    )
    assert got == code
    assert [f["severity"] for f in by_id(data, "scale-pod-addresses")] == [pods]


def test_max_pods_flag(capsys: pytest.CaptureFixture[str]) -> None:
    got, data = advise_json(
        capsys,
        "--manifests",
        FIXTURE,
        "--version",
        "v1.0.0",
        "--nodes",
        "601",
        "--max-pods",
        "64",
        "--set",
        "podSubnet=10.250.0.0/16",
    )
    assert got == 0
    (f,) = by_id(data, "scale-pod-addresses")
    assert f["details"]["inputs"]["max_pods"]["source"] == "flag"
    assert f["details"]["computed"]["pod_addresses"] == 601 * 64
    (blocks,) = by_id(data, "scale-ipam-blocks")
    assert (blocks["severity"], blocks["details"]["computed"]["blocks_per_node"]) == ("info", 1)


@pytest.mark.parametrize(("nodes", "typha", "replicas"), [("50", "info", None), ("51", "info", 3)])
def test_typha_boundary(
    capsys: pytest.CaptureFixture[str], nodes: str, typha: str, replicas: int | None
) -> None:
    _, data = advise_json(capsys, "--manifests", FIXTURE, "--version", "v1.0.0", "--nodes", nodes)
    (f,) = by_id(data, "scale-typha-replicas")
    assert f["severity"] == typha
    assert f["details"]["inputs"]["rendered_replicas"]["value"] == replicas
    assert data["inputs"]["typha_replicas"]["value"] == replicas


def test_config_and_nodes_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = write_cluster(tmp_path, mode="bgp")
    nodes = write_nodes(tmp_path, 101)
    got, data = advise_json(
        capsys, "--manifests", FIXTURE, "--config", config, "--nodes-file", nodes
    )
    assert got == 0
    assert data["inputs"]["nodes"]["source"] == "config"
    assert data["inputs"]["nodes"]["value"] == 101
    (bgp,) = by_id(data, "scale-bgp-mesh")
    assert (bgp["severity"], bgp["details"]["computed"]["bgp_sessions"]) == ("warning", 5050)
    cidr = data["inputs"]["ipv4_pool_cidr"]
    assert (cidr["value"], cidr["source"]) == ("10.250.0.0/16", "rendered")
    assert cidr["where"] == (
        f"env CALICO_IPV4POOL_CIDR = podSubnet from {config}: "
        "spec.clusterConfig.cluster.networking.podSubnet (config)"
    )


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--version", "v1.0.0"],
        ["--nodes", "10"],
        ["--version", "v1.0.0", "--nodes", "0"],
        ["--version", "v1.0.0", "--nodes", "10", "--max-pods", "0"],
        ["--version", "v7.0.0", "--nodes", "10"],
        ["--version", "v1.0.0", "--nodes", "10", "--format", "yaml"],
    ],
)
def test_bad_input_is_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    r = run(capsys, "advise", "--manifests", FIXTURE, *args)
    assert r.code == 2
    assert r.out == ""
    assert len(r.err.strip().splitlines()) == 1


def test_values_the_controller_renders_are_advised_on_not_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A value the controller would render is judged, never refused as bad input."""
    base = ["advise", "--manifests", FIXTURE, "--version", "v1.0.0", "--nodes", "10"]
    r = run(capsys, *base, "--set", "podSubnet=10.0.0.0", "--format", "json")
    assert r.code == 1
    rules = {f["rule"] for f in json.loads(r.out)["findings"] if f["severity"] == "error"}
    assert "scale-pod-addresses" in rules
    r = run(capsys, *base, "--set", "calicoMode=flannel")
    assert r.code == 0, r.err


def test_config_and_version_exclude_each_other(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    r = run(
        capsys,
        "advise",
        "--manifests",
        FIXTURE,
        "--config",
        write_cluster(tmp_path),
        "--version",
        "v1.0.0",
        "--nodes",
        "3",
    )
    one_error(r, key="--config")


def test_config_without_calico(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        CLUSTER.format(subnet="10.250.0.0/16", mode="ipip").replace("calico", "cilium"),
        encoding="utf-8",
    )
    got, data = advise_json(capsys, "--manifests", FIXTURE, "--config", str(path), "--nodes", "9")
    assert got == 0
    assert (data["version"], data["findings"], data["inputs"]) == (None, [], {})
    assert data["notes"]


# --- the render command ----------------------------------------------------------------------


def scale_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if " [scale-" in line]


def scale_ids(lines: list[str]) -> list[str]:
    return [line.split(" [", 1)[1].split("]", 1)[0] for line in lines]


def test_render_with_config_warns(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = write_cluster(tmp_path)
    with_config = run(
        capsys,
        "--manifests",
        FIXTURE,
        "--config",
        config,
        "--nodes",
        "601",
        "--no-validate",
        "--no-admission-defaults",  # the plain render has no image prefix either
    )
    plain = run(
        capsys,
        "--manifests",
        FIXTURE,
        "--version",
        "v1.0.0",
        "--nodes",
        "601",
        "--set",
        "podSubnet=10.250.0.0/16",
        "--set",
        "calicoMode=ipip",
        "--no-validate",
    )
    assert with_config.code == plain.code == 0  # warnings never change the render's outcome
    assert with_config.out == plain.out
    lines = scale_lines(with_config.err)
    assert all(line.startswith("calico-render: ") for line in lines)
    ids = scale_ids(lines)
    assert ids == [
        "scale-pod-addresses",
        "scale-ipam-blocks",
        "scale-bgp-mesh",
        "scale-typha-resources",
        "scale-felix-resources",
    ]
    # the render reports the limits as warnings (advise fails on them): it renders regardless
    assert ": warning: [scale-pod-addresses] " in lines[0] and "; advice: " in lines[0]
    assert scale_lines(plain.err) == []


def test_render_with_config_small_cluster_quiet_pool(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = write_cluster(tmp_path, subnet="10.250.0.0/16", mode="vxlan")
    r = run(capsys, "--manifests", FIXTURE, "--config", config, "--nodes", "40", "--no-validate")
    assert r.code == 0
    ids = scale_ids(scale_lines(r.err))
    assert ids == ["scale-felix-resources"]  # no memory request; pool, blocks and BGP fine


def test_no_advice_is_an_empty_report_naming_the_tree() -> None:
    report = no_advice(None, ["no calico addon"])
    assert (report.version, report.inputs, report.findings) == (None, None, [])
    assert report.notes == ["no calico addon"] and report.passed
    assert no_advice(Path("trees/a"), []).manifests == "trees/a"
