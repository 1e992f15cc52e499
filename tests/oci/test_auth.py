"""Credentials from the containers auth file and the Docker config, never shown."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from renderer.errors import InputError
from renderer.oci.auth import Credential, auth_files, lookup


def _write(path: Path, auths: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"auths": auths}))
    return path


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_the_auth_file_comes_before_the_docker_config(tmp_path: Path) -> None:
    auth = _write(tmp_path / "auth.json", {"r.io": {"auth": _b64("a:first")}})
    _write(tmp_path / "docker" / "config.json", {"r.io": {"auth": _b64("b:second")}})
    env = {"REGISTRY_AUTH_FILE": str(auth), "DOCKER_CONFIG": str(tmp_path / "docker")}
    assert auth_files(env) == [auth, tmp_path / "docker" / "config.json"]
    found = lookup("r.io", env)
    assert found is not None and (found.username, found.password) == ("a", "first")


def test_the_docker_config_is_found_in_home_and_by_url_keys(tmp_path: Path) -> None:
    _write(
        tmp_path / ".docker" / "config.json", {"https://r.io": {"username": "u", "password": "p"}}
    )
    found = lookup("r.io", {"HOME": str(tmp_path)})
    assert found is not None and found.source == str(tmp_path / ".docker" / "config.json")
    assert lookup("other.io", {"HOME": str(tmp_path)}) is None


def test_docker_hub_credentials_are_under_the_index_url(tmp_path: Path) -> None:
    _write(tmp_path / "config.json", {"https://index.docker.io/v1/": {"auth": _b64("u:p")}})
    for host in ("docker.io", "registry-1.docker.io"):  # its name and its API host
        assert lookup(host, {"DOCKER_CONFIG": str(tmp_path)}) is not None


def test_an_entry_left_for_a_credential_helper_is_anonymous(tmp_path: Path) -> None:
    _write(tmp_path / "config.json", {"r.io": {}})
    assert lookup("r.io", {"DOCKER_CONFIG": str(tmp_path)}) is None


def test_a_credential_never_shows_its_secret() -> None:
    c = Credential("user", "hunter2", "f")
    assert "hunter2" not in repr(c) and c.basic() == "Basic " + _b64("user:hunter2")


@pytest.mark.parametrize(
    "content",
    [
        '{"auths": {"r.io": {"auth": "%%%"}}}',
        '{"auths": {"r.io": {"auth": "bm9jb2xvbg=="}}}',
        "{secret",
    ],
)
def test_a_malformed_auth_file_names_the_file_not_its_content(tmp_path: Path, content: str) -> None:
    (tmp_path / "config.json").write_text(content)
    with pytest.raises(InputError) as info:
        lookup("r.io", {"DOCKER_CONFIG": str(tmp_path)})
    assert info.value.file == str(tmp_path / "config.json")
    assert "secret" not in str(info.value) and "%%%" not in str(info.value)
