"""``calico-render images``: the same list in text and JSON; one of --version/--config."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from renderer import api
from renderer.calico.images import ImageList
from renderer.cli import cli
from renderer.cli.images import image_warnings
from renderer.data.bundled import bundled_manifests
from renderer.data.schemas import IMAGES_REGISTRY
from renderer.output.documents import IMAGES
from renderer.output.listed import ADDON_IMAGES
from tests.cli.jsondoc import json_doc
from tests.clihelp import one_error, ref, run
from tests.registryhelp import (
    CALICO_VERSION,
    PASSWORD,
    USER,
    DrippingServer,
    Registry,
    SilentServer,
    docker_config,
)


def test_text_lists_the_json_images_one_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = json_doc(capsys, IMAGES, "images", "--version", "v3.28.2", "--repo", "r.io/x/")
    assert code == 0 and (data["version"], data["role"], data["repo"]) == (
        "v3.28.2",
        "worker",
        "r.io/x/",
    )
    assert [i.rsplit(":", 1)[0] for i in data["images"]] == [
        "r.io/x/calico/cni",
        "r.io/x/calico/node",
    ]
    r = run(capsys, "images", "--version", "v3.28.2", "--repo", "r.io/x/")
    assert (r.code, r.out.splitlines()) == (0, data["images"])
    assert data["note"] and r.err == f"calico-render: {data['note']}\n"  # on stderr in text


def test_a_minor_version_resolves_to_the_newest_patch_with_a_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    r = run(capsys, "images", "--version", "v3.28")
    assert r.code == 0 and r.err.startswith("calico-render: --version v3.28 resolved to v3.28.2")


@pytest.mark.parametrize("args", [(), ("--version", "v3.28", "--config", "c.yaml")])
def test_exactly_one_of_version_or_config(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    r = run(capsys, "images", *args)
    assert r.code == 2 and r.out == "" and r.err.startswith("calico-render: error: --version: ")


def test_a_bad_prefix_names_the_repo_flag(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "images", "--version", "v3.28", "--repo", "no-slash")
    assert r.code == 2 and r.err.startswith("calico-render: error: --repo: ")


# --- --check-registry against a real registry (Debian's docker-registry on 127.0.0.1) -----


def _check(reg: Registry, namespace: str, *args: str) -> list[str]:
    return [
        "images",
        "--check-registry",
        "--registry",
        f"{reg.host}/{namespace}",
        "--insecure-registry",
        reg.host,
        "--retries",
        "0",
        *args,
    ]


def _masked(data: Any, host: str) -> Any:
    """``data`` with the registry's host:port (a free port each run) as REGISTRY."""
    return json.loads(json.dumps(data).replace(host, "REGISTRY"))


def test_every_image_of_every_scenario_resolves_for_both_platforms(
    capsys: pytest.CaptureFixture[str],
    registry: Registry,
    tmp_path: Path,
    data_regression: Any,
) -> None:
    lock = tmp_path / "release.lock.json"
    args = _check(registry, "full", "--version", "v3.28", "--lock", str(lock))
    code, data = json_doc(capsys, IMAGES_REGISTRY, *args)
    assert code == 0 and data["passed"] and data["findings"] == []
    names = [i["reference"].split("/full/", 1)[1] for i in data["images"]]
    assert names == [
        f"calico/{c}:{CALICO_VERSION}" for c in ("cni", "kube-controllers", "node", "typha")
    ]
    for image in data["images"]:
        pushed = registry.pushed[image["reference"].split("/", 1)[1]]
        assert image["manifest"] == pushed
        assert [p["platform"] for p in image["platforms"]] == ["linux/amd64", "linux/arm64"]
        assert all(p["digest"] for p in image["platforms"])
    # Typha is rendered only where the scenarios turn it on
    typha = next(i for i in data["images"] if "typha" in i["image"])
    assert typha["uses"][0]["scenarios"] == ["nodes-51", "nodes-601"]
    data_regression.check(_masked(data, registry.host))
    locked = json.loads(lock.read_text())
    jsonschema.validate(locked, api.schema("image-lock"))  # what a consumer does
    assert len(locked["images"]) == 8 and locked["version"] == CALICO_VERSION
    # the same registry verifies against its own lock
    r = run(capsys, *_check(registry, "full", "--version", "v3.28", "--verify-lock", str(lock)))
    assert r.code == 0 and r.out.splitlines()[-1].startswith("PASS: Calico v3.28.2, 4 images")


def test_a_changed_digest_fails_the_lock(
    capsys: pytest.CaptureFixture[str], registry: Registry, tmp_path: Path
) -> None:
    lock = tmp_path / "lock.json"
    assert (
        run(capsys, *_check(registry, "full", "--version", "v3.28", "--lock", str(lock))).code == 0
    )
    data = json.loads(lock.read_text())
    data["images"][0]["digest"] = "sha256:" + "0" * 64
    data["images"].append({**data["images"][1], "image": "calico/gone:v1"})
    lock.write_text(json.dumps(data))
    code, report = json_doc(
        capsys,
        IMAGES_REGISTRY,
        *_check(registry, "full", "--version", "v3.28", "--verify-lock", str(lock)),
    )
    assert code == 1 and not report["passed"]
    found = {(f["rule"], f["severity"]) for f in report["findings"]}
    assert found == {("registry-digest-changed", "error"), ("registry-lock-stale", "warning")}
    changed = next(f for f in report["findings"] if f["rule"] == "registry-digest-changed")
    where = changed["location"]
    assert (where["path"], where["line"]) == ("kubernetes/calico/v3.28.2/002-calico.yaml", 520)


def test_a_missing_repository_names_the_template_line_that_renders_it(
    capsys: pytest.CaptureFixture[str], registry: Registry
) -> None:
    code, data = json_doc(
        capsys, IMAGES_REGISTRY, *_check(registry, "partial", "--version", "v3.28")
    )
    assert code == 1
    (f,) = data["findings"]
    assert (f["stage"], f["rule"], f["severity"]) == (
        "registry",
        "registry-repository-missing",
        "error",
    )
    assert (f["location"]["path"], f["location"]["line"], ref(f["object"])) == (
        "kubernetes/calico/v3.28.2/001-typha.yaml",
        79,
        "Deployment kube-system/calico-typha",
    )
    assert f["field"] == "spec.template.spec.containers[0].image"
    assert "linux/amd64, linux/arm64" in f["message"]


def test_a_missing_tag_is_an_error_per_image(
    capsys: pytest.CaptureFixture[str], registry: Registry
) -> None:
    code, data = json_doc(capsys, IMAGES_REGISTRY, *_check(registry, "full", "--version", "v3.29"))
    assert code == 1 and {f["rule"] for f in data["findings"]} == {"registry-tag-missing"}
    assert len(data["findings"]) == 4 and all(i["missing"] == "tag" for i in data["images"])


def test_an_index_without_arm64_fails_that_platform_only(
    capsys: pytest.CaptureFixture[str], registry: Registry
) -> None:
    code, data = json_doc(capsys, IMAGES_REGISTRY, *_check(registry, "noarm", "--version", "v3.28"))
    assert code == 1
    assert [
        (f["rule"], f["location"]["path"], f["location"]["line"]) for f in data["findings"]
    ] == [("registry-platform-missing", "kubernetes/calico/v3.28.2/002-calico.yaml", 520)]
    assert "linux/arm64" in data["findings"][0]["message"]
    r = run(capsys, *_check(registry, "noarm", "--version", "v3.28", "--platform", "linux/amd64"))
    assert r.code == 0


def test_junit_has_a_case_per_image_and_platform(
    capsys: pytest.CaptureFixture[str], registry: Registry
) -> None:
    r = run(capsys, *_check(registry, "noarm", "--version", "v3.28", "--format", "junit"))
    root = ET.fromstring(r.out)
    cases = root.findall(".//testcase")
    assert r.code == 1 and len(cases) == 8
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == [f"{registry.host}/noarm/calico/cni:{CALICO_VERSION} linux/arm64"]


@pytest.mark.parametrize(("role", "count"), [("worker", 2), ("etcd", 0)])
def test_a_role_checks_its_prepull_list(
    capsys: pytest.CaptureFixture[str], registry: Registry, role: str, count: int
) -> None:
    code, data = json_doc(
        capsys, IMAGES_REGISTRY, *_check(registry, "partial", "--version", "v3.28", "--role", role)
    )
    assert code == 0 and len(data["images"]) == count  # typha, missing there, is not pulled


def test_basic_auth_over_tls_from_the_docker_config(
    capsys: pytest.CaptureFixture[str],
    auth_registry: Registry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in docker_config(tmp_path / "d", auth_registry.host, USER, PASSWORD).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("REGISTRY_AUTH_FILE", raising=False)
    args = ["images", "--version", "v3.28", "--check-registry", "--registry",
            f"https://{auth_registry.host}/full", "--ca-file", str(auth_registry.ca)]  # fmt: skip
    r = run(capsys, *args)
    assert r.code == 0, r.err
    assert PASSWORD not in r.out + r.err


def test_a_wrong_credential_is_exit_2_without_the_secret(
    capsys: pytest.CaptureFixture[str],
    auth_registry: Registry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "wrong-Secret-123"
    for key, value in docker_config(tmp_path / "d", auth_registry.host, USER, secret).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("REGISTRY_AUTH_FILE", raising=False)
    args = ["images", "--version", "v3.28", "--check-registry", "--registry",
            f"{auth_registry.host}/full", "--ca-file", str(auth_registry.ca)]  # fmt: skip
    message = one_error(run(capsys, *args))
    assert message.startswith(f"{auth_registry.host}/full/calico/cni:{CALICO_VERSION}: ")
    assert "refused the credential" in message and secret not in message


def test_a_certificate_of_an_unknown_ca_is_exit_2_naming_the_flag(
    capsys: pytest.CaptureFixture[str], auth_registry: Registry
) -> None:
    args = ["images", "--version", "v3.28", "--check-registry", "--retries", "0",
            "--registry", f"{auth_registry.host}/full"]  # fmt: skip
    message = one_error(run(capsys, *args))
    assert "TLS certificate not trusted" in message and message.endswith("give --ca-file")


def test_a_registry_that_stops_answering_is_exit_2(
    capsys: pytest.CaptureFixture[str], silent: SilentServer
) -> None:
    args = ["images", "--version", "v3.28", "--check-registry", "--registry", silent.host,
            "--insecure-registry", silent.host, "--timeout", "0.3", "--retries", "1"]  # fmt: skip
    message = one_error(run(capsys, *args))
    assert "no complete answer within 0.3 s (2 tries, " in message  # the bound: tests/oci


def test_a_registry_trickling_its_answer_is_cut_at_the_timeout(
    capsys: pytest.CaptureFixture[str], dripping: DrippingServer
) -> None:
    """``--timeout`` bounds the whole exchange, not each byte of it."""
    host = dripping.host
    args = ["images", "--version", "v3.28", "--check-registry", "--registry", host,
            "--insecure-registry", host, "--timeout", "1", "--retries", "0"]  # fmt: skip
    start = time.monotonic()
    message = one_error(run(capsys, *args))
    assert time.monotonic() - start < 5
    assert re.search(r"no complete answer within 1 s \(1 try, 1\.\d s in all\)", message), message


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (("--check-registry", "--platform", "linux/amd64,windows"), "--platform"),
        (("--check-registry", "--registry", "http://127.0.0.1:1"), "--registry"),
        (("--platform", "linux/amd64"), "--platform"),
        (("--format", "junit"), "--format"),
    ],
)
def test_bad_registry_flags_are_exit_2_naming_the_flag(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], key: str
) -> None:
    one_error(run(capsys, "images", "--version", "v3.28", *args), key=key)


CONFIG = """apiVersion: bke.bocloud.com/v1beta1
kind: BKEConfig
metadata:
  name: release
spec:
  cluster:
    imageRepo:
      domain: 127.0.0.1
      port: "{port}"
      prefix: {prefix}
    networking:
      podSubnet: 10.244.0.0/16
  addons:
    - name: calico
      version: v3.28.2
"""


@pytest.mark.parametrize(("prefix", "code"), [("full", 0), ("noarm", 1)])
def test_a_config_checks_its_own_image_repo(
    capsys: pytest.CaptureFixture[str], registry: Registry, tmp_path: Path, prefix: str, code: int
) -> None:
    config = tmp_path / "cluster.yaml"
    config.write_text(CONFIG.format(port=registry.host.split(":")[1], prefix=prefix))
    args = ["images", "--config", str(config), "--check-registry",
            "--insecure-registry", registry.host, "--retries", "0"]  # fmt: skip
    got, data = json_doc(capsys, IMAGES_REGISTRY, *args)
    assert got == code and data["registry"] is None and len(data["images"]) == 4
    assert all(i["image"].startswith(f"{registry.host}/{prefix}/calico/") for i in data["images"])


def test_the_repo_prefix_is_where_images_are_checked(
    capsys: pytest.CaptureFixture[str], registry: Registry
) -> None:
    args = ["images", "--version", "v3.28", "--repo", f"{registry.host}/full/",
            "--check-registry", "--insecure-registry", registry.host]  # fmt: skip
    r = run(capsys, *args)
    assert r.code == 0 and r.out.count("\nok ") + r.out.startswith("ok ") == 4


def _parses(command: str) -> None:
    """``command`` (a calico-render line of the docs) parses with the CLI's own flags."""
    args = shlex.split(command.replace("\\\n", " ").split(" > ")[0])[1:]
    with cli.make_context("calico-render", list(args), resilient_parsing=False) as ctx:
        name, sub, rest = cli.resolve_command(ctx, args)
        assert sub is not None and name == "images"
        sub.make_context(name, rest, parent=ctx)  # raises on an unknown flag


def test_the_release_validation_job_keeps_the_lock_and_its_commands_parse() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text(encoding="utf-8")
    section = doc.split("## Release validation (installer-service)", 1)[1].split("\n## ", 1)[0]
    blocks = [YAML(typ="safe").load(b) for b in re.findall(r"```yaml\n(.*?)```", section, re.S)]
    (job,) = [b["calico-release-images"] for b in blocks if "calico-release-images" in b]
    (command,) = [s for s in job["script"] if s.startswith("calico-render ")]
    assert "--check-registry" in command and '--lock "calico-$CALICO_VERSION.lock.json"' in command
    assert job["artifacts"]["when"] == "always"
    assert job["artifacts"]["paths"] == ["calico-$CALICO_VERSION.lock.json"]
    assert job["artifacts"]["reports"] == {"junit": "calico-images.xml"}
    _parses(command)
    for sh in re.findall(r"```sh\n(.*?)```", section, re.S):
        _parses(sh.strip())


@pytest.mark.parametrize("content", ["{not json", '{"tool": "calico-render images --lock"}'])
def test_a_bad_lock_is_exit_2_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    lock = tmp_path / "release.lock.json"
    lock.write_text(content)
    args = ["images", "--version", "v3.28", "--check-registry", "--verify-lock", str(lock)]
    one_error(run(capsys, *args), file=lock)


def test_sarif_annotates_the_template_line_that_renders_a_missing_platform(
    capsys: pytest.CaptureFixture[str], registry: Registry
) -> None:
    r = run(capsys, *_check(registry, "noarm", "--version", "v3.28", "--format", "sarif"))
    log = json.loads(r.out)
    (result,) = log["runs"][0]["results"]
    assert r.code == 1 and result["ruleId"] == "registry-platform-missing"
    assert result["level"] == "error" and "linux/arm64" in result["message"]["text"]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"].endswith("v3.28.2/002-calico.yaml")
    assert physical["region"]["startLine"] == 520


def test_image_warnings_name_each_image_tagged_otherwise() -> None:
    images = ("r/calico/cni:v3.28.2", "r/calico/node:v3.28.1", "r/calico/typha")
    warnings = image_warnings(ImageList("v3.28.2", "worker", "r/", images))
    assert [w.split()[0] for w in warnings] == ["r/calico/node:v3.28.1", "r/calico/typha"]
    assert image_warnings(ImageList(None, "worker", "r/", images)) == []


COREDNS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: coredns}}
  template:
    metadata: {labels: {k8s-app: coredns}}
    spec:
      containers:
        - name: coredns
          image: {{ .repo }}coredns/coredns:v1.10.1
"""


def _two_addons(root: Path, registry: Registry, prefix: str) -> Path:
    """The bundled Calico v3.28.2 and a coredns of one Deployment, and a BKEConfig
    listing both with the registry's ``prefix`` as image prefix."""
    shutil.copytree(
        bundled_manifests() / "kubernetes" / "calico" / "v3.28.2",
        root / "kubernetes" / "calico" / "v3.28.2",
    )
    (root / "kubernetes" / "coredns" / "v1.10.1").mkdir(parents=True)
    (root / "kubernetes" / "coredns" / "v1.10.1" / "coredns.yaml").write_text(COREDNS)
    config = root / "cluster.yaml"
    config.write_text(
        CONFIG.format(port=registry.host.split(":")[1], prefix=prefix)
        + "    - name: coredns\n      version: v1.10.1\n"
    )
    return config


def test_every_listed_addons_images_per_role_and_in_the_registry(
    capsys: pytest.CaptureFixture[str], registry: Registry, tmp_path: Path
) -> None:
    """--addon all: each listed addon's images per node role; with --check-registry,
    every image each renders is resolved, the report naming the addons (coredns was
    never pushed: its repository is missing, at its template line)."""
    config = _two_addons(tmp_path, registry, "full")
    args = ["images", "--manifests", str(tmp_path), "--config", str(config), "--addon", "all"]
    code, data = json_doc(capsys, ADDON_IMAGES, *args)
    assert code == 0 and [(a["name"], a["status"]) for a in data["addons"]] == [
        ("calico", "rendered"),
        ("coredns", "rendered"),
    ]
    assert data["addons"][1]["images"]["node"] == [f"{registry.host}/full/coredns/coredns:v1.10.1"]
    assert data["addons"][1]["images"]["etcd"] == []
    checked = [*args, "--check-registry", "--insecure-registry", registry.host, "--retries", "0"]
    code, data = json_doc(capsys, IMAGES_REGISTRY, *checked)
    assert code == 1 and data["addons"] == ["calico/v3.28.2", "coredns/v1.10.1"]
    assert len(data["images"]) == 5
    [missing] = data["findings"]
    assert missing["rule"] == "registry-repository-missing"
    assert missing["location"] == {
        "path": "kubernetes/coredns/v1.10.1/coredns.yaml",
        "line": 11,
        "column": None,
    }
    code, data = json_doc(capsys, IMAGES_REGISTRY, *checked[:-7], "--addon", "calico",
                          *checked[-5:])  # fmt: skip
    assert code == 0 and data["addons"] == ["calico/v3.28.2"]
    assert "--config" in one_error(run(capsys, "images", "--version", "v3.28", "--addon", "all"))
