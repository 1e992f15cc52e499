"""What only the command line does around the library: naming the flag a request's
version came from, and writing renders and reports where the flags say, never over what
they are about."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer import api
from renderer.checks.exceptions import ExceptionSet
from renderer.checks.options import CheckOptions
from renderer.cli import requests
from renderer.data.bundled import bundled_manifests
from renderer.errors import InputError
from renderer.manifests.tree import COMPONENT


def _refuse(key: str, argument: str) -> None:
    raise InputError("no such version", key=key, argument=argument, value="v9")


def test_named_relabels_an_error_about_the_version_argument() -> None:
    with pytest.raises(InputError) as err:
        requests.named("to_version", _refuse, "version 'v9'", "version")
    got = err.value
    assert (got.argument, got.key, got.value, got.message) == (
        "to_version",
        "to_version 'v9'",
        "v9",
        "no such version",
    )


def test_named_passes_other_errors_and_results_through() -> None:
    with pytest.raises(InputError) as err:
        requests.named("to_version", _refuse, "nodes", "nodes")
    assert (err.value.argument, err.value.key) == ("nodes", "nodes")
    assert requests.named("to_version", max, 3, 7) == 7


def test_write_files_replaces_the_previous_write_but_not_foreign_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("kept\n")
    requests.write_files(out, {"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
    written = requests.write_files(out, {"a.yaml": "a: 2\n"})
    assert written == [out / "a.yaml"]
    assert (out / "a.yaml").read_text() == "a: 2\n"
    assert not (out / "b.yaml").exists()
    assert (out / "mine.txt").read_text() == "kept\n"


def test_write_render_writes_a_file_per_template_outside_the_tree(tmp_path: Path) -> None:
    result = api.render(api.Request.of("v3.28", 3))
    written = requests.write_render(tmp_path / "out", result)
    expected = {f.name.split("/", 1)[1]: f.text for f in result.files}
    assert {p.name: p.read_text() for p in written} == expected
    inside = result.version.path / "out"
    with pytest.raises(InputError) as err:
        requests.write_render(inside, result)
    assert err.value.file == str(inside)
    assert not inside.exists()


def _options(tmp_path: Path) -> CheckOptions:
    exceptions = tmp_path / "exceptions.yaml"
    return CheckOptions(
        root=None,
        golden=tmp_path / "goldens",
        upstream=tmp_path / "upstream",
        exceptions=ExceptionSet(file=str(exceptions)),
    )


def test_protected_paths_are_everything_a_check_reads(tmp_path: Path) -> None:
    options = _options(tmp_path)
    assert requests.protected_paths(options) == [
        (bundled_manifests() / COMPONENT, "the manifest tree"),
        (tmp_path / "goldens", "the golden directory"),
        (tmp_path / "upstream", "the upstream directory"),
        (tmp_path / "exceptions.yaml", "the exceptions file"),
    ]
    bare = CheckOptions(root=tmp_path / "tree", golden=tmp_path / "g")
    assert [p for p, _ in requests.protected_paths(bare)] == [
        tmp_path / "tree" / COMPONENT,
        tmp_path / "g",
    ]


@pytest.mark.parametrize("target", ["goldens/report.json", "exceptions.yaml"])
def test_a_report_is_never_written_onto_what_it_reports_on(tmp_path: Path, target: str) -> None:
    (tmp_path / "goldens").mkdir()
    (tmp_path / "exceptions.yaml").write_text("exceptions: []\n")
    path = tmp_path / target
    with pytest.raises(InputError) as err:
        requests.write_report(path, "{}\n", _options(tmp_path))
    assert err.value.file == str(path)
    assert (tmp_path / "exceptions.yaml").read_text() == "exceptions: []\n"
    assert not (tmp_path / "goldens" / "report.json").exists()
    requests.write_report(tmp_path / "report.json", "{}\n", _options(tmp_path))
    assert (tmp_path / "report.json").read_text() == "{}\n"


def test_config_keys_of_every_file_but_stdin(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("apiVersion: bke.bocloud.com/v1beta1\nkind: BKEConfig\nspec:\n  adons: []\n")
    nodes = tmp_path / "n.yaml"
    nodes.write_text(
        "apiVersion: bke.bocloud.com/v1beta1\nkind: BKENode\nmetadata: {name: n1}\n"
        "spec: {ip: 10.0.0.1, roles: [node]}\n"
    )
    found = requests.config_keys(config, "-", nodes)
    assert [(k.file, k.line, k.path) for k in found] == [
        (str(config), 4, "spec.adons"),
        (str(nodes), 4, "spec.roles"),
    ]
    assert requests.config_keys("-") == []
