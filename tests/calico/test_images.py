"""Pre-pull image lists per role, and the images command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.calico.images import node_images, prepull_images, repository, tag_mismatches
from renderer.data.schemas import validate_output
from renderer.errors import InputError
from renderer.output.documents import IMAGES as IMAGES_SCHEMA
from renderer.output.documents import ImagesDocument
from tests.clihelp import one_error, run

ROOT = Path(__file__).parents[1] / "fixtures" / "tree"
EXAMPLES = Path(__file__).parents[2] / "examples"
PREFIX = "reg.example.com/openfuyao/"


# BKE's v3.31.3 form: the template picks its own registry when repo is empty.
DEFAULT_FORM = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: calico-typha
  namespace: kube-system
spec:
  template:
    spec:
      containers:
        - name: calico-typha
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/typha:v3.31.3
---
kind: DaemonSet
apiVersion: apps/v1
metadata:
  name: calico-node
  namespace: kube-system
  labels:
    k8s-app: calico-node
spec:
  template:
    spec:
      initContainers:
        - name: upgrade-ipam
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/cni:v3.31.3
        - name: install-cni
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/cni:v3.31.3
{{- if eq .calicoMode "bgp" }}
        - name: bgp-check
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/node:v3.31.3-bgp
{{- end }}
      containers:
        - name: calico-node
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/node:v3.31.3
        - name: flexvol
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/pod2daemon:v3.31.3
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: calico-kube-controllers
  namespace: kube-system
spec:
  template:
    spec:
      containers:
        - name: calico-kube-controllers
          image: {{ if .repo }}{{ .repo }}{{ else }}docker.io/{{ end }}calico/kube-controllers:v3
"""


def tree(tmp_path: Path, text: str = DEFAULT_FORM, version: str = "v3.31.3") -> Path:
    vdir = tmp_path / "kubernetes" / "calico" / version
    vdir.mkdir(parents=True)
    (vdir / "calico.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def daemonset(
    *images: str, init: tuple[str, ...] = (), name: str = "calico-node"
) -> dict[str, Any]:
    return {
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "kube-system"},
        "spec": {
            "template": {
                "spec": {
                    "initContainers": [{"name": f"i{n}", "image": i} for n, i in enumerate(init)],
                    "containers": [{"name": f"c{n}", "image": i} for n, i in enumerate(images)],
                }
            }
        },
    }


def test_images_come_from_the_calico_node_daemonset_only() -> None:
    objects = [
        {"kind": "Deployment", "metadata": {"name": "calico-typha"}, "spec": {}},
        daemonset("calico/node:v1", "calico/pod2daemon-flexvol:v1", init=("calico/cni:v1",)),
        daemonset("calico/node:other", name="not-calico"),
    ]
    assert node_images(objects) == ("calico/cni:v1", "calico/node:v1")


def test_images_are_deduplicated_sorted_cni_first_and_keep_registry_ports() -> None:
    ds = daemonset(
        "r:5000/x/calico/node:v2",
        "r:5000/x/calico/node:v2",
        "r:5000/x/calico/node@sha256:abc",
        init=("r:5000/x/calico/cni:v2", "r:5000/x/calico/cni:v2", "r:5000/x/mycalico/cni:v2"),
    )
    assert node_images([ds]) == (
        "r:5000/x/calico/cni:v2",
        "r:5000/x/calico/node:v2",
        "r:5000/x/calico/node@sha256:abc",
    )
    assert repository("r:5000/x/calico/cni:v2") == "r:5000/x/calico/cni"
    assert repository("r:5000/calico/cni") == "r:5000/calico/cni"


@pytest.mark.parametrize("role", ["master", "worker"])
def test_every_role_pulls_cni_and_node_only(role: str) -> None:
    result = api.prepull_images(api.Request.of("v3.31.3", repo=PREFIX), role=role)
    assert result.images == (
        f"{PREFIX}calico/cni:v3.31.3",
        f"{PREFIX}calico/node:v3.31.3",
    )
    assert not any("typha" in i or "kube-controllers" in i for i in result.images)
    validate_output(IMAGES_SCHEMA, ImagesDocument(result).data())


def test_the_tag_is_what_the_version_renders() -> None:
    assert api.prepull_images(api.Request.of("v3.27.3")).images == (
        "calico/cni:v3.27.3",
        "calico/node:v3.27.3",
    )


def test_default_registry_form_is_rendered_not_guessed(tmp_path: Path) -> None:
    """BKE's ``{{ if .repo }}..{{ else }}docker.io/{{ end }}`` form: no prefix means the
    template's own registry, a prefix replaces it; Typha off, params as user values."""
    root = tree(tmp_path)
    plain = api.prepull_images(api.Request.of("v3.31.3", root=root))
    assert plain.images == ("docker.io/calico/cni:v3.31.3", "docker.io/calico/node:v3.31.3")
    assert plain.repo == "" and "default registry" in plain.note
    prefixed = api.prepull_images(api.Request.of("v3.31", root=root, repo=PREFIX))
    assert prefixed.version == "v3.31.3"
    assert prefixed.images == (f"{PREFIX}calico/cni:v3.31.3", f"{PREFIX}calico/node:v3.31.3")
    bgp = api.prepull_images(api.Request.of("v3.31.3", root=root, values={"calicoMode": "bgp"}))
    assert bgp.images[-1] == "docker.io/calico/node:v3.31.3-bgp"
    for result in (plain, prefixed, bgp):
        validate_output(IMAGES_SCHEMA, ImagesDocument(result).data())


def test_cli_config_without_prefix_gets_the_templates_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tree(tmp_path / "root")
    text = (EXAMPLES / "bkecluster-601.yaml").read_text(encoding="utf-8")
    config = tmp_path / "cluster.yaml"
    config.write_text(text.replace("        prefix: openfuyao\n", ""), encoding="utf-8")
    r = run(
        capsys,
        "images",
        "--manifests",
        str(root),
        "--config",
        str(config),
        "--no-admission-defaults",
    )
    assert r.code == 0, r.err
    assert r.out.split() == ["docker.io/calico/cni:v3.31.3", "docker.io/calico/node:v3.31.3"]


def test_cli_config_without_prefix_on_bke_s_domain_gets_the_admission_prefix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """BKE's webhook gives its own registry domain the prefix `kubernetes`."""
    root = tree(tmp_path / "root")
    text = (EXAMPLES / "bkecluster-601.yaml").read_text(encoding="utf-8")
    config = tmp_path / "cluster.yaml"
    config.write_text(text.replace("        prefix: openfuyao\n", ""), encoding="utf-8")
    r = run(capsys, "images", "--manifests", str(root), "--config", str(config))
    assert r.code == 0, r.err
    assert r.out.split() == [
        "deploy.bocloud.k8s:40443/kubernetes/calico/cni:v3.31.3",
        "deploy.bocloud.k8s:40443/kubernetes/calico/node:v3.31.3",
    ]


def test_a_render_without_cni_or_node_image_is_exit_2_naming_the_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tree(
        tmp_path, DEFAULT_FORM.replace("calico/cni:", "x/cni:").replace("calico/node:", "x/node:")
    )
    with pytest.raises(InputError, match=r"v3\.31\.3 renders no calico/cni or calico/node") as exc:
        api.prepull_images(api.Request.of("v3.31.3", root=root))
    assert exc.value.file is not None and exc.value.file.endswith("v3.31.3")
    r = run(capsys, "images", "--manifests", str(root), "--version", "v3.31.3")
    one_error(r, file=exc.value.file)
    assert r.out == ""


def test_no_calico_gives_an_empty_list_with_a_note() -> None:
    result = prepull_images(None, "worker", PREFIX)
    assert result.images == () and "no addon named calico" in result.note
    data = ImagesDocument(result).data()
    assert data["images"] == [] and data["version"] is None
    validate_output(IMAGES_SCHEMA, data)


def test_empty_version_bad_role_and_bad_prefix_are_refused() -> None:
    ds = [daemonset("calico/node:v1")]
    with pytest.raises(InputError) as err:
        prepull_images(" ", "worker", "", ds)
    assert err.value.key == "version"
    with pytest.raises(InputError) as err:
        prepull_images("v3.31.3", "bogus", "", ds)
    assert err.value.key == "role" and "'bogus'" in err.value.message
    with pytest.raises(InputError) as err:
        prepull_images("v3.31.3", "worker", "reg.example.com/openfuyao", ds)
    assert err.value.key == "image_prefix"
    with pytest.raises(InputError) as err:
        api.prepull_images(api.Request.of("v3.31.3", repo="reg.example.com/openfuyao"))
    assert err.value.key == "image_prefix"
    with pytest.raises(InputError) as err:
        prepull_images("v1", "worker", "", [daemonset("bad name/calico/node:v1")])
    assert "'bad name/calico/node:v1'" in err.value.message  # names the offending image


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
    one_error(r)
    assert r.out == ""


@pytest.mark.parametrize("repo", ["", PREFIX])
def test_both_roles_get_the_same_two_images_and_are_told_so(repo: str) -> None:
    master = api.prepull_images(api.Request.of("v3.31.3", repo=repo), role="master")
    worker = api.prepull_images(api.Request.of("v3.31.3", repo=repo), role="worker")
    assert master.images == worker.images
    assert [i.removeprefix(repo) for i in worker.images] == [
        "calico/cni:v3.31.3",
        "calico/node:v3.31.3",
    ]
    assert (master.role, worker.role) == ("master", "worker")
    assert master.note == worker.note and "same" in master.note
    for result in (master, worker):
        validate_output(IMAGES_SCHEMA, ImagesDocument(result).data())


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
    message = one_error(r, file=path, key="spec.clusterConfig.addons[1].version")
    assert "'v9.1'" in message and "v9.0.0, v9.1.0" in message and r.out == ""


@pytest.mark.parametrize("role", ["etcd", "etcd-event", "etcd-pod"])
def test_dedicated_etcd_roles_pull_nothing(role: str) -> None:
    result = api.prepull_images(api.Request.of("v3.31.3"), role=role)
    assert result.images == () and result.role == role and "no kubelet" in result.note


@pytest.mark.parametrize("role", ["node", "master/node", "apiserver", "controller-manager"])
def test_roles_with_a_kubelet_pull_what_workers_pull(role: str) -> None:
    assert (
        api.prepull_images(api.Request.of("v3.31.3"), role=role).images
        == api.prepull_images(api.Request.of("v3.31.3")).images
    )


def test_tags_other_than_the_version_are_warned() -> None:
    assert tag_mismatches("v3.31.3", ["r/calico/cni:v3.31.3", "calico/node:v3.31.3"]) == []
    found = tag_mismatches("v3.31.3", ["calico/cni:v3.31.3", "reg:5000/calico/node:v3.31.4"])
    assert len(found) == 1 and "'v3.31.4'" in found[0] and "calico/node:v3.31.3" in found[0]
    assert len(tag_mismatches("v1", ["calico/node", "calico/cni@sha256:ab"])) == 2
