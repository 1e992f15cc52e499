"""The OCI client against a real registry (Debian's docker-registry on 127.0.0.1)."""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

import renderer.oci.client as client_mod
from renderer.oci.client import Answer, Client, RegistryError, Settings, proxy_for
from renderer.oci.manifest import BadAnswer
from renderer.oci.reference import Platform, parse
from tests.registryhelp import (
    CALICO_VERSION,
    PASSWORD,
    USER,
    DrippingServer,
    Registry,
    SilentServer,
    TokenServer,
    TunnelProxy,
    docker_config,
    free_port,
)

AMD64, ARM64 = Platform("linux", "amd64"), Platform("linux", "arm64")
BOTH = (AMD64, ARM64)


def plain(reg: Registry, **kw: object) -> Client:
    return Client(Settings(insecure=frozenset({reg.host}), env={}, **kw))  # type: ignore[arg-type]


def test_an_oci_index_resolves_each_platform_to_its_manifest(registry: Registry) -> None:
    ref = parse(f"{registry.host}/full/calico/cni:{CALICO_VERSION}")
    got = plain(registry).resolve(ref, BOTH)
    assert got.missing == "" and got.manifest is not None and got.manifest.is_index
    assert got.manifest.digest == registry.pushed[f"full/calico/cni:{CALICO_VERSION}"]
    entries = {e.platform: e.digest for e in got.manifest.entries}
    assert got.platforms == {
        AMD64: entries[("linux", "amd64", "")],
        ARM64: entries[("linux", "arm64", "v8")],
    }


def test_a_docker_manifest_list_resolves_like_an_index(registry: Registry) -> None:
    ref = parse(f"{registry.host}/full/calico/node:{CALICO_VERSION}")
    got = plain(registry).resolve(ref, BOTH)
    assert got.manifest is not None
    assert got.manifest.media_type == "application/vnd.docker.distribution.manifest.list.v2+json"
    assert all(got.platforms.values()) and len(set(got.platforms.values())) == 2


@pytest.mark.parametrize("name", ["node", "cni"])  # a Docker and an OCI single manifest
def test_a_single_manifest_serves_the_platform_its_config_names(
    registry: Registry, name: str
) -> None:
    ref = parse(f"{registry.host}/single/calico/{name}:{CALICO_VERSION}")
    got = plain(registry).resolve(ref, BOTH)
    assert got.manifest is not None and not got.manifest.is_index
    assert got.platforms == {AMD64: got.manifest.digest, ARM64: None}
    assert "linux/amd64" in got.reasons[ARM64]


def test_an_index_without_arm64_misses_that_platform_only(registry: Registry) -> None:
    ref = parse(f"{registry.host}/noarm/calico/cni:{CALICO_VERSION}")
    got = plain(registry).resolve(ref, BOTH)
    assert got.platforms[AMD64] and got.platforms[ARM64] is None


def test_a_missing_tag_and_a_missing_repository_are_told_apart(registry: Registry) -> None:
    client = plain(registry)
    assert client.resolve(parse(f"{registry.host}/full/calico/cni:v9.9.9"), BOTH).missing == "tag"
    missing = client.resolve(parse(f"{registry.host}/partial/calico/typha:v1"), BOTH).missing
    assert missing == "repository"


def test_a_pinned_digest_resolves_and_a_wrong_one_is_missing(registry: Registry) -> None:
    pinned = registry.pushed[f"full/calico/cni:{CALICO_VERSION}"]
    client = plain(registry)
    got = client.resolve(parse(f"{registry.host}/full/calico/cni@{pinned}"), BOTH)
    assert got.manifest is not None and got.manifest.digest == pinned
    wrong = "sha256:" + "0" * 64
    assert client.resolve(parse(f"{registry.host}/full/calico/cni@{wrong}"), BOTH).missing


def test_basic_auth_over_tls_with_the_docker_config(
    auth_registry: Registry, tmp_path: Path
) -> None:
    assert auth_registry.ca is not None
    env = docker_config(tmp_path / "docker", auth_registry.host, USER, PASSWORD)
    client = Client(Settings(ca_file=str(auth_registry.ca), env=env))
    got = client.resolve(parse(f"{auth_registry.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)
    assert all(got.platforms.values())


def test_the_containers_auth_file_is_read_first(auth_registry: Registry, tmp_path: Path) -> None:
    assert auth_registry.ca is not None
    env = docker_config(tmp_path / "docker", auth_registry.host, USER, "wrong")
    auth_file = tmp_path / "auth.json"
    docker_config(tmp_path / "containers", auth_registry.host, USER, PASSWORD)
    (tmp_path / "containers" / "config.json").rename(auth_file)
    env["REGISTRY_AUTH_FILE"] = str(auth_file)
    client = Client(Settings(ca_file=str(auth_registry.ca), env=env))
    got = client.resolve(parse(f"{auth_registry.host}/full/calico/node:{CALICO_VERSION}"), BOTH)
    assert all(got.platforms.values())


def test_a_wrong_credential_is_refused_without_printing_it(
    auth_registry: Registry, tmp_path: Path
) -> None:
    assert auth_registry.ca is not None
    env = docker_config(tmp_path / "docker", auth_registry.host, USER, "not-the-password")
    client = Client(Settings(ca_file=str(auth_registry.ca), env=env))
    with pytest.raises(RegistryError) as info:
        client.resolve(parse(f"{auth_registry.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)
    assert "refused the credential" in info.value.message
    assert "not-the-password" not in str(info.value) and str(tmp_path) in info.value.message


def test_no_credential_for_a_protected_registry_says_where_it_looked(
    auth_registry: Registry, tmp_path: Path
) -> None:
    assert auth_registry.ca is not None
    client = Client(Settings(ca_file=str(auth_registry.ca), env={"HOME": str(tmp_path)}))
    with pytest.raises(RegistryError, match="requires credentials"):
        client.resolve(parse(f"{auth_registry.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)


def test_a_certificate_from_an_unknown_ca_is_not_trusted(auth_registry: Registry) -> None:
    client = Client(Settings(env={}, retries=0))
    with pytest.raises(RegistryError, match="TLS certificate not trusted"):
        client.resolve(parse(f"{auth_registry.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)


def test_plain_http_is_spoken_only_to_an_insecure_host(registry: Registry) -> None:
    # the registry speaks HTTP; without --insecure-registry the client insists on TLS
    client = Client(Settings(env={}, retries=0, timeout=5))
    with pytest.raises(RegistryError, match=r"TLS failed|unreachable"):
        client.resolve(parse(f"{registry.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)


def test_a_registry_that_stops_answering_times_out_within_bounds(silent: SilentServer) -> None:
    pauses: list[float] = []
    client = Client(
        Settings(insecure=frozenset({silent.host}), env={}, timeout=0.3, retries=2, backoff=0.1),
        sleep=pauses.append,
    )
    start = time.monotonic()
    with pytest.raises(RegistryError, match=r"no complete answer within 0\.3 s \(3 tries, "):
        client.resolve(parse(f"{silent.host}/calico/cni:v1"), BOTH)
    assert time.monotonic() - start < 3 and pauses == [0.1, 0.2]


def test_a_registry_trickling_its_answer_is_cut_at_the_deadline(
    dripping: DrippingServer,
) -> None:
    """One deadline covers connect, headers and body: every byte comes well within the
    timeout, yet the exchange ends at it, and the error says how long the request took
    (each connection drips for 30 s: without the deadline the request takes that)."""
    server = dripping
    client = Client(
        Settings(insecure=frozenset({server.host}), env={}, timeout=1, retries=1, backoff=0.2)
    )
    start = time.monotonic()
    with pytest.raises(RegistryError) as info:
        client.resolve(parse(f"{server.host}/calico/cni:v1"), BOTH)
    took = time.monotonic() - start
    said = r"no complete answer within 1 s \(2 tries, (\d+\.\d) s in all\)"
    found = re.search(said, str(info.value))
    assert found is not None, str(info.value)
    # two deadlines and the pause between them; the message says what the clock did
    assert 2.2 <= took < 6 and abs(float(found.group(1)) - took) < 0.2
    assert server.connections == 2


def test_an_unreachable_registry_is_an_error_naming_it() -> None:
    host = f"127.0.0.1:{_closed_port()}"
    client = Client(Settings(insecure=frozenset({host}), env={}, retries=1, backoff=0))
    with pytest.raises(RegistryError, match=rf"{host}: unreachable"):
        client.resolve(parse(f"{host}/calico/cni:v1"), BOTH)


def _push_raw(reg: Registry, repo: str, config: bytes, duplicate: bool) -> None:
    cfg = reg.push_blob(repo, config)
    layer = reg.push_blob(repo, b"layer")
    mt = "application/vnd.oci.image.manifest.v1+json"
    cfg_d = {"mediaType": "application/vnd.oci.image.config.v1+json", **cfg}
    layer_d = {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", **layer}
    body = json.dumps({"schemaVersion": 2, "mediaType": mt, "config": cfg_d, "layers": [layer_d]})
    if duplicate:  # Go's decoder (the registry's) takes the last of duplicate keys
        body = body.replace('"schemaVersion": 2,', '"schemaVersion": 2, "schemaVersion": 2,')
    status, _, text = reg.request(
        "PUT", f"/v2/{repo}/manifests/v1", body.encode(), {"Content-Type": mt}
    )
    assert status == 201, text


@pytest.mark.parametrize(
    ("repo", "config", "duplicate", "problem"),
    [
        ("bad/dup", b'{"os": "linux", "architecture": "amd64"}', True, "duplicate key"),
        ("bad/config", b"not json", False, "malformed image config"),
        ("bad/arch", b'{"os": "linux", "architecture": 7}', False, "'architecture'"),
    ],
)
def test_a_malformed_answer_from_the_registry_is_bad_input(
    registry: Registry, repo: str, config: bytes, duplicate: bool, problem: str
) -> None:
    _push_raw(registry, repo, config, duplicate)
    with pytest.raises(BadAnswer, match=problem):
        plain(registry).resolve(parse(f"{registry.host}/{repo}:v1"), BOTH)


def _closed_port() -> int:
    return free_port()


def _scripted(answers: list[Answer | Exception], pauses: list[float]) -> Client:
    """A client whose exchanges return ``answers`` in order: the retry policy alone,
    without any HTTP (the registry tests above exercise the exchange itself)."""

    def exchange(method: str, url: str, headers: Mapping[str, str], max_bytes: int) -> Answer:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    settings = Settings(env={}, retries=3, backoff=0.5)
    return Client(settings, sleep=pauses.append, exchange=exchange)


def test_429_and_5xx_are_retried_with_a_doubling_backoff() -> None:
    pauses: list[float] = []
    answers: list[Answer | Exception] = [
        Answer(503, {}, b""),
        Answer(429, {"retry-after": "2"}, b""),
        ConnectionResetError(),
        Answer(200, {}, b"ok"),
    ]
    got = _scripted(answers, pauses).request("GET", "https://r.io/v2/", {}, 10)
    assert got.status == 200 and pauses == [0.5, 2.0, 2.0]


def test_retries_are_bounded_and_retry_after_is_capped() -> None:
    pauses: list[float] = []
    answers: list[Answer | Exception] = [Answer(429, {"retry-after": "3600"}, b"")] * 4
    got = _scripted(list(answers), pauses).request("GET", "https://r.io/v2/", {}, 10)
    assert got.status == 429 and pauses == [8.0, 8.0, 8.0]


def test_a_client_error_is_not_retried() -> None:
    pauses: list[float] = []
    got = _scripted([Answer(404, {}, b"")], pauses).request("GET", "https://r.io/v2/", {}, 10)
    assert got.status == 404 and pauses == []


def test_bearer_token_auth_answers_the_registry_challenge(
    token_registry: tuple[Registry, TokenServer], tmp_path: Path
) -> None:
    reg, tokens = token_registry
    env = docker_config(tmp_path / "docker", reg.host, USER, PASSWORD)
    insecure = frozenset({reg.host, tokens.host})
    client = Client(Settings(insecure=insecure, env=env))
    before = len(tokens.requests)
    for name in ("cni", "node"):
        got = client.resolve(parse(f"{reg.host}/full/calico/{name}:{CALICO_VERSION}"), BOTH)
        assert all(got.platforms.values())
    asked = tokens.requests[before:]
    # one token per repository, asked for its pull scope and the registry's service
    assert len(asked) == 2 and all("service=calico-render-test" in q for q in asked)
    assert "scope=repository%3Afull%2Fcalico%2Fcni%3Apull" in asked[0]


def test_a_token_service_refusing_the_credential_is_exit_2(
    token_registry: tuple[Registry, TokenServer], tmp_path: Path
) -> None:
    reg, tokens = token_registry
    env = docker_config(tmp_path / "docker", reg.host, USER, "wrong")
    client = Client(Settings(insecure=frozenset({reg.host, tokens.host}), env=env))
    with pytest.raises(RegistryError, match="refused the credential for token"):
        client.resolve(parse(f"{reg.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)


def test_an_answer_larger_than_its_bound_is_refused(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_mod, "MAX_MANIFEST", 200)
    with pytest.raises(BadAnswer, match="more than 200"):
        plain(registry).resolve(parse(f"{registry.host}/full/calico/cni:{CALICO_VERSION}"), BOTH)


def test_a_proxy_tunnels_requests_with_its_credential(
    registry: Registry, proxy: TunnelProxy
) -> None:
    # registry.test is never resolved: the proxy tunnels it to the registry's port
    host = f"registry.test:{registry.host.split(':')[1]}"
    env = {"HTTP_PROXY": f"http://user:pa%40ss@{proxy.host}", "NO_PROXY": "other.test"}
    client = Client(Settings(insecure=frozenset({host}), env=env, retries=0))
    got = client.resolve(parse(f"{host}/full/calico/cni:{CALICO_VERSION}"), BOTH)
    assert all(got.platforms.values())
    expected = "Basic " + base64.b64encode(b"user:pa@ss").decode()
    assert proxy.seen and all(seen == (host, expected) for seen in proxy.seen)


@pytest.mark.parametrize(
    ("host", "env", "proxied"),
    [
        ("r.io", {"HTTPS_PROXY": "http://p:3128"}, True),
        ("r.io", {"https_proxy": "p:3128"}, True),
        ("r.io", {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": ".io"}, False),
        ("a.r.io:5000", {"HTTPS_PROXY": "http://p:3128", "no_proxy": "r.io"}, False),
        ("r.io", {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "*"}, False),
        ("127.0.0.1:5000", {"HTTPS_PROXY": "http://p:3128"}, False),  # loopback, as Go does
        ("localhost:5000", {"HTTPS_PROXY": "http://p:3128"}, False),
        ("r.io", {"HTTP_PROXY": "http://p:3128"}, False),  # https asks HTTPS_PROXY only
    ],
)
def test_the_proxy_comes_from_the_environment(
    host: str, env: dict[str, str], proxied: bool
) -> None:
    assert (proxy_for("https", host, env) is not None) == proxied
