"""parse: one event pass gives the documents, lines and errors of loading the stream."""

from __future__ import annotations

import functools
import glob
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.errors import InputError
from renderer.k8s import load, parse, yamlio
from renderer.manifests.tree import list_versions
from renderer.store.memo import clear_all

ROOT = Path(__file__).resolve().parents[2]
REAL = Path("/tmp/real")


def _reference(text: str, name: str) -> Any:
    """The separate scan pass and whole-stream load the one pass replaces."""
    try:
        return ("ok", yamlio.load_all_lines(text, name))
    except InputError as exc:
        return ("error", exc.message, exc.line)


def _one_pass(text: str, name: str) -> Any:
    try:
        return ("ok", load.load_documents(text, name))
    except InputError as exc:
        return ("error", exc.message, exc.line)


def _sources() -> list[str]:
    """Where the differential runs take their files from, one test per source: each
    version's renders (bundled, and the real tree when /tmp/real holds it), the goldens,
    each upstream tag's release manifests (full CRDs, 5-7k lines each)."""
    out = [f"bundled:{v.name}" for v in list_versions()]
    if (REAL / "kubernetes" / "calico").is_dir():
        out += [f"real:{v.name}" for v in list_versions(REAL)]
    out.append("golden")
    out += [f"upstream:{p.name}" for p in sorted((ROOT / "upstream" / "calico").glob("v*"))]
    return out


@functools.cache
def _texts(source: str) -> tuple[tuple[str, str], ...]:
    kind, _, name = source.partition(":")
    if kind in ("bundled", "real"):
        root = REAL if kind == "real" else None
        return tuple(
            (f.name, f.text)
            for nodes in (1, 601)
            for f in api.render(api.Request.of(name, nodes, root=root, operation="upgrade")).files
        )
    pattern = "golden/**/*.yaml" if kind == "golden" else f"upstream/calico/{name}/**/*.yaml"
    paths = sorted(glob.glob(str(ROOT / pattern), recursive=True))
    return tuple((p, Path(p).read_text(encoding="utf-8")) for p in paths)


SOURCES = _sources()


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES)
def test_every_bundled_and_real_file_parses_identically(source: str) -> None:
    for name, text in _texts(source):
        ours, ref = _one_pass(text, name), _reference(text, name)
        assert ours == ref and repr(ours) == repr(ref), name


ODD = [
    "",
    "---\n",
    "--- \n---\n",
    "a: 1\n---\n\n# c\n---\nb: [1, {c: d}]\n...\n",
    "a: &x {b: 1}\nc: *x\nd: *x\n",
    "a: &x 1\nb: &x 2\n",
    "a: *nope\n",
    "- &a [1]\n---\n- *a\n",
    "a: 1\n---\nb: *undefined\n---\n[unclosed\n",
    "a: 1\na: 2\n",
    "a: !!str 3\nb: !!binary aGVsbG8=\nc: 2001-12-14\nd: !!set {x, y}\ne: 0o17\nf: .inf\n",
    "? [a, b]\n: c\n",
    "<<: {a: 1}\nb: 2\n",
    "a: !custom 1\n",
    "key: 'unterminated\n",
    "a:\n  b:\n   - c\n  - d\n",
    "%YAML 1.1\n---\na: yes\n",
    "x: " + "[" * 200 + "]" * 200 + "\n",
    "x: " + "[" * 127 + "]" * 127 + "\n",
    "a: 2001-12-14\nb: 1e3\nc: .NaN\nd: 0x1F\ne: ~\nf: 'q'\ng: \"\\t\"\nh: -.inf\n",
    "1: a\n1.0: b\n",
    "true: a\n1: b\n",
    ".nan: a\n.nan: b\n",
    "a: [1, 2, {b: c}]\nd:\n- e\n- [f, {g: h}]\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
    "- a\n- b\n---\n'x'\n---\n7\n",
    "".join(f"{' ' * i}k{i}:\n" for i in range(140)) + " " * 140 + "v\n",
]


@pytest.mark.parametrize("text", ODD)
def test_odd_streams_match_loading_the_stream(text: str) -> None:
    ours, ref = _one_pass(text, "odd.yaml"), _reference(text, "odd.yaml")
    assert ours == ref and repr(ours) == repr(ref)


def test_a_text_is_parsed_once_and_objects_are_not_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text parsed before (this process, or the result cache) gives the same objects,
    each use its own containers: a caller changing one changes no other."""
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    clear_all()
    text = "a: 1\n---\nkind: List\nitems:\n- {kind: A}\n- {kind: B, x: 1.5}\n"
    first = parse.parse_stream(text, "one.yaml")
    first[0].data["a"] = 2
    again = parse.parse_stream(text, "two.yaml")
    assert [(o.file, o.index, o.line, o.data) for o in again] == [
        ("two.yaml", 0, 1, {"a": 1}),
        ("two.yaml", 1, 3, {"kind": "A"}),
        ("two.yaml", 2, 3, {"kind": "B", "x": 1.5}),
    ]
    assert list((tmp_path / "parse").glob("*.json"))  # kept for the next process
    clear_all()  # a new process: from the result cache
    assert parse.parse_stream(text, "three.yaml")[2].data == {"kind": "B", "x": 1.5}


@pytest.mark.parametrize(
    "text",
    [
        "a: {b: [1]}\n---\na: {b: [1]}\n",  # one document twice
        "d: &x {e: [1]}\nf: *x\n",  # an alias: one object in two places
        "a: {b: 1}\n---\nd: &x {e: 1}\nf: *x\n---\na: {b: 1}\n",
    ],
)
def test_no_object_of_a_fresh_parse_is_shared(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects come back as new containers each time, whether parsed just now, read from
    the memo or repeated in the text: a caller changing one changes no other."""
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    clear_all()
    first = parse.parse_stream(text, "one.yaml")
    second = parse.parse_stream(text, "two.yaml")
    expected = [data for _, _, data in _reference_objects(text, "r.yaml")[1]]
    seen: set[int] = set()
    for objects in (first, second):
        stack: list[object] = [o.data for o in objects]
        while stack:
            node = stack.pop()
            if isinstance(node, dict | list):
                assert id(node) not in seen
                seen.add(id(node))
                stack.extend(node.values() if isinstance(node, dict) else node)
    assert [o.data for o in first] == [o.data for o in second] == expected


def test_corrupt_parse_entry_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    clear_all()
    text = "kind: A\n"
    expected = parse.parse_stream(text, "a.yaml")
    [entry] = list((tmp_path / "parse").rglob("*.json"))
    head = entry.read_bytes().split(b"\n", 1)[0]
    for forged in (b"[", b'[[1, {"kind": "B"}]]', head + b'\n[[1, {"kind": "B"}]]'):
        entry.write_bytes(forged)
        clear_all()
        assert parse.parse_stream(text, "a.yaml") == expected


def test_invalid_yaml_is_never_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    for _ in range(2):
        with pytest.raises(InputError):
            parse.parse_stream("a: [\n", "bad.yaml")
    assert not list(tmp_path.rglob("*.json"))


def _reference_objects(text: str, name: str) -> Any:
    """parse_stream as it was: the whole stream loaded at once, nothing kept."""
    try:
        objects = []
        index = 0
        for start, doc in yamlio.load_all_lines(text, name):
            if doc is None:
                continue
            doc = parse.to_json_like(doc, name, start)
            if not isinstance(doc, dict):
                raise InputError("not a mapping", file=name, line=start)
            items = doc["items"] if doc.get("kind") == "List" else None
            for item in items if isinstance(items, list) else [doc]:
                if isinstance(item, dict):
                    objects.append((index, start, item))
                    index += 1
        return ("ok", objects)
    except InputError as exc:
        return ("error", exc.line)


def _objects(text: str, name: str) -> Any:
    try:
        return ("ok", [(o.index, o.line, o.data) for o in parse.parse_stream(text, name)])
    except InputError as exc:
        return ("error", exc.line)


SPLIT = [
    *ODD,
    "a: 1\n--- # c\nb: 2\n---\n\n\nc: [3]\n",
    "--- !!map\na: 1\n",
    "a: 1\n...\n%YAML 1.2\n---\nb: 2\n",
    "a: 'x\n---\ny'\n",
    "a: |\n  x\n---\nb: 1\n",
    "kind: List\nitems:\n- {a: 1}\n- 2\n---\n- not a mapping\n",
    "a: &r [*r]\n",
    "1: a\n---\n? [1]\n: b\n",
    "a: 1\n---\n{1: a, '1': b}\n---\n- x\n",
]


@pytest.mark.parametrize(
    "text",
    [pytest.param(t, marks=pytest.mark.slow) if t == "a: &r [*r]\n" else t for t in SPLIT],
)
def test_streams_give_the_objects_of_loading_the_whole_stream(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    clear_all()
    for _ in range(2):  # parsed, then from this process's memo
        # repr: NaN is not equal to itself
        assert repr(_objects(text, "s.yaml")) == repr(_reference_objects(text, "s.yaml"))
