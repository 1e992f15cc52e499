"""The rest of the adversarial battery at the CLI: hostile values, flags and standard
output. Every case is exit 2 with one line naming the file, key or flag."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from tests.clihelp import ERROR, one_error, run

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = REPO_ROOT / "upstream" / "calico" / "v3.31.3"
RENDER = ("--version", "v3.28", "--nodes", "3", "--no-validate")


def _last_error(err: str) -> str:
    """The error line after the render's decision note."""
    lines = err.splitlines()
    assert lines and lines[-1].startswith(ERROR), err
    assert all(not line.startswith(ERROR) for line in lines[:-1]), err
    return lines[-1][len(ERROR) :]


# -- values: numbers and keys ------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_integer_beyond_pythons_digit_limit_names_the_key(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = tmp_path / f"values{suffix}"
    digits = "1" * 5000
    values.write_text(f"a: x\nmtu: {digits}\n" if suffix == ".yaml" else f'{{"mtu": {digits}}}')
    r = run(capsys, *RENDER, "--values", str(values))
    line = 2 if suffix == ".yaml" else 1
    assert "4300 digits" in one_error(r, file=values, line=line, key="mtu")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("key", ["a\nb", "a\tb", "c\ud800"])
def test_keys_with_line_breaks_or_surrogates_are_refused_in_yaml_and_json(
    suffix: str, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = tmp_path / f"values{suffix}"
    escaped = json.dumps(key)  # "a\nb", "c\ud800": valid in both YAML and JSON
    values.write_text(f"{escaped}: x\n" if suffix == ".yaml" else f"{{{escaped}: 1}}")
    r = run(capsys, *RENDER, "--values", str(values))
    if suffix == ".yaml" and key == "c\ud800":  # YAML's parser refuses the escape itself
        assert "invalid" in one_error(r, file=values, line=1)
        return
    assert "key has" in one_error(r, file=values, line=1, key=key.encode("unicode_escape").decode())


# -- flags -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-nan"])
def test_render_timeout_must_be_a_finite_number(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    r = run(capsys, "--render-timeout", value, *RENDER)
    assert "--render-timeout" in one_error(r)


@pytest.mark.parametrize("prefix", ["hub/x\n/", 'hub"x/', "hub'x/", "hub x/", "hub\x00/"])
def test_default_registry_is_validated_like_a_registry_prefix(
    prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("calico.yaml", "calico-typha.yaml"):
        shutil.copy(UPSTREAM / name, src / name)
    root = tmp_path / "root"
    r = run(capsys, "import", str(src), "--manifests", str(root), "--default-registry", prefix)
    one_error(r, key="--default-registry")
    assert not root.exists()


# -- standard output ---------------------------------------------------------------------


def _cli(
    *args: str, stdout: int | IO[Any], preexec_fn: Callable[[], object] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "renderer", *args],
        capture_output=False,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=120,
        check=False,
        preexec_fn=preexec_fn,
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_stdout_on_a_full_device_is_one_line() -> None:
    with open("/dev/full", "wb") as full:
        proc = _cli(*RENDER, stdout=full)
    assert proc.returncode == 2
    assert "standard output" in _last_error(proc.stderr.decode())


def test_closed_stdout_is_one_line() -> None:
    proc = _cli(*RENDER, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2
    assert "standard output is closed" in _last_error(proc.stderr.decode())


# -- duplicate objects -------------------------------------------------------------------


def _duplicated_tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    version = root / "kubernetes" / "calico" / "v3.31.3"
    shutil.copytree(REPO_ROOT / "manifests" / "kubernetes" / "calico" / "v3.31.3", version)
    # a copy of the objects, calico-node changed: repeats that differ are errors (the
    # identical ones are duplicate-object-metadata warnings: one object, applied twice)
    text = (version / "002-calico.yaml").read_text(encoding="utf-8")
    changed = text.replace("terminationGracePeriodSeconds: 0", "terminationGracePeriodSeconds: 5")
    assert changed != text
    (version / "003-calico.yaml").write_text(changed, encoding="utf-8")
    return root


def test_render_of_a_duplicated_object_is_an_error_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _duplicated_tree(tmp_path)
    out = tmp_path / "out"
    r = run(capsys, "--manifests", str(root), "--version", "v3.31.3", "--nodes", "3",
            "--no-validate", "--output-dir", str(out))  # fmt: skip
    assert r.code == 1 and not out.exists()
    lines = [line for line in r.err.splitlines() if "duplicate-object" in line]
    assert lines and all(
        line.split(": ")[1].startswith("kubernetes/calico/v3.31.3/003-calico.yaml:")
        for line in lines
    )
    assert all("v3.31.3/002-calico.yaml:" in line for line in lines)


@pytest.mark.slow
def test_check_and_capability_report_duplicate_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _duplicated_tree(tmp_path)
    r = run(capsys, "check", "--manifests", str(root), "--format", "json", "--jobs", "1")
    assert r.code == 1, r.err
    found = [f for v in json.loads(r.out)["versions"] for f in v["findings"]]
    dups = [f for f in found if f["rule"] == "duplicate-object"]
    assert dups and {(f["severity"], f["location"]["path"]) for f in dups} == {
        ("error", "kubernetes/calico/v3.31.3/003-calico.yaml")
    }
    r = run(
        capsys, "capability", "--manifests", str(root), "--version", "v3.31.3", "--format", "json"
    )
    assert "duplicate-object" in r.out
