"""A small client of the OCI Distribution API, on the standard library.

It resolves a reference the way a kubelet's pull starts: the manifest of the tag (an
index or list names one manifest per platform; an image manifest is one platform, which
its config blob names), then each platform's manifest by digest. Access is anonymous
until the registry challenges (``WWW-Authenticate``): ``Basic`` is answered with the
credential of :mod:`renderer.oci.auth`, ``Bearer`` with a token fetched from the realm
for the repository's pull scope (with that credential when there is one).

Everything a registry sends is bounded: one exchange (connect, TLS, response headers
and body) has one deadline, ``timeout`` seconds from its start, which holds however
slowly the registry trickles bytes (see :class:`_Deadline`); a body is read to at most
``max_bytes``, retries (429 and 5xx answers, lost connections,
timeouts) are counted and spaced by a doubling backoff, and a redirect is followed at
most :data:`MAX_REDIRECTS` times. TLS is verified (against ``ca_file`` when given);
plain HTTP is spoken only to the hosts named insecure. What cannot be judged (no answer,
an untrusted certificate, refused credentials, a malformed answer) is a
:class:`RegistryError`, exit 2: the image is neither there nor missing.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import os
import re
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from renderer.errors import InputError, remedy
from renderer.oci import auth
from renderer.oci.manifest import (
    ACCEPT,
    IMAGES,
    BadAnswer,
    Manifest,
    digest_of,
    load_json,
    parse_config,
    parse_manifest,
)
from renderer.oci.reference import Platform, Reference

#: Bounds on what one answer may be: a manifest (containerd's own limit), a config or
#: token answer, an error body.
MAX_MANIFEST = 4 << 20
MAX_CONFIG = 4 << 20
MAX_TOKEN = 1 << 20
MAX_ERROR_BODY = 64 << 10
MAX_REDIRECTS = 3
#: Answers worth asking again (rate limited, or a server-side failure).
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
#: The longest pause between tries, whatever Retry-After asks.
MAX_BACKOFF = 8.0
USER_AGENT = "calico-render"
#: How errors say what would fix them (the CLI words them as its flags).
_CHALLENGE = re.compile(r'([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


Exchange = Callable[[str, str, Mapping[str, str], int], "Answer"]


class RegistryError(InputError):
    """The registry could not be asked, or its answer cannot be judged (exit 2)."""


@dataclass(frozen=True)
class Settings:
    """How registries are reached (the ``images --check-registry`` flags)."""

    ca_file: str | None = None
    #: Hosts (``host:port``) spoken to in plain HTTP.
    insecure: frozenset[str] = frozenset()
    #: Seconds one exchange may take, from connecting to the last byte of the body.
    timeout: float = 10.0
    #: Tries after the first, for 429/5xx answers and lost connections.
    retries: int = 3
    #: The first pause between tries (then doubled, at most MAX_BACKOFF).
    backoff: float = 0.5
    #: The environment the auth files are found by (None: the process's).
    env: Mapping[str, str] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Answer:
    """One HTTP answer: status, headers (lower-case names) and the bounded body."""

    status: int
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True)
class Resolution:
    """What a tag resolves to: ``missing`` names what the registry lacks
    (``repository``, ``tag``), else the manifest and each platform's digest (None for
    a platform it does not serve)."""

    ref: Reference
    missing: str = ""
    manifest: Manifest | None = None
    platforms: Mapping[Platform, str | None] = field(default_factory=dict)
    #: Why a platform is missing (its key absent when present).
    reasons: Mapping[Platform, str] = field(default_factory=dict)


def _no_proxy(host: str, env: Mapping[str, str]) -> bool:
    """Whether ``host`` (``name[:port]``) is reached directly: loopback always (as Go's
    and curl's clients do), then the ``NO_PROXY`` list (names, ``.suffix``, ``*``)."""
    name = urllib.parse.urlsplit(f"//{host}").hostname or host
    if name == "localhost" or name.startswith("127.") or name == "::1":
        return True
    for entry in (env.get("NO_PROXY") or env.get("no_proxy") or "").split(","):
        entry = entry.strip().lower()
        if entry == "*" or (
            entry and (name == entry.lstrip(".") or name.endswith("." + entry.lstrip(".")))
        ):
            return True
    return False


def proxy_for(scheme: str, host: str, env: Mapping[str, str]) -> tuple[str, dict[str, str]] | None:
    """The proxy (``host:port``) and its CONNECT headers for ``host`` from
    ``HTTPS_PROXY``/``HTTP_PROXY`` (lower case too), or None to connect directly. A
    proxy's ``user:password@`` becomes a Proxy-Authorization header, never text."""
    key = "https_proxy" if scheme == "https" else "http_proxy"
    url = env.get(key) or env.get(key.upper()) or ""
    if not url or _no_proxy(host, env):
        return None
    parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme != "http" or not parts.hostname:
        raise RegistryError(f"{key.upper()} is not an http:// proxy URL", key="proxy")
    headers = {}
    if parts.username is not None:
        raw = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(raw.encode()).decode()
    return f"{parts.hostname}:{parts.port or 80}", headers


def _tries(n: int) -> str:
    return f"{n} {'try' if n == 1 else 'tries'}"


def _elapsed(start: float) -> str:
    """The time a request really took, as its error says it: tries, pauses and all."""
    return f"{time.monotonic() - start:.1f} s in all"


class _Deadline:
    """One exchange's deadline over every socket it opens. A socket timeout bounds each
    read alone, so a registry sending its headers one byte a second was never timed
    out; at the deadline a timer shuts the connection down (a duplicate of the socket
    is kept, as TLS takes the original over), the blocked read returns, and the
    exchange raises TimeoutError. ``expired`` says whether that happened."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds left; TimeoutError when none is."""
        left = self.at - time.monotonic()
        if left <= 0 or self.expired:
            self.expired = True
            raise TimeoutError
        return left

    def connect(
        self, address: tuple[str, int], timeout: float, source: tuple[str, int] | None = None
    ) -> socket.socket:
        """``socket.create_connection`` within the time left, the socket then watched."""
        sock = socket.create_connection(address, min(timeout, self.left()), source)
        with self._lock:
            self._sockets.append(sock.dup())
            if self.expired:
                self._shut()
        return sock

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            self._shut()

    def _shut(self) -> None:
        for sock in self._sockets:
            with contextlib.suppress(OSError):  # already closed by the other side
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


def parse_challenge(header: str) -> tuple[str, dict[str, str]]:
    """``Bearer realm="...",service="..."`` as ("bearer", {params})."""
    scheme, _, rest = header.strip().partition(" ")
    params = {
        m.group(1).lower(): (m.group(2) if m.group(2) is not None else m.group(3)).replace("\\", "")
        for m in _CHALLENGE.finditer(rest)
    }
    return scheme.lower(), params


def _error_code(body: bytes) -> str:
    """The first Distribution error code of an error body ("" when it has none)."""
    try:
        data = load_json(body, "error")
    except BadAnswer:
        return ""
    errors = data.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        code = errors[0].get("code")
        return code if isinstance(code, str) else ""
    return ""


class Client:
    """Resolves references against their registries; safe to share between threads."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        exchange: Exchange | None = None,
    ):
        self.settings = settings or Settings()
        self._sleep = sleep
        self._exchange: Exchange = exchange or self.exchange
        try:
            self._tls = ssl.create_default_context(cafile=self.settings.ca_file)
        except (OSError, ssl.SSLError) as exc:
            reason = getattr(exc, "strerror", None) or "not a PEM CA bundle"
            raise InputError(
                f"cannot load the CA file: {reason}",
                file=self.settings.ca_file,
                key="ca_file",
                argument="ca_file",
            ) from None
        self._lock = threading.Lock()
        self._tokens: dict[tuple[str, str], str] = {}
        self._credentials: dict[str, auth.Credential | None] = {}

    # --- one exchange -------------------------------------------------------------------

    def _connection(
        self, scheme: str, host: str, deadline: _Deadline
    ) -> http.client.HTTPConnection:
        timeout = self.settings.timeout
        if scheme == "http" and host not in self.settings.insecure:
            hint = remedy("allow it with {}", "insecure")
            raise RegistryError(
                f"{host} would be spoken to in plain HTTP; {hint}", argument="insecure", hint=hint
            )
        env = os.environ if self.settings.env is None else self.settings.env
        via = proxy_for(scheme, host, env)
        # through a proxy, a CONNECT tunnel: TLS stays end to end, the proxy sees host:port
        address = via[0] if via else host
        conn: http.client.HTTPConnection
        if scheme == "http":
            conn = http.client.HTTPConnection(address, timeout=timeout)
        else:
            conn = http.client.HTTPSConnection(address, timeout=timeout, context=self._tls)
        if via is not None:
            conn.set_tunnel(host, headers=via[1])
        # http.client opens its socket through this attribute (its own hook): the
        # deadline sees the socket before the proxy's tunnel and the TLS handshake
        conn._create_connection = deadline.connect  # type: ignore[attr-defined]
        return conn

    def exchange(self, method: str, url: str, headers: Mapping[str, str], max_bytes: int) -> Answer:
        """One HTTP request and its answer, the body read to ``max_bytes`` (another
        exchange may be given to the constructor: the retry policy over scripted answers)."""
        parts = urllib.parse.urlsplit(url)
        deadline = _Deadline(self.settings.timeout)
        try:
            conn = self._connection(parts.scheme, parts.netloc, deadline)
            try:
                answer = self._answer(conn, method, parts, headers, max_bytes)
            finally:
                conn.close()
        except (OSError, http.client.HTTPException):
            if deadline.expired:  # the read the deadline cut short, whatever it raised
                raise TimeoutError from None
            raise
        finally:
            deadline.close()
        if deadline.expired:  # a body cut short reads as a short body
            raise TimeoutError
        return answer

    @staticmethod
    def _answer(
        conn: http.client.HTTPConnection,
        method: str,
        parts: urllib.parse.SplitResult,
        headers: Mapping[str, str],
        max_bytes: int,
    ) -> Answer:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request(method, target, headers={"User-Agent": USER_AGENT, **headers})
        response = conn.getresponse()
        status = response.status
        names = {k.lower(): v for k, v in response.getheaders()}
        limit = max_bytes if status < 300 else MAX_ERROR_BODY
        length = names.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            if status >= 300:
                return Answer(status, names, b"")
            raise BadAnswer(f"the answer is {length} bytes, more than {limit}")
        chunks, total = [], 0
        while method != "HEAD":
            chunk = response.read(min(65536, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                if status >= 300:
                    break
                raise BadAnswer(f"the answer is more than {limit} bytes")
        return Answer(status, names, b"".join(chunks)[:limit])

    def request(self, method: str, url: str, headers: Mapping[str, str], max_bytes: int) -> Answer:
        """One request with the bounded retries; RegistryError when no answer comes."""
        host = urllib.parse.urlsplit(url).netloc
        tries = self.settings.retries + 1
        start = time.monotonic()
        for attempt in range(tries):
            last = attempt == tries - 1
            pause = min(MAX_BACKOFF, self.settings.backoff * (2**attempt))
            try:
                answer = self._exchange(method, url, headers, max_bytes)
            except ssl.SSLCertVerificationError as exc:
                hint = remedy("give {}", "ca_file")
                raise RegistryError(
                    f"{host}: TLS certificate not trusted ({exc.verify_message}); {hint}",
                    argument="ca_file",
                    hint=hint,
                ) from None
            except ssl.SSLError as exc:
                raise RegistryError(f"{host}: TLS failed ({exc.reason or exc})") from None
            except TimeoutError:
                if last:
                    raise RegistryError(
                        f"{host}: no complete answer within {self.settings.timeout:g} s "
                        f"({_tries(tries)}, {_elapsed(start)})"
                    ) from None
            except (OSError, http.client.HTTPException) as exc:
                if last:
                    reason = getattr(exc, "strerror", None) or str(exc)[:200] or type(exc).__name__
                    raise RegistryError(
                        f"{host}: unreachable ({reason}; {_tries(tries)}, {_elapsed(start)})"
                    ) from None
            else:
                if answer.status not in RETRY_STATUS or last:
                    return answer
                after = answer.headers.get("retry-after", "")
                if after.isdigit():
                    pause = min(MAX_BACKOFF, float(after))
            self._sleep(pause)
        raise AssertionError("unreachable")  # pragma: no cover

    # --- authentication -----------------------------------------------------------------

    def _credential(self, host: str) -> auth.Credential | None:
        with self._lock:
            if host not in self._credentials:
                self._credentials[host] = auth.lookup(host, self.settings.env)
            return self._credentials[host]

    def _token(self, host: str, scope: str, params: Mapping[str, str]) -> str:
        realm = params.get("realm", "")
        parts = urllib.parse.urlsplit(realm)
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise RegistryError(f"{host}: the token realm {realm[:200]!r} is not a URL")
        query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query)]
        if params.get("service"):
            query.append(("service", params["service"]))
        query.append(("scope", params.get("scope") or scope))
        url = urllib.parse.urlunsplit(
            (parts.scheme, parts.netloc, parts.path, urllib.parse.urlencode(query), "")
        )
        headers = {}
        credential = self._credential(host)
        if credential is not None:
            headers["Authorization"] = credential.basic()
        answer = self.request("GET", url, headers, MAX_TOKEN)
        if answer.status in (401, 403):
            raise RegistryError(self._refused(host, answer.status, credential, "token"))
        if answer.status != 200:
            raise RegistryError(f"{host}: the token service answered {answer.status}")
        data = load_json(answer.body, "token answer")
        token = data.get("token") or data.get("access_token")
        if (
            not isinstance(token, str)
            or not token
            or not token.isascii()
            or not token.isprintable()
        ):
            raise BadAnswer(f"{host}: the token answer holds no token")
        return token

    @staticmethod
    def _refused(host: str, status: int, credential: auth.Credential | None, what: str) -> str:
        if credential is None:
            return (
                f"{host} requires credentials ({status}) and no auth file has any for it "
                "(REGISTRY_AUTH_FILE, DOCKER_CONFIG, ~/.docker/config.json)"
            )
        return f"{host} refused the credential for {what} from {credential.source} ({status})"

    def get(self, ref: Reference, path: str, accept: str, max_bytes: int) -> Answer:
        """``GET /v2/<name>/<path>`` of ``ref``'s registry, answering one challenge."""
        host = ref.api_host
        scheme = "http" if host in self.settings.insecure else "https"
        url = f"{scheme}://{host}/v2/{ref.path}/{path}"
        scope = f"repository:{ref.path}:pull"
        headers = {"Accept": accept}
        with self._lock:
            token = self._tokens.get((host, scope))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        answer = self._follow(url, headers, max_bytes)
        if answer.status != 401:
            return answer
        scheme_name, params = parse_challenge(answer.headers.get("www-authenticate", ""))
        credential = self._credential(host)
        if scheme_name == "bearer":
            token = self._token(host, scope, params)
            with self._lock:
                self._tokens[(host, scope)] = token
            headers["Authorization"] = f"Bearer {token}"
        elif scheme_name == "basic" and credential is not None:
            headers["Authorization"] = credential.basic()
        else:
            raise RegistryError(self._refused(host, 401, credential, ref.path))
        answer = self._follow(url, headers, max_bytes)
        if answer.status in (401, 403):
            raise RegistryError(self._refused(host, answer.status, credential, ref.path))
        return answer

    def _follow(self, url: str, headers: dict[str, str], max_bytes: int) -> Answer:
        """A GET and its redirects (blobs are often served from elsewhere); the
        credential is not sent to another host."""
        origin = urllib.parse.urlsplit(url).netloc
        for _ in range(MAX_REDIRECTS + 1):
            answer = self.request("GET", url, headers, max_bytes)
            if answer.status not in (301, 302, 303, 307, 308):
                return answer
            url = urllib.parse.urljoin(url, answer.headers.get("location", ""))
            if urllib.parse.urlsplit(url).netloc != origin:
                headers = {k: v for k, v in headers.items() if k != "Authorization"}
        raise RegistryError(f"{origin}: more than {MAX_REDIRECTS} redirects")

    # --- resolution ---------------------------------------------------------------------

    def manifest(self, ref: Reference, reference: str, accept: str = ACCEPT) -> Manifest | str:
        """The manifest ``reference`` (a tag or digest) of ``ref``'s repository, or what
        is missing: ``repository`` or ``tag`` (``manifest`` for a digest)."""
        answer = self.get(ref, f"manifests/{reference}", accept, MAX_MANIFEST)
        if answer.status == 404:
            if _error_code(answer.body) == "NAME_UNKNOWN" or self._no_repository(ref):
                return "repository"
            return "manifest" if ":" in reference else "tag"
        if answer.status != 200:
            raise RegistryError(f"{ref.api_host}: the manifest request answered {answer.status}")
        algorithm = reference.split(":", 1)[0] if ":" in reference else "sha256"
        digest = digest_of(
            answer.body, algorithm if algorithm in ("sha256", "sha512") else "sha256"
        )
        served = answer.headers.get("docker-content-digest", "")
        if served and served.split(":", 1)[0] == digest.split(":", 1)[0] and served != digest:
            raise BadAnswer(f"the manifest's bytes do not match its digest {served[:80]}")
        if ":" in reference and reference != digest:
            raise BadAnswer(f"the manifest's bytes do not match the digest asked for ({reference})")
        content_type = answer.headers.get("content-type", "").split(";", 1)[0].strip()
        return parse_manifest(answer.body, content_type, digest)

    def _no_repository(self, ref: Reference) -> bool:
        """Whether the registry says the repository is unknown (a registry answers an
        unknown repository's tag as an unknown manifest; its tag list tells them apart)."""
        answer = self.get(ref, "tags/list?n=1", "application/json", MAX_ERROR_BODY)
        return answer.status == 404 and _error_code(answer.body) == "NAME_UNKNOWN"

    def platform_of(self, ref: Reference, manifest: Manifest) -> tuple[str, str, str]:
        """The (os, architecture, variant) of an image manifest, from its config blob."""
        assert manifest.config is not None
        digest = manifest.config.digest
        answer = self.get(ref, f"blobs/{digest}", "*/*", MAX_CONFIG)
        if answer.status != 200:
            raise RegistryError(
                f"{ref.api_host}: the config blob {digest} answered {answer.status}"
            )
        if digest_of(answer.body, digest.split(":", 1)[0]) != digest:
            raise BadAnswer(f"the config blob's bytes do not match its digest {digest}")
        return parse_config(answer.body)

    def resolve(self, ref: Reference, platforms: tuple[Platform, ...]) -> Resolution:
        """``ref``'s manifest and the digest serving each of ``platforms``."""
        top = self.manifest(ref, ref.reference)
        if isinstance(top, str):
            return Resolution(ref, missing=top)
        found: dict[Platform, str | None] = {}
        reasons: dict[Platform, str] = {}
        if top.is_index:
            for platform in platforms:
                entry = next(
                    (e for e in top.entries if e.platform and platform.matches(*e.platform)),
                    None,
                )
                if entry is None:
                    found[platform] = None
                    listed = sorted(
                        {"/".join(p for p in e.platform if p) for e in top.entries if e.platform}
                    )
                    reasons[platform] = f"the index lists {', '.join(listed) or 'no platform'}"
                    continue
                child = self.manifest(ref, entry.digest, ", ".join(IMAGES))
                if isinstance(child, str):
                    found[platform] = None
                    reasons[platform] = f"the index lists {entry.digest}, which the registry lacks"
                else:
                    found[platform] = child.digest
        else:
            own = self.platform_of(ref, top)
            for platform in platforms:
                if platform.matches(*own):
                    found[platform] = top.digest
                else:
                    found[platform] = None
                    reasons[platform] = (
                        f"a single-platform image for {'/'.join(p for p in own if p)}"
                    )
        return Resolution(ref, manifest=top, platforms=found, reasons=reasons)
