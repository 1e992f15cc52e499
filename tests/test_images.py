"""Pre-pull image lists per role, and the images command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from renderer.errors import InputError
from renderer.images import IMAGES_SCHEMA, prepull_images
from renderer.schemas import validate_output

from .clihelp import run

ROOT = Path(__file__).parent / "fixtures" / "tree"
EXAMPLES = Path(__file__).parent.parent / "examples"
PREFIX = "reg.example.com/openfuyao/"


@pytest.mark.parametrize("role", ["master", "worker"])
def test_every_role_pulls_cni_and_node_only(role: str) -> None:
    result = prepull_images("v3.31.3", role, PREFIX)
    assert result.images == (
        f"{PREFIX}calico/cni:v3.31.3",
        f"{PREFIX}calico/node:v3.31.3",
    )
    assert not any("typha" in i or "kube-controllers" in i for i in result.images)
    validate_output(IMAGES_SCHEMA, result.to_dict())


def test_the_tag_is_the_addon_version_verbatim() -> None:
    assert prepull_images("v3.27.3", "worker").images == (
        "calico/cni:v3.27.3",
        "calico/node:v3.27.3",
    )


def test_no_calico_gives_an_empty_list_with_a_note() -> None:
    result = prepull_images(None, "worker", PREFIX)
    assert result.images == () and "no addon named calico" in result.note
    data = result.to_dict()
    assert data["images"] == [] and data["version"] is None
    validate_output(IMAGES_SCHEMA, data)


def test_empty_version_bad_role_and_bad_prefix_are_refused() -> None:
    with pytest.raises(InputError, match="no default"):
        prepull_images(" ", "worker")
    with pytest.raises(InputError, match="role"):
        prepull_images("v3.31.3", "etcd")
    with pytest.raises(InputError, match="trailing slash"):
        prepull_images("v3.31.3", "worker", "reg.example.com/openfuyao")


def test_cli_images_from_config_uses_image_repo(capsys: pytest.CaptureFixture[str]) -> None:
    config = str(EXAMPLES / "bkecluster-601.yaml")
    for role in ("master", "worker"):
        r = run(capsys, "images", "--config", config, "--role", role, "--format", "json")
        assert r.code == 0, r.err
        data = json.loads(r.out)
        assert data["images"] == [
            "deploy.bocloud.k8s:40443/openfuyao/calico/cni:v3.31.3",
            "deploy.bocloud.k8s:40443/openfuyao/calico/node:v3.31.3",
        ]
        assert data["role"] == role


def test_cli_repo_flag_wins_over_image_repo(capsys: pytest.CaptureFixture[str]) -> None:
    config = str(EXAMPLES / "bkecluster-601.yaml")
    r = run(capsys, "images", "--config", config, "--repo", PREFIX)
    assert r.code == 0
    assert r.out.splitlines() == [f"{PREFIX}calico/cni:v3.31.3", f"{PREFIX}calico/node:v3.31.3"]


def test_cli_images_without_calico(capsys: pytest.CaptureFixture[str]) -> None:
    config = str(EXAMPLES / "bkecluster-no-calico.yaml")
    r = run(capsys, "images", "--config", config, "--format", "json")
    assert r.code == 0
    data = json.loads(r.out)
    assert data["images"] == [] and "no addon named calico" in data["note"]
    r = run(capsys, "images", "--config", config)
    assert r.code == 0 and r.out == "" and "no addon named calico" in r.err


def test_cli_images_by_version(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "images", "--manifests", str(ROOT), "--version", "v9.1.0", "--repo", PREFIX)
    assert r.code == 0 and r.out.split() == [
        f"{PREFIX}calico/cni:v9.1.0",
        f"{PREFIX}calico/node:v9.1.0",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ("images",),
        ("images", "--version", "v9.1.0", "--config", "x.yaml"),
        ("images", "--version", "v9.9.9"),
        ("images", "--version", "v9.9"),
        ("images", "--version", "v9.1.0", "--repo", "no-slash"),
    ],
)
def test_cli_images_bad_arguments(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    r = run(capsys, *args, "--manifests", str(ROOT))
    assert r.code == 2 and r.out == "" and "Traceback" not in r.err


@pytest.mark.parametrize("repo", ["", PREFIX])
def test_both_roles_get_the_same_two_images_and_are_told_so(repo: str) -> None:
    master = prepull_images("v3.31.3", "master", repo)
    worker = prepull_images("v3.31.3", "worker", repo)
    assert master.images == worker.images
    assert [i.removeprefix(repo) for i in worker.images] == [
        "calico/cni:v3.31.3",
        "calico/node:v3.31.3",
    ]
    assert (master.role, worker.role) == ("master", "worker")
    assert master.note == worker.note and "same" in master.note
    for result in (master, worker):
        validate_output(IMAGES_SCHEMA, result.to_dict())


def test_cli_role_is_echoed_and_changes_nothing_else(capsys: pytest.CaptureFixture[str]) -> None:
    out = {}
    for role in ("master", "worker"):
        args = ("--manifests", str(ROOT), "--version", "v9.1.0", "--role", role)
        r = run(capsys, "images", *args, "--format", "json")
        assert r.code == 0
        out[role] = json.loads(r.out)
        text = run(capsys, "images", *args)
        assert text.out.split() == ["calico/cni:v9.1.0", "calico/node:v9.1.0"]
        assert "same" in text.err
    assert out["master"]["role"] == "master" and out["worker"]["role"] == "worker"
    assert {**out["master"], "role": "worker"} == out["worker"]
    r = run(capsys, "images", "--help")
    assert "same images" in r.out


def test_cli_images_version_accepts_major_minor(capsys: pytest.CaptureFixture[str]) -> None:
    """``--version vMAJOR.MINOR`` picks the newest patch, as the main command and plan do."""
    args = ("images", "--manifests", str(ROOT), "--version", "v9.1")
    r = run(capsys, *args)
    assert r.code == 0, r.err
    assert r.out.split() == ["calico/cni:v9.1.0", "calico/node:v9.1.0"]
    assert "v9.1 resolved to v9.1.0" in r.err
    r = run(capsys, *args, "--format", "json")
    data = json.loads(r.out)
    assert r.code == 0 and data["version"] == "v9.1.0"
    validate_output(IMAGES_SCHEMA, data)


def test_cli_images_config_version_stays_exact(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (EXAMPLES / "bkecluster-601.yaml").read_text(encoding="utf-8")
    path = tmp_path / "cluster.yaml"
    path.write_text(text.replace("version: v3.31.3", "version: v9.1"), encoding="utf-8")
    r = run(capsys, "images", "--manifests", str(ROOT), "--config", str(path))
    assert r.code == 2 and r.out == ""
    assert "exactly a directory" in r.err and "as a path" in r.err
    assert "available: v9.0.0, v9.1.0" in r.err and str(path) in r.err
