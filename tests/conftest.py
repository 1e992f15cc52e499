"""Shared fixtures: the Go reference renderer used by the parity tests, a private cache."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

GO_SOURCE = Path(__file__).resolve().parent / "go"

# Never the user's cache: a fresh one per session, set before anything reads it.
os.environ["CALICO_RENDER_CACHE_DIR"] = tempfile.mkdtemp(prefix="calico-render-test-cache-")
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
def go_render(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build tests/go/render.go once per session; skip when Go is not installed."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go not found on PATH: install Debian's golang-go to run the Go parity tests")
    work = tmp_path_factory.mktemp("gorender")
    env = dict(os.environ)
    env["GOCACHE"] = _writable_dir(os.environ.get("GOCACHE"), work / "gocache")
    env["GOPATH"] = _writable_dir(os.environ.get("GOPATH"), work / "gopath")
    env["GOFLAGS"] = "-mod=mod"
    env["GOTOOLCHAIN"] = "local"
    env["CGO_ENABLED"] = "0"
    binary = work / "render"
    result = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=GO_SOURCE,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        hint = ""
        if "blang/semver" in result.stderr:
            hint = "(install Debian's golang-github-blang-semver-dev: the controller's semver)\n"
        pytest.fail(f"building the Go reference renderer failed:\n{hint}{result.stderr}")
    return binary


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that runs Go's reference programs is marked ``go`` (``-m 'not go'``
    skips them where building Go programs is unwanted, ``-m go`` runs only them)."""
    for item in items:
        if "go_render" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.go)
