"""Plans and cluster renders end to end: rendered Go-dialect fixtures through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.calico import policy
from renderer.data.schemas import PLAN as PLAN_SCHEMA
from renderer.data.schemas import validate_output
from renderer.errors import TemplateError
from renderer.k8s.parse import parse_files
from renderer.k8s.yamlio import load_all
from renderer.manifests.tree import VersionDir
from renderer.store.files import OWNED_FILES
from tests.clihelp import one_error, run

ROOT = Path(__file__).parents[1] / "fixtures" / "tree"
EXAMPLES = Path(__file__).parents[2] / "examples"
CALICO = ROOT / "kubernetes" / "calico"
NO_TYPHA, TYPHA = "v9.0.0", "v9.1.0"


def capable_by_name(vdir: VersionDir) -> tuple[bool, tuple[str, ...]]:
    """Capability as plain data, so these tests do not depend on the capability rules."""
    return (vdir.name == TYPHA, () if vdir.name == TYPHA else ("Typha templates",))


def test_api_plan_introduces_typha_from_rendered_versions() -> None:
    result = api.plan(
        api.Request.of(TYPHA, 601, root=ROOT), from_version=NO_TYPHA, capability=capable_by_name
    )
    data = result.to_dict()
    assert data["shape"] == "introduce-typha"
    first = {(r["kind"], r["name"]) for r in data["phases"][0]["apply"]}
    assert {("Deployment", "calico-typha"), ("Service", "calico-typha")} <= first
    assert ("PodDisruptionBudget", "calico-typha") in first
    assert ("DaemonSet", "calico-node") not in first


def test_output_dir_writes_phase_manifests_in_order(tmp_path: Path) -> None:
    result = api.plan(
        api.Request.of(TYPHA, 601, root=ROOT),
        from_version=TYPHA,
        from_nodes=60,
        capability=capable_by_name,
    )
    assert result.plan.shape == "typha-upgrade"
    result = api.plan(
        api.Request.of(TYPHA, 40, root=ROOT),
        from_version=TYPHA,
        from_nodes=601,
        capability=capable_by_name,
    )
    files = result.files()
    assert sorted(files) == [
        "01-calico-node-to-apiserver.apply.yaml",
        "02-remove-typha.apply.yaml",
        "02-remove-typha.delete.yaml",
        "plan.json",
    ]
    first = parse_files([("01", files["01-calico-node-to-apiserver.apply.yaml"])])
    assert [(o.kind, o.name) for o in first] == [
        ("ConfigMap", "calico-config"),
        ("DaemonSet", "calico-node"),
    ]
    assert first[0].data["data"]["typha_service_name"] == "none"
    deleted = parse_files([("02", files["02-remove-typha.delete.yaml"])])
    assert [(o.kind, o.name) for o in deleted] == [
        ("Deployment", "calico-typha"),
        ("PodDisruptionBudget", "calico-typha"),
        ("Service", "calico-typha"),
    ]
    assert deleted[1].api_version == "policy/v1"


def test_cli_plan_json_and_output_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "phases"
    r = run(
        capsys,
        "plan",
        "--manifests",
        str(ROOT),
        "--to-version",
        TYPHA,
        "--from-version",
        NO_TYPHA,
        "--nodes",
        "601",
        "--format",
        "json",
        "--output-dir",
        str(out),
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    validate_output(PLAN_SCHEMA, data)
    assert [p["name"] for p in data["phases"]][:2] == ["typha", "calico-node"]
    written = sorted(p.name for p in out.iterdir() if p.name != OWNED_FILES)
    assert written[0].startswith("01-typha") and written[1].startswith("02-calico-node")
    path = out / "01-typha.apply.yaml"
    docs = load_all(path.read_text(encoding="utf-8"), str(path))
    assert {d["kind"] for d in docs if d} >= {"Deployment", "Service", "PodDisruptionBudget"}
    typha = next(d for d in docs if d and d["kind"] == "Deployment")
    assert typha["spec"]["replicas"] == 4


def test_cli_plan_text_is_deterministic(
    capsys: pytest.CaptureFixture[str], file_regression: Any
) -> None:
    args = (
        "plan",
        "--manifests",
        str(ROOT),
        "--to-version",
        TYPHA,
        "--nodes",
        "51",
        "--from-nodes",
        "50",
    )
    first, second = run(capsys, *args), run(capsys, *args)
    assert first.code == 0 and first.out == second.out
    file_regression.check(first.out, extension=".txt")  # introduce-typha, phases 1 and 2


def test_cli_plan_unknown_version_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "plan", "--manifests", str(ROOT), "--to-version", "v9.9.9", "--nodes", "3")
    assert "'v9.9.9'" in one_error(r, file=CALICO, key="--to-version")


@pytest.mark.parametrize(
    ("flags", "key"),
    [
        (("--to-version", "v9.9.9"), "--to-version"),
        (("--to-version", "x/y"), "--to-version"),
        (("--to-version", TYPHA, "--from-version", "v9.9.9"), "--from-version"),
        (("--to-version", TYPHA, "--from-version", "../x"), "--from-version"),
    ],
)
def test_cli_plan_version_errors_name_the_flag(
    capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], key: str
) -> None:
    r = run(capsys, "plan", "--manifests", str(ROOT), *flags, "--nodes", "3")
    one_error(r, file=CALICO if "v9.9.9" in flags else None, key=key)


@pytest.mark.parametrize(
    ("flags", "change", "head"),
    [
        (("--nodes", "1"), "reconfigure", f"nothing to change: {TYPHA} (1 node, no Typha) "),
        (
            ("--nodes", "1", "--set", "calicoMode=bgp"),
            "reconfigure",
            f"reconfigure {TYPHA} (1 node, no Typha) -> {TYPHA} ",
        ),
        (("--nodes", "60", "--from-nodes", "1"), "scale", f"scale change {TYPHA} (1 node, "),
        (("--nodes", "2", "--from-version", NO_TYPHA), "upgrade", f"upgrade {NO_TYPHA} (2 nodes"),
    ],
)
def test_cli_plan_says_what_it_changes(
    capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], change: str, head: str
) -> None:
    args = ("plan", "--manifests", str(ROOT), "--to-version", TYPHA, *flags)
    r = run(capsys, *args)
    assert r.code == 0, r.err
    assert r.out.startswith(head) and "1 nodes" not in r.out
    data = json.loads(run(capsys, *args, "--format", "json").out)
    assert data["change"] == change
    validate_output(PLAN_SCHEMA, data)


def test_example_cluster_renders_typha_at_4_and_reports_overrides(
    capsys: pytest.CaptureFixture[str], file_regression: Any
) -> None:
    r = run(
        capsys,
        "--config",
        str(EXAMPLES / "bkecluster-601.yaml"),
        "--nodes-file",
        str(EXAMPLES / "bkenodes-601.yaml"),
    )
    assert r.code == 0, r.err
    # The policy's decision, and each value of the config it overrides, on stderr.
    file_regression.check(r.err, basename="example-601-stderr", extension=".txt")
    objects = parse_files([("out", r.out)])
    typha = next(o for o in objects if o.kind == "Deployment" and o.name == "calico-typha")
    assert typha.data["spec"]["replicas"] == 4
    assert "deploy.bocloud.k8s:40443/openfuyao/calico/" in r.out


def test_api_plan_routes_each_side_once_and_checks_its_output_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    routes: list[int] = []
    real_route = policy.route

    def route(*args: Any, **kwargs: Any) -> Any:
        routes.append(1)
        return real_route(*args, **kwargs)

    monkeypatch.setattr(policy, "route", route)
    result = api.plan(
        api.Request.of(TYPHA, 601, root=ROOT), from_version=NO_TYPHA, capability=capable_by_name
    )
    assert len(routes) == 2
    data = result.to_dict()
    files = result.files()
    assert result.to_dict() == data == json.loads(files["plan.json"])
    data["shape"] = "changed by the caller"
    assert result.to_dict()["shape"] == "introduce-typha"


def test_api_plan_refuses_a_rendered_object_without_a_name(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(ROOT, root)
    (root / "kubernetes" / "calico" / TYPHA / "003-noname.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: kube-system}\n"
    )
    with pytest.raises(TemplateError) as exc:
        api.plan(
            api.Request.of(TYPHA, 601, root=root), from_version=NO_TYPHA, capability=capable_by_name
        )
    assert exc.value.file == f"{TYPHA}/003-noname.yaml" and exc.value.line == 1
    assert exc.value.key == "metadata.name"


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: felixconfigurations.crd.projectcalico.org
spec:
  group: crd.projectcalico.org
  names: {kind: FelixConfiguration, plural: felixconfigurations, singular: felixconfiguration}
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""


def test_cli_plan_prerequisites_are_phase_0_and_typha_phase_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, file_regression: Any
) -> None:
    """The CRDs come in their own gated phase 0; phase 1 is exactly Typha's Service,
    Deployment and PDB; the files are numbered the same way."""
    root = tmp_path / "root"
    for version in (NO_TYPHA, TYPHA):
        shutil.copytree(
            ROOT / "kubernetes" / "calico" / version, root / "kubernetes" / "calico" / version
        )
    (root / "kubernetes" / "calico" / TYPHA / "000-crds.yaml").write_text(CRD, encoding="utf-8")
    out = tmp_path / "phases"
    args = ("plan", "--manifests", str(root), "--from-version", NO_TYPHA, "--to-version", TYPHA)
    r = run(capsys, *args, "--nodes", "601", "--output-dir", str(out))
    assert r.code == 0, r.err
    file_regression.check(r.out.replace(str(tmp_path), "TMP"), extension=".txt")
    assert sorted(p.name for p in out.iterdir() if p.name != OWNED_FILES) == [
        "00-prerequisites.apply.yaml",
        "01-typha.apply.yaml",
        "02-calico-node.apply.yaml",
        "plan.json",
    ]
    typha = parse_files([("01", (out / "01-typha.apply.yaml").read_text(encoding="utf-8"))])
    assert sorted(o.kind for o in typha) == ["Deployment", "PodDisruptionBudget", "Service"]
    first = parse_files([("00", (out / "00-prerequisites.apply.yaml").read_text(encoding="utf-8"))])
    assert [o.kind for o in first] == ["CustomResourceDefinition"]
    assert (
        (out / "00-prerequisites.apply.yaml")
        .read_text(encoding="utf-8")
        .startswith("---\n# phase 0: prerequisites: ")
    )
