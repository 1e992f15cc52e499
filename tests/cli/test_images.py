"""``calico-render images``: the same list in text and JSON; one of --version/--config."""

from __future__ import annotations

import pytest

from renderer.output.documents import IMAGES
from tests.cli.jsondoc import json_doc
from tests.clihelp import run


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
