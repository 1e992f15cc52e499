"""Stage 3, render: a version's files in name order, verbatim files as they are, and
the stream ``helm template`` would print."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from renderer.engine import limits
from renderer.engine import render as render_mod
from renderer.engine.render import (
    RenderedFile,
    documents,
    is_verbatim,
    join_stream,
    render_each,
    render_version,
    version_keys,
)
from renderer.errors import TemplateError
from renderer.manifests.tree import VersionDir, resolve_version

VERSION = "v3.28.2"


def tree(tmp_path: Path, files: dict[str, str]) -> VersionDir:
    version = tmp_path / "kubernetes" / "calico" / VERSION
    version.mkdir(parents=True)
    for name, text in files.items():
        (version / name).write_text(text, encoding="utf-8")
    return resolve_version(VERSION, tmp_path)


def test_files_render_in_name_order_each_with_its_own_context(tmp_path: Path) -> None:
    vdir = tree(tmp_path, {"002-b.yaml": "b: {{ .x }}\n", "001-a.yaml": "a: {{ .x }}\n"})
    shared = render_version(vdir, {"x": "1"})
    assert [(f.name, f.text) for f in shared] == [
        (f"{VERSION}/001-a.yaml", "a: 1\n"),
        (f"{VERSION}/002-b.yaml", "b: 1\n"),
    ]
    own = render_version(vdir, {}, {"001-a.yaml": {"x": "A"}, "002-b.yaml": {"x": "B"}})
    assert [f.text for f in own] == ["a: A\n", "b: B\n"]


def test_a_noexecute_file_is_applied_verbatim_and_reads_no_key(tmp_path: Path) -> None:
    alert = "expr: up == 0\nsummary: {{ $labels.instance }}\n"
    vdir = tree(tmp_path, {"001-a.yaml": "a: {{ .x }}\n", "noexecute-rules.yaml": alert})
    rendered = {f.name: f for f in render_version(vdir, {"x": "1"})}
    verbatim = rendered[f"{VERSION}/noexecute-rules.yaml"]
    assert verbatim.text == alert
    assert verbatim.lines is not None and verbatim.lines.line(2) == 2
    assert version_keys(vdir) == frozenset({"x"})


def test_version_output_is_bounded_across_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vdir = tree(tmp_path, {"001-a.yaml": "x" * 600 + "\n", "002-b.yaml": "x" * 600 + "\n"})
    monkeypatch.setattr(limits, "MAX_OUTPUT_CHARS", 1000)
    with pytest.raises(TemplateError) as err:
        render_version(vdir, {})
    assert err.value.file == f"{VERSION}/002-b.yaml"  # the file that crossed the limit


@pytest.mark.parametrize(
    ("text", "docs"),
    [
        ("a: 1\n---\nb: 2", ["a: 1\n", "b: 2\n"]),
        ("---\n\n---\na: 1\n---\n   \n", ["a: 1\n"]),  # whitespace-only documents dropped
        ("--- # note\na: 1\n", ["# note\na: 1\n"]),  # the rest of a separator line stays
        ("a: '---'\n----\n", ["a: '---'\n----\n"]),  # only a whole --- line separates
    ],
)
def test_documents_split_at_separator_lines(text: str, docs: list[str]) -> None:
    assert documents(text) == docs


#: Lines that are, are nearly, or hide separators; and the line breaks ``splitlines``
#: knows besides ``\n`` (a text with one is split line by line).
_PIECES = ["---", "--- # c", "---\t x", "---x", "----", " ---", "a: 1", "", "  ", "# c",
           "--- ", "b: |", "  ---", "\r", "x\ry", "\u2028", "\x0c", "---\r", "k: v\r"]  # fmt: skip


def test_documents_in_one_pass_are_the_documents_line_by_line() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        lines = rng.choices(_PIECES, k=rng.randint(0, 8))
        text = "\n".join(lines) + rng.choice(["", "\n", "\n\n"])
        assert documents(text) == render_mod._documents_by_line(text), repr(text)


def test_stream_names_the_source_of_every_document_and_skips_empty_files() -> None:
    files = [
        RenderedFile(f"{VERSION}/001-a.yaml", "a: 1\n---\nb: 2\n"),
        RenderedFile(f"{VERSION}/002-off.yaml", "# Typha off\n---\n"),
    ]
    assert RenderedFile("x", "# only a comment\n---\n\n").empty
    assert join_stream(files) == (
        f"---\n# Source: calico/{VERSION}/001-a.yaml\na: 1\n"
        f"---\n# Source: calico/{VERSION}/001-a.yaml\nb: 2\n"
    )


def addon_tree(tmp_path: Path, addon: str, version: str, files: dict[str, str]) -> VersionDir:
    directory = tmp_path / "kubernetes" / addon / version
    directory.mkdir(parents=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return resolve_version(version, tmp_path, addon)


def test_render_each_renders_every_file_and_names_each_that_fails(tmp_path: Path) -> None:
    """One failing file stops the controller; a review wants every one judged."""
    vdir = addon_tree(
        tmp_path,
        "coredns",
        "v1.0.0",
        {
            "001-ok.yaml": "a: {{ .x }}\n",
            "002-bad.yaml": 'b: {{ split .missing "," }}\n',
            "003-syntax.yaml": "c: {{ - if .x }}\n",
            "004-ok.yaml": "d: {{ .x }}\n",
        },
    )
    contexts = {tf.name: {"x": "1"} for tf in vdir.files}
    files, failed = render_each(vdir, contexts)
    assert [(f.name, f.text) for f in files] == [
        ("v1.0.0/001-ok.yaml", "a: 1\n"),
        ("v1.0.0/004-ok.yaml", "d: 1\n"),
    ]
    assert sorted(failed) == ["002-bad.yaml", "003-syntax.yaml"]
    bad = failed["002-bad.yaml"]
    assert (bad.file, bad.line) == ("v1.0.0/002-bad.yaml", 1)
    assert bad.message == 'executing "coredns" at <.missing>: invalid value; expected string'
    assert failed["003-syntax.yaml"].line == 1


def test_noexecute_is_judged_on_the_addons_path(tmp_path: Path) -> None:
    """The controller looks for noexecute in the whole path: an addon or version named
    so makes every file verbatim."""
    vdir = addon_tree(tmp_path, "rules-noexecute", "v1", {"rules.yaml": "a: {{ $labels }}\n"})
    files, failed = render_each(vdir, {})
    assert not failed and files[0].text == "a: {{ $labels }}\n"
    assert is_verbatim(vdir, vdir.files[0])


def test_a_stream_names_the_addon_in_its_sources(tmp_path: Path) -> None:
    vdir = addon_tree(tmp_path, "coredns", "v1.0.0", {"coredns.yaml": "a: b\n"})
    files, _ = render_each(vdir, {"coredns.yaml": {}})
    assert join_stream(files, vdir.addon) == "---\n# Source: coredns/v1.0.0/coredns.yaml\na: b\n"


def test_each_file_is_parsed_under_its_addons_name(tmp_path: Path) -> None:
    vdir = addon_tree(tmp_path, "cluster-api", "v1.4.3", {
        "002-capi.yaml": 'a: {{ template "cluster-api" }}\n',
        "003-manage.yaml": "b: {{ .x.y }}\n",
    })  # fmt: skip
    _, failed = render_each(vdir, {"002-capi.yaml": {}, "003-manage.yaml": {"x": "s"}})
    assert 'template: no template "cluster-api"' not in failed["002-capi.yaml"].message
    assert 'executing "cluster-api-manage"' in failed["003-manage.yaml"].message
