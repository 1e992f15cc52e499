"""Shared fixtures: the Go reference renderer used by the parity tests, a private cache."""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

GO_SOURCE = Path(__file__).resolve().parent / "go"
GO_DECODE = GO_SOURCE / "decode"

# The registries (tests/registryhelp.py) as a plugin: its session fixtures start once per
# test process, however many modules use them (a module importing a fixture gets its own).
pytest_plugins = ("tests.registryhelp",)

# Bytecode kept as an installed package has it, also where PYTHONDONTWRITEBYTECODE is set
# (as in some CI images): otherwise every test process compiles the package and rewrites
# the asserts of every test module again (~5 s of CPU each), and every CLI the tests start
# compiles what it imports. Written to __pycache__/ (ignored by git), as Python does.
sys.dont_write_bytecode = False

# Never the user's cache: a fresh one per run, set before anything reads it. The parallel
# workers (pytest-xdist) inherit the one their controller made and share it (entries are
# written whole and renamed), so a render one worker cached is a hit for the other.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("CALICO_RENDER_TEST_CACHE_DIR"):
    os.environ["CALICO_RENDER_CACHE_DIR"] = os.environ["CALICO_RENDER_TEST_CACHE_DIR"]
else:
    os.environ["CALICO_RENDER_CACHE_DIR"] = tempfile.mkdtemp(prefix="calico-render-test-cache-")
    os.environ["CALICO_RENDER_TEST_CACHE_DIR"] = os.environ["CALICO_RENDER_CACHE_DIR"]
    atexit.register(shutil.rmtree, os.environ["CALICO_RENDER_CACHE_DIR"], ignore_errors=True)


@pytest.fixture(autouse=True)
def _cache_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with the cache on; ``--no-cache`` in one cannot leak into the next."""
    monkeypatch.delenv("CALICO_RENDER_NO_CACHE", raising=False)
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", os.environ["CALICO_RENDER_CACHE_DIR"])


def _writable_dir(env_value: str | None, fallback: Path) -> str:
    if env_value:
        path = Path(env_value)
        try:
            path.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path):
                pass
            return str(path)
        except OSError:
            pass
    fallback.mkdir(parents=True, exist_ok=True)
    return str(fallback)


@pytest.fixture(scope="session")
def go_render() -> Path:
    """Build tests/go/render.go once for every test process (parallel workers share one
    build, keyed by the Go sources and Go's version); skip when Go is not installed."""
    return _go_program("render", ".", sorted(p for p in GO_SOURCE.iterdir() if p.is_file()))


@pytest.fixture(scope="session")
def go_decode() -> Path:
    """Build tests/go/decode (the controller's decoding of a rendered stream, with the
    apimachinery its go.mod pins) once for every test process, as :func:`go_render`
    builds the renderer; skip when Go is not installed."""
    sources = [GO_SOURCE / "go.mod", GO_SOURCE / "go.sum", *sorted(GO_DECODE.glob("*.go"))]
    return _go_program("decode", "./decode", sources)


def _go_program(name: str, package: str, sources: list[Path]) -> Path:
    """The binary of ``package`` (in the tests/go module) built from ``sources``, once
    per content of the sources and Go's version."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go not found on PATH: install Go >= 1.24 to run the Go parity tests")
    version = subprocess.run([go, "version"], capture_output=True, text=True, check=False).stdout
    digest = hashlib.sha256(version.encode() + b"\0" + package.encode())
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    work = Path(tempfile.gettempdir()) / f"calico-render-go-{digest.hexdigest()[:16]}"
    work.mkdir(exist_ok=True)
    binary = work / name
    with open(work / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds, the others wait for it
        if not binary.exists():
            _build(go, binary, work, package)
    return binary


def _build(go: str, binary: Path, work: Path, package: str) -> None:
    env = dict(os.environ)
    env["GOCACHE"] = _writable_dir(os.environ.get("GOCACHE"), work / "gocache")
    env["GOPATH"] = _writable_dir(os.environ.get("GOPATH"), work / "gopath")
    env["GOFLAGS"] = "-mod=mod"
    env["GOTOOLCHAIN"] = "local"
    env["CGO_ENABLED"] = "0"
    partial = binary.with_name(f"{binary.name}.{os.getpid()}.tmp")
    result = subprocess.run(
        [go, "build", "-o", str(partial), package],
        cwd=GO_SOURCE,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"building the Go reference program {package} failed:\n{result.stderr}")
    partial.replace(binary)


#: The fixtures that build Go programs: a test using one is marked ``go``.
GO_FIXTURES = ("go_render", "go_decode")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that runs Go's reference programs is marked ``go`` (``-m 'not go'``
    skips them where building Go programs is unwanted, ``-m go`` runs only them)."""
    for item in items:
        if any(name in GO_FIXTURES for name in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.go)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the default, see pyproject.toml): a worker per CPU for the whole suite
    or a directory; one process when only test files or tests are named, so a quick loop
    pays no worker start-up."""
    args = [a for a in config.args if not a.startswith("-")]
    if args and all(".py" in a for a in args):
        return 0
    return None
