"""What commands share: library errors re-worded to name the flags."""

from __future__ import annotations

from pathlib import Path

import pytest

import renderer
from renderer.cli.common import FLAGS, PHRASES, cli_worded, flag_worded
from renderer.engine.limits import RENDER_TIMEOUT_REMEDY
from renderer.errors import CalicoRenderError, InputError, RefusedError, TemplateError


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (InputError("bad", key="nodes"), "--nodes: bad"),
        (RefusedError("no Typha", key="nodes"), "--nodes: no Typha"),
        (InputError("no dots", key="to_version '../x'"), "--to-version '../x': no dots"),
        (InputError("unknown", file="d", key="version"), "d: --version: unknown"),
        (InputError("bad", key="image_prefix"), "--repo: bad"),
        (InputError("unsafe", file="f", key="ClusterCidr.Ipv6"), "f: ClusterCidr.Ipv6: unsafe"),
        (InputError("x", key="set a"), "--set a: x"),
        (InputError("x", key="upstream"), "--upstream: x"),
        (InputError("gone", file="e", key="exceptions"), "e: --exceptions: gone"),
        (InputError("no key"), "no key"),
        (
            TemplateError(
                "render took longer than 1 s (raise it with set_render_timeout(seconds))"
            ),
            "render took longer than 1 s (raise it with --render-timeout SECONDS)",
        ),
        (TemplateError("over 9 (item limit; not configurable)"), "over 9 (item limit; no flag)"),
        (
            InputError("BKENodes of 2 clusters: a, b; give a config to count them", file="n"),
            "n: BKENodes of 2 clusters: a, b; give --config to count them",
        ),
    ],
)
def test_flag_worded(error: CalicoRenderError, line: str) -> None:
    assert flag_worded(error) == line
    assert error.key is None or error.key.partition(" ")[0] not in FLAGS.values()


def test_flags_are_flags() -> None:
    assert all(flag.startswith("--") and " " not in flag for flag in FLAGS.values())


def test_phrases_are_the_library_s() -> None:
    """Each phrase the CLI re-words is one the library still writes."""
    library = [p for p in Path(renderer.__file__).parent.rglob("*.py") if "cli" not in p.parts]
    source = "".join(p.read_text(encoding="utf-8") for p in library)
    assert all(phrase in source for phrase in PHRASES if phrase != RENDER_TIMEOUT_REMEDY)


def test_notes_name_the_flags() -> None:
    line = "schema check on Kubernetes 1.28, the config's kubernetesVersion v1.28.8"
    assert cli_worded(f"{line} (unless versions are requested)") == (
        f"{line} (--kube-version to choose)"
    )


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "codequality"])
def test_a_bad_input_run_still_writes_its_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    """--output FILE exists after exit 2, in the requested format, holding one error
    finding of stage input located where the input is bad; the exit code is kept."""
    import json
    import xml.etree.ElementTree as ET

    from renderer.data import schemas
    from tests.clihelp import one_error, run
    from tests.gatehelp import BROKEN
    from tests.output.test_sarif import valid_sarif

    report = tmp_path / f"report.{fmt}"
    bad = BROKEN / "bad.yaml"
    r = run(capsys, "validate", str(bad), "--format", fmt, "-o", str(report))
    one_error(r, file=bad, line=5)
    text = report.read_text(encoding="utf-8")
    if fmt == "text":
        assert text.startswith(f"{bad}:5:") and ": error: [input-error] " in text
    elif fmt == "json":
        data = json.loads(text)
        schemas.validate_output("input-error.schema.json", data)
        (f,) = data["findings"]
        assert (f["stage"], f["severity"], f["location"]["path"], f["location"]["line"]) == (
            "input", "error", str(bad), 5,
        )  # fmt: skip
    elif fmt == "junit":
        (case,) = ET.fromstring(text).iter("testcase")
        assert case.find("failure") is not None and case.get("file") == str(bad)
    elif fmt == "sarif":
        (result,) = valid_sarif(text)["runs"][0]["results"]
        assert result["ruleId"] == "input-error"
    else:
        (issue,) = json.loads(text)
        assert (issue["check_name"], issue["location"]["lines"]["begin"]) == ("input-error", 5)


def test_without_output_a_bad_input_run_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.clihelp import run

    monkeypatch.chdir(tmp_path)
    assert run(capsys, "validate", str(tmp_path / "missing.yaml"), "--format", "json").code == 2
    assert list(tmp_path.iterdir()) == []
