"""The verdict on a version's templates, kept per content digest: the Typha contract
(:func:`renderer.checks.renders.capability_of`) and the release rules, judged once.

A long-running caller pays the three renders once per version, a command line once per
template change (the persistent cache, never trusted without a shape check). A command
line may judge it aside (:func:`judge_aside`): in a forked child, while it renders.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from renderer.calico import policy
from renderer.manifests.tree import VersionDir
from renderer.store import cache
from renderer.store.memo import Memo

if TYPE_CHECKING:
    from renderer.k8s.parse import K8sObject


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a version's templates render, judged once: the Typha contract and the
    release rules (no schemas: they are the gate's, and slow)."""

    capable: bool
    missing: tuple[str, ...]
    summary: str
    #: Ids of the release rules with errors (on the Typha-on render).
    rule_errors: tuple[str, ...]

    @property
    def release_ready(self) -> bool:
        return self.capable and not self.rule_errors


#: Verdicts by the version's template digests; a caller judges a handful of versions,
#: and every template change is a new key.
_VERDICTS: Memo[tuple[tuple[str, str], ...], Verdict] = Memo("checks.verdicts", 64)


def _key(version: VersionDir) -> tuple[tuple[str, str], ...]:
    from renderer.engine.compile import template_digest

    return tuple((tf.name, template_digest(tf)) for tf in version.files)


def _stored_key(version: VersionDir, key: tuple[tuple[str, str], ...]) -> str:
    return "\n".join(
        f"{tf.name}\t{tf.dialect}\t{d}" for tf, (_, d) in zip(version.files, key, strict=True)
    )


def _known(version: VersionDir, key: tuple[tuple[str, str], ...]) -> Verdict | None:
    """The verdict this process or the persistent cache already holds (then kept)."""
    cached = _VERDICTS.get(key)
    if cached is None:
        stored = cache.get("capability", _stored_key(version, key), _valid_verdict)
        if stored is not None:
            cached = _from_data(stored)
            _VERDICTS[key] = cached
    return cached


def _keep(version: VersionDir, key: tuple[tuple[str, str], ...], judged: Verdict) -> None:
    """Keep a verdict just judged: for this process and in the persistent cache."""
    cache.put("capability", _stored_key(version, key), _to_data(judged))
    _VERDICTS[key] = judged


def verdict(version: VersionDir) -> Verdict:
    """The version's :class:`Verdict`, kept per content digest: a long-running caller
    pays the three renders once per version, not once per request, and a command line
    once per template change (the persistent cache)."""
    key = _key(version)
    cached = _known(version, key)
    if cached is None:
        cached = _judge(version)
        _keep(version, key, cached)
    return cached


def _to_data(v: Verdict) -> list[Any]:
    return [v.capable, list(v.missing), v.summary, list(v.rule_errors)]


def _from_data(value: list[Any]) -> Verdict:
    return Verdict(value[0], tuple(value[1]), value[2], tuple(value[3]))


#: The node count the release rules judge: the smallest cluster that gets Typha (what
#: :data:`renderer.checks.renders.RULE_NODES` is).
RULE_NODES = policy.TYPHA_NODE_THRESHOLD + 1


def _render_objects(
    version: VersionDir, typha: Mapping[str, str]
) -> tuple[Mapping[str, Any], tuple[K8sObject, ...]]:
    """``version`` rendered on the controller's default context plus Typha keys, parsed
    (:func:`renderer.checks.renders.render_objects`)."""
    from renderer.bke.values import build_context
    from renderer.calico.capability import CHECK_REPO
    from renderer.engine.render import render_version
    from renderer.k8s.parse import parse_rendered

    context = build_context({}, typha=typha, repo=CHECK_REPO)
    return context, tuple(parse_rendered(render_version(version, context)))


def _judge(version: VersionDir) -> Verdict:
    """The contract on three renders and the ids of the release rules with errors on the
    Typha-on one for :data:`RULE_NODES`: the gate's
    :func:`~renderer.checks.renders.capability_of` and
    :func:`~renderer.checks.pipeline.release_rules`, without loading the gate and
    without locating findings a verdict does not keep."""
    from renderer.calico import capability
    from renderer.calico.rules import RuleInput, violated
    from renderer.k8s.parse import sharing_objects

    # the renders are kept as this verdict, not one by one; the contract and the rules
    # only read their objects, and none outlives the verdict: the renders share the
    # documents they have in common (most of them) instead of decoding each anew
    with cache.reading_only(), sharing_objects():
        report = capability.assess_capability(version, _render_objects)
    rules: list[str] = []
    if report.capable:
        on = report.typha_on(policy.decide_typha(RULE_NODES).replicas)
        rules = violated(RuleInput(on.objects, report.version, on.context, RULE_NODES))
    return Verdict(report.capable, tuple(report.missing), report.verdict, tuple(rules))


def typha_capability(version: VersionDir) -> tuple[bool, tuple[str, ...]]:
    """(capable, missing items) judged from what the version's templates render."""
    v = verdict(version)
    return v.capable, v.missing


def readiness_warning(version: VersionDir, *, assess: bool = True) -> str | None:
    """One line when ``version`` is not release-ready (Typha contract, release rules);
    :func:`verdict` says more. ``assess`` False: only from a verdict already judged (no
    renders for it)."""
    if not assess and _key(version) not in _VERDICTS:
        return None
    v = verdict(version)
    if v.release_ready:
        return None
    why = f"release rules fail: {', '.join(v.rule_errors)}" if v.capable else v.summary
    return f"{version.name} is not release-ready ({why})"


def _valid_verdict(value: Any) -> bool:
    """A stored verdict's shape, and capable exactly when nothing is missing."""
    return (
        isinstance(value, list)
        and len(value) == 4
        and isinstance(value[0], bool)
        and isinstance(value[1], list)
        and all(isinstance(m, str) for m in value[1])
        and value[0] == (not value[1])
        and isinstance(value[2], str)
        and isinstance(value[3], list)
        and all(isinstance(r, str) for r in value[3])
    )


# --- judged aside ---------------------------------------------------------------------

#: Whether :func:`judge_aside` may fork (inside :func:`aside_allowed`).
_aside_allowed = False
#: Seconds a parent waits for the child beyond the renders' own time limits.
ASIDE_GRACE = 30.0


@contextlib.contextmanager
def aside_allowed() -> Iterator[None]:
    """Let :func:`judge_aside` judge verdicts in a forked child here. Only a
    short-lived, single-threaded process should (the command line's render): a child
    copies the whole process, and a library caller's threads and descriptors are its
    own."""
    global _aside_allowed
    before, _aside_allowed = _aside_allowed, True
    try:
        yield
    finally:
        _aside_allowed = before


class Aside:
    """A verdict being judged in a forked child. :meth:`result` waits for it; any
    failure (an error in the child, a crash, a timeout, data that is not a verdict) is
    None, and the caller judges in turn, so errors and their wording are those of
    :func:`verdict`. The child writes nothing: the caller keeps the verdict
    (:meth:`keep`), as :func:`verdict` does."""

    def __init__(
        self,
        version: VersionDir,
        key: tuple[tuple[str, str], ...],
        pid: int,
        fd: int,
        peer: PipePeer | None = None,
    ):
        self.version = version
        self._key = key
        self._pid = pid
        self._fd = fd
        self._done = False
        #: The documents this process and the child hand each other while both parse.
        self._peer = peer

    def result(self, timeout: float | None = None) -> Verdict | None:
        """The child's verdict, or None (it failed, or took longer than ``timeout``)."""
        if self._done:
            return None
        if timeout is None:
            from renderer.engine.limits import render_timeout

            timeout = 3 * render_timeout() + ASIDE_GRACE
        chunks: list[bytes] = []
        end = time.monotonic() + timeout
        finished = False
        try:
            while True:
                left = end - time.monotonic()
                if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                    return None
                chunk = os.read(self._fd, 1 << 20)
                if not chunk:
                    finished = True
                    break
                chunks.append(chunk)
        except OSError:
            return None
        finally:
            self.close(finished=finished)
        data = b"".join(chunks)
        head, _, trace = data.partition(b"\n")
        try:
            value = json.loads(head)
        except (ValueError, UnicodeDecodeError):
            return None
        if not _valid_verdict(value):
            return None
        from renderer.store import invocation

        invocation.add_trace(trace)  # what the child read is this run's input too
        return _from_data(value)

    def close(self, *, finished: bool = False) -> None:
        """End the child (unless it ``finished``: it closed its end) and reap it."""
        if self._done:
            return
        self._done = True
        if self._peer is not None:
            from renderer.k8s import parse

            parse.share_documents(None)
            self._peer.close()
        os.close(self._fd)
        try:
            if not finished:
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
        except OSError:
            pass

    def keep(self, judged: Verdict) -> None:
        """Keep the child's verdict as :func:`verdict` keeps one it judged."""
        _keep(self.version, self._key, judged)


def judge_aside(version: VersionDir) -> Aside | None:
    """Start judging ``version``'s verdict in a forked child, or None: not allowed
    (:func:`aside_allowed`), no ``os.fork``, other threads running, no idle core, or
    the verdict already known (this process or the persistent cache: nothing to
    judge)."""
    if not _aside_allowed or not hasattr(os, "fork") or threading.active_count() != 1:
        return None
    if not _spare_core():
        return None
    key = _key(version)
    if _known(version, key) is not None:
        return None
    _before_fork(version)
    try:
        read, write = os.pipe()
    except OSError:
        return None
    ends = _peer_pipes()
    # Ctrl-C waits until the child has its own handler: the parent's prints a line
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    from renderer.store import invocation

    try:
        pid = invocation.fork()  # the child hands back what it read (a run memo's inputs)
    except OSError:
        pid = -1
    if pid != 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if pid < 0:
        for fd in (read, write, *(ends or ())):
            os.close(fd)
        return None
    if pid == 0:  # pragma: no cover - the child, measured by the parent's tests
        _child(version, read, write, blocked, _peer_of(ends, child=True))
    os.close(write)
    peer = _peer_of(ends, child=False)
    if peer is not None:
        from renderer.k8s import parse

        parse.share_documents(peer)
    return Aside(version, key, pid, read, peer)


def _before_fork(version: VersionDir) -> None:
    """Do once what the render and the child would both do first: load the template
    engine and the YAML library, take the cache's fingerprint and compile the
    version's templates. The child then starts rendering, and parsing the documents
    both share, that much sooner. A template that does not compile is left for the
    render to report."""
    from renderer.engine import render  # noqa: F401  (the engine, for both)
    from renderer.engine.compile import compile_file
    from renderer.k8s import load  # noqa: F401  (the YAML library, for both)

    if cache.enabled():
        cache.fingerprint()  # every key of both holds it (a walk of the installed files)

    for template in version.files:
        try:
            compile_file(template)
        except Exception:  # reported by the render, as it would be without a child
            return


def _peer_pipes() -> tuple[int, int, int, int] | None:
    """Two pipes for the documents the render and the child hand each other (read
    and write end to the child, then from it); None when they cannot be made."""
    made: list[int] = []
    try:
        for _ in range(2):
            made.extend(os.pipe())
    except OSError:
        for fd in made:
            os.close(fd)
        return None
    return made[0], made[1], made[2], made[3]


def _peer_of(ends: tuple[int, int, int, int] | None, *, child: bool) -> PipePeer | None:
    """This side's :class:`PipePeer` (closing the other side's ends): the child parses
    from the last document, the render from the first."""
    if ends is None:
        return None
    to_child_read, to_child_write, from_child_read, from_child_write = ends
    if child:
        os.close(to_child_write)
        os.close(from_child_read)
        return PipePeer(to_child_read, from_child_write, reverse=True)
    os.close(to_child_read)
    os.close(from_child_write)
    return PipePeer(from_child_read, to_child_write, reverse=False)


class PipePeer:
    """:class:`renderer.k8s.parse.DocumentPeer` over two pipes that never block: what
    does not fit in the pipe now is written at the next hand-over or never (the other
    side then parses it itself). A frame is ``b"<key length> <JSON length>\\n"``, then
    the key, then the JSON."""

    def __init__(self, read: int, write: int, *, reverse: bool) -> None:
        self.reverse = reverse
        self._read: int | None = read
        self._write: int | None = write
        self._received = bytearray()
        self._pending = bytearray()
        for fd in (read, write):
            os.set_blocking(fd, False)

    def give(self, key: str, encoded: str) -> None:
        if self._write is None:
            return
        data = encoded.encode("ascii", "surrogateescape")
        self._pending += b"%d %d\n" % (len(key), len(data)) + key.encode("ascii") + data
        self._flush()

    def _flush(self) -> None:
        while self._pending and self._write is not None:
            try:
                written = os.write(self._write, self._pending)
            except BlockingIOError:
                return
            except OSError:  # the other side is gone
                self._pending.clear()
                return
            del self._pending[:written]

    def take(self) -> list[tuple[str, str]]:
        self._flush()
        while self._read is not None:
            try:
                chunk = os.read(self._read, 1 << 20)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:  # the other side closed: what it sent is all there is
                os.close(self._read)
                self._read = None
                break
            self._received += chunk
        return self._frames()

    def _frames(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        buf = self._received
        at = 0
        while True:
            eol = buf.find(b"\n", at, at + 64)
            if eol < 0:
                break
            try:
                key_len, data_len = (int(x) for x in bytes(buf[at:eol]).split(b" "))
            except ValueError:  # not ours: take nothing more
                buf.clear()
                return out
            end = eol + 1 + key_len + data_len
            if end > len(buf):
                break
            key = bytes(buf[eol + 1 : eol + 1 + key_len]).decode("ascii", "replace")
            out.append((key, bytes(buf[eol + 1 + key_len : end]).decode("ascii", "replace")))
            at = end
        del buf[:at]
        return out

    def close(self) -> None:
        for fd in (self._read, self._write):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._read = self._write = None


def _spare_core() -> bool:
    """Whether a second core is likely idle: the child costs more CPU than judging in
    turn (it compiles and parses what the render shares), which only pays when it runs
    beside the render, not when every core is busy."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores > 1
    return cores > 1 and load < cores


def _child(
    version: VersionDir,
    read: int,
    write: int,
    mask: set[int | signal.Signals],
    peer: PipePeer | None = None,
) -> NoReturn:
    """Judge, write the verdict as a line of JSON to ``write``, then what the work read
    (:func:`renderer.store.invocation.trace`), and leave without running the parent's
    exit handlers or flushing its buffers: the child prints nothing, writes no file."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent speaks
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        warnings.simplefilter("ignore")
        os.close(read)
        from renderer.k8s import parse

        parse.keep_texts(False)  # the child writes nothing and ends with its verdict
        if peer is not None:
            parse.share_documents(peer)
        with cache.reading_only():
            judged = _judge(version)
        from renderer.store import invocation

        data = json.dumps(_to_data(judged)).encode() + b"\n" + invocation.trace()
        while data:
            data = data[os.write(write, data) :]
        code = 0
    finally:
        os._exit(code)
