"""A real Distribution registry (Debian's ``docker-registry``) for the tests, and content
pushed to it through its own HTTP API.

The registry listens on 127.0.0.1 on a free port with its storage in a temporary
directory; variants add htpasswd basic auth and TLS with a CA made here (``openssl``).
Tests skip, saying why, where the binary (or openssl, or bcrypt) is missing. Nothing
here talks to any host but 127.0.0.1.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import selectors
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REGISTRY_BIN = shutil.which("docker-registry") or (
    "/usr/bin/docker-registry" if os.path.exists("/usr/bin/docker-registry") else None
)
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
USER, PASSWORD = "release", "s3cret-Pa55"


def need_registry() -> str:
    if REGISTRY_BIN is None:
        pytest.skip("docker-registry is not installed (Debian package docker-registry)")
    return REGISTRY_BIN


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def digest(body: bytes) -> str:
    return "sha256:" + hashlib.sha256(body).hexdigest()


def make_ca(directory: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 signed by it: (ca, cert, key)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (Debian package openssl)")
    ca_key, ca, key, csr, cert = (
        directory / n for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem")
    )
    ext = directory / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")

    def ssl_cmd(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    ssl_cmd("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out",
            str(ca), "-days", "2", "-subj", "/CN=calico-render test CA")  # fmt: skip
    ssl_cmd("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
            "-subj", "/CN=127.0.0.1")  # fmt: skip
    ssl_cmd("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
            "-CAcreateserial", "-out", str(cert), "-days", "2", "-extfile", str(ext))  # fmt: skip
    return ca, cert, key


def htpasswd(path: Path, user: str, password: str) -> None:
    """An htpasswd file with a bcrypt hash (the only kind the registry accepts)."""
    bcrypt = pytest.importorskip("bcrypt", reason="bcrypt is a test dependency")
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
    path.write_text(f"{user}:{hashed}\n")


@dataclass
class Registry:
    """A running registry: ``host`` is ``127.0.0.1:PORT``; ``ca`` set for TLS."""

    host: str
    process: subprocess.Popen[bytes]
    ca: Path | None = None
    basic: str | None = None
    pushed: dict[str, str] = field(default_factory=dict)
    #: For a token registry: a token granting pull and push on a repository.
    mint: Callable[[str], str] | None = None

    def _conn(self) -> http.client.HTTPConnection:
        if self.ca is not None:
            ctx = ssl.create_default_context(cafile=str(self.ca))
            return http.client.HTTPSConnection(self.host, timeout=10, context=ctx)
        return http.client.HTTPConnection(self.host, timeout=10)

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = self._conn()
        hdrs = dict(headers or {})
        if self.basic:
            hdrs["Authorization"] = self.basic
        repo = path[4:].split("/blobs/")[0].split("/manifests/")[0]
        if self.mint is not None and path.startswith("/v2/") and repo:
            hdrs["Authorization"] = f"Bearer {self.mint(repo)}"
        try:
            conn.request(method, path, body=body or None, headers=hdrs)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def push_blob(self, repo: str, body: bytes) -> dict[str, Any]:
        d = digest(body)
        status, headers, _ = self.request("POST", f"/v2/{repo}/blobs/uploads/")
        assert status == 202, status
        location = headers["location"]
        sep = "&" if "?" in location else "?"
        if location.startswith("http"):
            location = "/" + location.split("/", 3)[3]
        status, _, text = self.request(
            "PUT",
            f"{location}{sep}digest={d}",
            body,
            {"Content-Type": "application/octet-stream"},
        )
        assert status == 201, (status, text)
        return {"digest": d, "size": len(body)}

    def push_manifest(self, repo: str, ref: str, media_type: str, data: dict[str, Any]) -> str:
        body = json.dumps(data, indent=2).encode()
        status, _, text = self.request(
            "PUT", f"/v2/{repo}/manifests/{ref}", body, {"Content-Type": media_type}
        )
        assert status == 201, (status, text)
        self.pushed[f"{repo}:{ref}"] = digest(body)
        return digest(body)

    def push_image(
        self, repo: str, arch: str, docker: bool = False, tag: str | None = None
    ) -> tuple[str, int]:
        """One single-platform image (linux/``arch``); its manifest digest and size."""
        config = json.dumps(
            {"architecture": arch, "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}}
        ).encode()
        cfg = self.push_blob(repo, config)
        layer = self.push_blob(repo, f"layer of {repo} for {arch}".encode())
        if docker:
            mt, cfg_mt, layer_mt = (
                DOCKER_MANIFEST,
                "application/vnd.docker.container.image.v1+json",
                "application/vnd.docker.image.rootfs.diff.tar.gzip",
            )
        else:
            mt, cfg_mt, layer_mt = (
                OCI_MANIFEST,
                "application/vnd.oci.image.config.v1+json",
                "application/vnd.oci.image.layer.v1.tar+gzip",
            )
        manifest = {
            "schemaVersion": 2,
            "mediaType": mt,
            "config": {"mediaType": cfg_mt, **cfg},
            "layers": [{"mediaType": layer_mt, **layer}],
        }
        body = json.dumps(manifest, indent=2).encode()
        pushed = self.push_manifest(repo, tag or digest(body), mt, manifest)
        return pushed, len(body)

    def push_index(self, repo: str, tag: str, arches: tuple[str, ...], docker: bool = False) -> str:
        """An OCI index (or a Docker manifest list) of linux/``arches``; its digest."""
        child = DOCKER_MANIFEST if docker else OCI_MANIFEST
        entries = []
        for arch in arches:
            d, size = self.push_image(repo, arch, docker)
            platform = {"architecture": arch, "os": "linux"}
            if arch == "arm64":
                platform["variant"] = "v8"
            entries.append({"mediaType": child, "digest": d, "size": size, "platform": platform})
        mt = DOCKER_LIST if docker else OCI_INDEX
        return self.push_manifest(
            repo, tag, mt, {"schemaVersion": 2, "mediaType": mt, "manifests": entries}
        )

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TokenServer:
    """A token service on 127.0.0.1 (what a registry's ``auth: token`` realm points
    at): it answers a request with valid basic credentials by a JWT granting the
    requested scope, signed (RS256, ``openssl dgst``) by a key whose certificate the
    registry trusts (``x5c``); anything else is 401."""

    SERVICE = "calico-render-test"
    ISSUER = "calico-render-test-issuer"

    def __init__(self, directory: Path) -> None:
        if shutil.which("openssl") is None:
            pytest.skip("openssl is not installed (Debian package openssl)")
        self.key, self.cert = directory / "token.key", directory / "token.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
             str(self.key), "-out", str(self.cert), "-days", "2", "-subj", "/CN=token signer"],
            check=True, capture_output=True,
        )  # fmt: skip
        der = subprocess.run(
            ["openssl", "x509", "-in", str(self.cert), "-outform", "DER"],
            check=True,
            capture_output=True,
        ).stdout
        self.x5c = base64.b64encode(der).decode()
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.end_headers()
                    return
                scope = query.get("scope", [""])[0]
                repo = scope.split(":")[1] if scope.count(":") == 2 else ""
                body = json.dumps({"token": server.mint(repo, ["pull"]), "expires_in": 300})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def realm(self) -> str:
        return f"http://{self.host}/token"

    def mint(self, repo: str, actions: list[str]) -> str:
        now = int(time.time())
        header = {"typ": "JWT", "alg": "RS256", "x5c": [self.x5c]}
        claims = {
            "iss": self.ISSUER, "sub": USER, "aud": self.SERVICE, "exp": now + 300,
            "nbf": now - 10, "iat": now, "jti": f"{repo}-{now}-{time.monotonic_ns()}",
            "access": [{"type": "repository", "name": repo, "actions": actions}] if repo else [],
        }  # fmt: skip
        signing = f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(claims).encode())}"
        signature = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", str(self.key)],
            input=signing.encode(),
            check=True,
            capture_output=True,
        ).stdout
        return f"{signing}.{_b64url(signature)}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def start_registry(
    directory: Path,
    *,
    tls: bool = False,
    basic_auth: bool = False,
    token: TokenServer | None = None,
) -> Registry:
    """A registry on 127.0.0.1 (a free port), storage under ``directory``; a port taken
    between choosing and listening (parallel test workers) is replaced by another."""
    for _ in range(5):
        registry = _start(directory, free_port(), tls, basic_auth, token)
        if registry is not None:
            return registry
    raise RuntimeError(f"docker-registry did not start: {(directory / 'registry.log').read_text()}")


def _start(
    directory: Path, port: int, tls: bool, basic_auth: bool, token: TokenServer | None
) -> Registry | None:
    binary = need_registry()
    directory.mkdir(parents=True, exist_ok=True)
    lines = [
        "version: 0.1",
        "log: {level: error, accesslog: {disabled: true}}",
        "storage:",
        f"  filesystem: {{rootdirectory: {directory / 'data'}}}",
        "  delete: {enabled: true}",
        "http:",
        f"  addr: 127.0.0.1:{port}",
        "  secret: calico-render-test",
    ]
    ca = None
    if tls:
        ca, cert, key = make_ca(directory)
        lines += ["  tls:", f"    certificate: {cert}", f"    key: {key}"]
    basic = None
    if basic_auth:
        path = directory / "htpasswd"
        htpasswd(path, USER, PASSWORD)
        lines += ["auth:", f"  htpasswd: {{realm: calico-render-test, path: {path}}}"]
        basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    if token is not None:
        lines += [
            "auth:",
            "  token:",
            f"    realm: {token.realm}",
            f"    service: {token.SERVICE}",
            f"    issuer: {token.ISSUER}",
            f"    rootcertbundle: {token.cert}",
        ]
    config = directory / "config.yml"
    config.write_text("\n".join(lines) + "\n")
    with (directory / "registry.log").open("wb") as log:
        process = subprocess.Popen(
            [binary, "serve", str(config)], stdout=log, stderr=subprocess.STDOUT, cwd=directory
        )
    mint = None if token is None else (lambda repo: token.mint(repo, ["pull", "push"]))
    registry = Registry(f"127.0.0.1:{port}", process, ca, basic, mint=mint)
    deadline = time.monotonic() + 15
    while process.poll() is None and time.monotonic() < deadline:
        try:
            status, _, _ = registry.request("GET", "/v2/")
        except OSError:
            time.sleep(0.05)
            continue
        # still ours: a registry that lost the port to another exits at once
        time.sleep(0.1)
        if status in (200, 401) and process.poll() is None:
            return registry
    registry.stop()
    return None


#: The bundled v3.28.2's images, and what each is pushed as in the ``full`` namespace.
CALICO_VERSION = "v3.28.2"
COMPONENTS = ("cni", "node", "typha", "kube-controllers")


def push_release(
    registry: Registry, namespace: str, *, arm64: bool = True, skip: tuple[str, ...] = ()
) -> None:
    """Every Calico image of v3.28.2 under ``namespace``: cni and typha as OCI indexes,
    node as a Docker manifest list, kube-controllers as an OCI index; ``arm64=False``
    leaves arm64 out of cni's index; ``skip`` names components not pushed."""
    for name in COMPONENTS:
        if name in skip:
            continue
        arches = ("amd64", "arm64") if arm64 or name != "cni" else ("amd64",)
        registry.push_index(
            f"{namespace}/calico/{name}", CALICO_VERSION, arches, docker=name == "node"
        )


class LoopbackServer:
    """A socket listening on 127.0.0.1; each connection is served by ``serve`` in a
    thread of its own, until :meth:`close`."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.host = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.sock.close()


class SilentServer(LoopbackServer):
    """A socket on 127.0.0.1 that accepts connections and never answers (a registry
    that stopped answering)."""

    def __init__(self) -> None:
        self.accepted: list[socket.socket] = []
        super().__init__()

    def serve(self, conn: socket.socket) -> None:
        self.accepted.append(conn)

    def close(self) -> None:
        super().close()
        for conn in self.accepted:
            conn.close()


class DrippingServer(LoopbackServer):
    """A registry on 127.0.0.1 that answers every request one byte at a time, every
    ``interval`` seconds: its headers (``where="headers"``) or, after whole headers, its
    body. Each connection stops after ``limit`` seconds, so a client that never gives
    up still ends; a client that gave up ends it at once."""

    def __init__(self, where: str, *, interval: float = 0.05, limit: float = 30.0) -> None:
        body = b'{"errors": []}' + b" " * 4096
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if where == "headers":
            head += b"X-Pad: " + b"a" * 4096 + b"\r\n"
        head += b"Content-Length: %d\r\n\r\n" % len(body)
        self.sent_at_once = head if where == "body" else b""
        self.dripped = (head + body)[len(self.sent_at_once) :]
        self.interval, self.limit = interval, limit
        super().__init__()

    def serve(self, conn: socket.socket) -> None:
        end = time.monotonic() + self.limit
        try:
            request = b""
            while b"\r\n\r\n" not in request and time.monotonic() < end:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                request += chunk
            conn.sendall(self.sent_at_once)
            for i in range(len(self.dripped)):
                if time.monotonic() > end:
                    return
                conn.sendall(self.dripped[i : i + 1])
                time.sleep(self.interval)
        except OSError:  # the client gave up
            return
        finally:
            conn.close()


@pytest.fixture(params=["headers", "body"])
def dripping(request: pytest.FixtureRequest) -> Iterator[DrippingServer]:
    """A registry trickling its headers, then one trickling its body."""
    server = DrippingServer(request.param)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    """A plain-HTTP registry holding ``full`` (every image, amd64 and arm64),
    ``noarm`` (cni without arm64), ``partial`` (no typha) and single images."""
    reg = start_registry(tmp_path_factory.mktemp("registry"))
    try:
        push_release(reg, "full")
        push_release(reg, "noarm", arm64=False)
        push_release(reg, "partial", skip=("typha",))
        reg.push_image("single/calico/node", "amd64", docker=True, tag=CALICO_VERSION)
        reg.push_image("single/calico/cni", "amd64", tag=CALICO_VERSION)
        yield reg
    finally:
        reg.stop()


@pytest.fixture(scope="session")
def auth_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    """A TLS registry (its CA in ``ca``) with htpasswd basic auth, holding ``full``."""
    reg = start_registry(tmp_path_factory.mktemp("auth-registry"), tls=True, basic_auth=True)
    try:
        push_release(reg, "full")
        yield reg
    finally:
        reg.stop()


@pytest.fixture(scope="session")
def token_registry(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Registry, TokenServer]]:
    """A plain-HTTP registry with bearer-token auth (its token service beside it),
    holding ``full``."""
    directory = tmp_path_factory.mktemp("token-registry")
    tokens = TokenServer(directory)
    try:
        reg = start_registry(directory, token=tokens)
        try:
            push_release(reg, "full")
            yield reg, tokens
        finally:
            reg.stop()
    finally:
        tokens.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    try:
        yield server
    finally:
        server.close()


def docker_config(directory: Path, host: str, user: str, password: str) -> dict[str, str]:
    """A Docker config dir with a credential for ``host``; the environment naming it."""
    directory.mkdir(parents=True, exist_ok=True)
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    (directory / "config.json").write_text(json.dumps({"auths": {host: {"auth": token}}}))
    return {"DOCKER_CONFIG": str(directory), "HOME": str(directory)}


class TunnelProxy(LoopbackServer):
    """An HTTP CONNECT proxy on 127.0.0.1 that tunnels every request to 127.0.0.1 on
    the port asked for, whatever the host name (so a client can be told to reach
    ``registry.test:PORT`` through it without any name being resolved), recording the
    CONNECT targets and Proxy-Authorization headers it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        super().__init__()

    def serve(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            lines = head.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            auth = next((ln.split(":", 1)[1].strip() for ln in lines[1:]
                         if ln.lower().startswith("proxy-authorization:")), "")  # fmt: skip
            self.seen.append((target, auth))
            if method != "CONNECT":
                client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                return
            port = int(target.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port), timeout=10) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self._pump(client, upstream)

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        while True:
            for key, _ in sel.select(timeout=10):
                data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                if not data:
                    return
                key.data.sendall(data)


@pytest.fixture
def proxy() -> Iterator[TunnelProxy]:
    server = TunnelProxy()
    try:
        yield server
    finally:
        server.close()
