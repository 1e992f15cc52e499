"""The documentation shows what the tool does: every example output of README.md and
docs/*.md is produced by the command it names, and every documented gate command finds
the goldens adoption writes.

An example output is a fenced block right after a marker comment (invisible on the
rendered page, and moved with its block):

    <!-- output: calico-render advise --version v3.31 --nodes 601 -->
    <!-- output (stderr): calico-render --version v3.28 --nodes 601 -->
    <!-- output (json findings.0 inputs computed): calico-render advise ... --format json -->
    <!-- output (repair; object changes): calico-render check path/to/bke-manifests -->

The command runs from the repository root (the bundled tree) unless a setup named in
the parentheses builds another tree first. ``pytest --force-regen`` rewrites the blocks
that differ (read the diff before committing).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from renderer.cli import main
from tests.clihelp import run
from tests.gatehelp import bke_tree

PROJECT = Path(__file__).resolve().parents[1]
DOCS = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
HOOKS = PROJECT / ".pre-commit-hooks.yaml"
UPSTREAM = PROJECT / "upstream" / "calico"
BKE_REAL = PROJECT / "tests" / "fixtures" / "bke-real" / "kubernetes" / "calico" / "v3.31.3"
MARKER = re.compile(
    r"<!-- output(?: \((?P<how>[^)]*)\))?: (?P<command>calico-render [^\n]*?) -->\n"
    r"```(?P<lang>[a-z]*)\n(?P<body>.*?)```",
    re.S,
)
#: Where a documented command names a tree, the fixture tree stands in.
TREE_WORDS = ("path/to/bke-manifests",)


# --- example outputs ------------------------------------------------------------------


def _examples() -> list[tuple[Path, re.Match[str]]]:
    return [(doc, m) for doc in DOCS for m in MARKER.finditer(doc.read_text(encoding="utf-8"))]


def _repair(tmp_path: Path) -> Path:
    """BKE's real v3.31.3 adopted (goldens written), then imported over in BKE's form,
    as the README's repair example does."""
    root = tmp_path / "bke-manifests"
    target = root / "kubernetes" / "calico" / "v3.31.3"
    target.mkdir(parents=True)
    shutil.copy(BKE_REAL / "calico.yaml", target / "calico.yaml")
    for argv in (
        ["check", str(root), "--update-golden"],
        ["import", str(UPSTREAM / "v3.31.3"), "--manifests", str(root), "--layout", "single",
         "--default-registry", "hub.oepkgs.net/openfuyao/", "--force"],
    ):  # fmt: skip
        with pytest.raises(SystemExit):
            main(argv)
    return root


def _mtu(tmp_path: Path) -> Path:
    """A tree with the bundled v3.28.2 after adoption, then ``veth_mtu`` edited, as the
    CI guide's golden example describes."""
    root = bke_tree(tmp_path / "bke-manifests")
    with pytest.raises(SystemExit):
        main(["check", str(root), "--update-golden"])
    template = root / "kubernetes" / "calico" / "v3.28.2" / "002-calico.yaml"
    text = template.read_text(encoding="utf-8")
    template.write_text(text.replace('veth_mtu: "0"', 'veth_mtu: "1440"', 1), encoding="utf-8")
    return root


SETUPS: dict[str, Callable[[Path], Path]] = {"repair": _repair, "mtu": _mtu}


def _object_changes(text: str) -> str:
    """The golden findings of a check report (what changed, field by field)."""
    lines = [line.strip() for line in text.splitlines()]
    return "".join(line + "\n" for line in lines if "[golden-" in line)


def _select_json(text: str, how: list[str]) -> Any:
    """``json findings.0 inputs computed``: the listed keys of one element of the data."""
    path, keys = how[1], how[2:]
    data: Any = json.loads(text)
    for part in path.split("."):
        data = data[int(part)] if part.isdigit() else data[part]
    return {k: data[k] for k in keys}


def _fragment(data: dict[str, Any]) -> str:
    """The members of ``data`` as a JSON fragment people read: a member whose value is an
    object of objects one line per entry, every other member on one line."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    parts = []
    for key, value in data.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            inner = ",\n".join(f"  {one(k)}: {one(v)}" for k, v in value.items())
            parts.append(f"{one(key)}: {{\n{inner}\n}}")
        else:
            parts.append(f"{one(key)}: {one(value)}")
    return ",\n".join(parts) + "\n"


def _parse_json(body: str) -> Any:
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        return json.loads("{" + body + "}")  # a fragment: the members of one object


@pytest.mark.parametrize(
    ("doc", "match"),
    _examples(),
    ids=[f"{d.name}:{m.string.count(chr(10), 0, m.start()) + 1}" for d, m in _examples()],
)
def test_an_example_output_is_what_its_command_prints(
    doc: Path,
    match: re.Match[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    how = [h.strip() for h in (match["how"] or "").replace(";", ",").split(",") if h.strip()]
    argv = shlex.split(match["command"])[1:]
    monkeypatch.chdir(PROJECT)
    root = None
    for name, setup in SETUPS.items():
        if name in how:
            root = setup(tmp_path)
    if root is not None:  # run from the tree, as CI does
        monkeypatch.chdir(root)
        argv = [str(root) if a in TREE_WORDS else a for a in argv]
    if argv[:1] == ["check"]:  # in this process: the report is the same whatever the jobs
        argv = [*argv, "--jobs", "1"]
    r = run(capsys, *argv)
    assert r.code in (0, 1), r.err
    out = r.err if "stderr" in how else r.out
    if root is not None:
        out = out.replace(str(root), TREE_WORDS[0])
    if "object changes" in how:
        out = _object_changes(out)
    first = how[0].split() if how else []
    if first and first[0] == "json":
        expected = _select_json(out, first)
        if _parse_json(match["body"]) == expected:
            return
        out = _fragment(expected)
    elif out == match["body"]:
        return
    if request.config.getoption("force_regen"):  # the file as it is now: others moved
        text = doc.read_text(encoding="utf-8")
        now = next(m for m in MARKER.finditer(text) if m.group(0) == match.group(0))
        start, end = now.span("body")
        doc.write_text(text[:start] + out + text[end:], encoding="utf-8")
        pytest.fail(f"{doc.name}: regenerated the output of {match['command']}")
    assert out == match["body"], f"{doc.name}: run pytest --force-regen and read the diff"


# --- files shown whole ---------------------------------------------------------------

FILE_MARKER = re.compile(r"<!-- file: (?P<path>[^ ]+) -->\n```[a-z]*\n(?P<body>.*?)```", re.S)


def _shown_files() -> list[tuple[Path, re.Match[str]]]:
    return [(doc, m) for doc in DOCS for m in FILE_MARKER.finditer(doc.read_text(encoding="utf-8"))]


@pytest.mark.parametrize(
    ("doc", "match"),
    _shown_files(),
    ids=[f"{d.name}:{m['path']}" for d, m in _shown_files()],
)
def test_a_file_shown_whole_is_the_file(doc: Path, match: re.Match[str]) -> None:
    """A block after ``<!-- file: PATH -->`` is PATH as the tests use it (BKE's declared
    deviations: the tests prove the real tree passes with exactly these)."""
    assert match["body"] == (PROJECT / match["path"]).read_text(encoding="utf-8")


def test_some_file_is_shown_whole() -> None:
    assert any(m["path"].endswith("calico-render.yaml") for _, m in _shown_files())


# --- every documented gate command finds the goldens ----------------------------------


def _commands() -> list[str]:
    """Every ``calico-render`` command of the docs' code blocks and the pre-commit hook,
    continuation lines joined, shell operators and comments cut off."""
    texts = [
        block
        for doc in DOCS
        for block in re.findall(r"```[a-z]*\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    ]
    texts.extend(hook["entry"] for hook in YAML(typ="safe").load(HOOKS.read_text()))
    out = []
    for text in texts:
        for line in text.replace("\\\n", " ").splitlines():
            at = line.find("calico-render ")
            if at < 0 or line[:at].rstrip().endswith(("#", "git")):
                continue
            command = re.split(r"\s(?:\|\||&&|\||>|#)\s|;|`", line[at:])[0].strip()
            word = command.split()[1] if len(command.split()) > 1 else ""
            if word.endswith(":") or word.startswith(("(", "repository")):
                continue  # an output line, a name or a placeholder, not a command
            if command not in out:
                out.append(" ".join(command.split()))
    return out


#: The commands that read a tree's goldens or judge the tree; the others need inputs of
#: their own (cluster files, upstream tags to write) and have tests of their own.
TREE_COMMANDS = ("check", "capability", "versions")


def _tree_commands() -> list[str]:
    return [
        c
        for c in _commands()
        if c.split()[1:2] and c.split()[1] in TREE_COMMANDS and "$" not in c and "..." not in c
    ]


def test_the_documented_commands_are_found() -> None:
    """The extraction sees the CI jobs, the hook and the adoption steps."""
    found = _tree_commands()
    assert "calico-render check --manifests . --format text" in found
    assert "calico-render check --manifests ." in found  # the pre-commit hook
    assert "calico-render check --manifests . --update-golden" in found
    assert all("--golden golden" not in c for c in _commands())


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bke-manifests tree after adoption: ``check --manifests . --update-golden``."""
    root = bke_tree(tmp_path_factory.mktemp("adopted") / "bke-manifests", ("v3.31.3",))
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(root), "--update-golden"])
    assert exit_.value.code == 0
    return root


@pytest.mark.parametrize("command", _tree_commands())
def test_every_documented_gate_command_finds_the_goldens(
    command: str,
    adopted: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Run from the tree (``.``), with its paths standing in for the docs' placeholders:
    nothing is MISSING and the gate passes."""
    monkeypatch.chdir(adopted)
    argv = [
        "."
        if a in (*TREE_WORDS, "manifests")
        else str(UPSTREAM)
        if a.endswith("upstream/calico")
        else a
        for a in shlex.split(command)[1:]
    ]
    if argv[:1] == ["check"]:  # in this process: the report is the same whatever the jobs
        argv = [*argv, "--jobs", "1"]
    r = run(capsys, *argv)
    assert r.code == 0, (command, r.out[-2000:], r.err)  # a version without goldens fails
    assert "MISSING" not in r.out and "none in" not in r.out
