"""parse: one event pass gives the documents, lines and errors of loading the stream."""

from __future__ import annotations

import functools
import glob
import json
import re
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.errors import InputError
from renderer.k8s import parse, yamlio
from renderer.manifests.tree import list_versions
from renderer.store import cache
from tests.memohelp import PARSED_DOCUMENTS, PARSED_TEXTS, cold

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
        return ("ok", parse.load_documents(text, name))
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
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    cold(PARSED_TEXTS)
    text = "a: 1\n---\nkind: List\nitems:\n- {kind: A}\n- {kind: B, x: 1.5}\n"
    first = parse.parse_stream(text, "one.yaml")
    calls: list[str] = []
    for name in ("split_documents", "load_documents"):  # every parse goes through one
        real = getattr(parse, name)
        monkeypatch.setattr(parse, name, lambda *a, real=real: calls.append(a[-1]) or real(*a))
    first[0].data["a"] = 2
    again = parse.parse_stream(text, "two.yaml")
    assert not calls
    assert [(o.file, o.index, o.line, o.data) for o in again] == [
        ("two.yaml", 0, 1, {"a": 1}),
        ("two.yaml", 1, 3, {"kind": "A"}),
        ("two.yaml", 2, 3, {"kind": "B", "x": 1.5}),
    ]
    cold(PARSED_TEXTS)  # a new process: from the persistent cache
    assert parse.parse_stream(text, "three.yaml")[2].data == {"kind": "B", "x": 1.5}
    assert not calls
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)  # nothing known: parsed again, and seen so
    parse.parse_stream(text, "four.yaml")
    assert calls


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
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
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


def _containers(objects: list[parse.K8sObject]) -> set[int]:
    """The ids of every mapping and list in ``objects``' data."""
    seen: set[int] = set()
    stack: list[object] = [o.data for o in objects]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list) and id(node) not in seen:
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return seen


#: Two renders sharing most documents, as a version's renders for two contexts do.
RENDERS = [
    "kind: CRD\nspec: {names: [a]}\n---\nkind: D\nspec: {replicas: 3}\n---\nkind: CRD\nx: [1]\n",
    "kind: CRD\nspec: {names: [a]}\n---\nkind: D\nspec: {replicas: 4}\n---\nkind: CRD\nx: [1]\n",
]


@pytest.mark.parametrize("keep", [True, False])
def test_renders_sharing_documents_share_no_object_outside_the_sharing_block(
    keep: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether texts are kept or not (the verdict child), two renders with documents in
    common get their own containers: a caller may change one render's objects."""
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    parse.keep_texts(keep)
    try:
        first, second = (parse.parse_stream(t, "calico.yaml") for t in RENDERS)
    finally:
        parse.keep_texts(True)
    assert not _containers(first) & _containers(second)
    assert [o.data["kind"] for o in first] == [o.data["kind"] for o in second]


def test_inside_the_sharing_block_a_document_parsed_again_is_the_same_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The verdict's renders reuse what a shared document gave first (the same data as
    decoding its JSON anew would give); a parse after the block gets its own again."""
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    alone = [[o.data for o in parse.parse_stream(t, "calico.yaml")] for t in RENDERS]
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    with parse.sharing_objects():
        first, second = (parse.parse_stream(t, "calico.yaml") for t in RENDERS)
    assert [[o.data for o in first], [o.data for o in second]] == alone
    assert [a.data is b.data for a, b in zip(first, second, strict=True)] == [True, False, True]
    after = parse.parse_stream(RENDERS[0], "calico.yaml")
    assert not _containers(after) & (_containers(first) | _containers(second))


def test_a_process_keeping_no_texts_digests_a_whole_text_only_where_it_can_be_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a cold cache the verdict child neither finds nor keeps a whole text's parse:
    it does not digest the text. On a cache holding parses it reads one back."""
    text = RENDERS[0]
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path / "cache"))
    digested: list[str] = []
    real = cache.digest
    monkeypatch.setattr(cache, "digest", lambda *p: digested.extend(p) or real(*p))
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    parse.keep_texts(False)
    try:
        alone = _objects(text, "s.yaml")
        assert text not in digested
        assert not (tmp_path / "cache" / "parse").exists()  # and nothing was written
        parse.keep_texts(True)
        cold(PARSED_TEXTS, PARSED_DOCUMENTS)
        assert _objects(text, "s.yaml") == alone  # a render keeps the text's parse
        cold(PARSED_TEXTS, PARSED_DOCUMENTS)
        parse.keep_texts(False)
        chunks: list[object] = []
        monkeypatch.setattr(parse, "_parse_chunks", lambda *a: chunks.append(a) or [])
        digested.clear()
        assert _objects(text, "s.yaml") == alone  # read back, not parsed
        assert text in digested and not chunks
    finally:
        parse.keep_texts(True)


def test_corrupt_parse_entry_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    cold(PARSED_TEXTS)
    text = "kind: A\n"
    expected = parse.parse_stream(text, "a.yaml")
    [entry] = list((tmp_path / "parse").rglob("*.json"))
    for forged in ('{"key": "x", "value": []}', "[", '{"value": [[0, 1, "no"]]}'):
        entry.write_text(forged)
        cold(PARSED_TEXTS)
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
def test_split_documents_give_the_stream_objects(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    for _ in range(2):  # parsed, then from this process's memo
        cold(PARSED_TEXTS)
        # repr: NaN is not equal to itself
        assert repr(_objects(text, "s.yaml")) == repr(_reference_objects(text, "s.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES)
def test_every_file_gives_the_stream_objects(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    cold(PARSED_DOCUMENTS)
    for name, text in _texts(source):
        cold(PARSED_TEXTS)
        assert repr(_objects(text, name)) == repr(_reference_objects(text, name)), name


class _Peer:
    """A peer that hands over what another parse of ``text`` found, once asked."""

    def __init__(self, offer: list[tuple[str, str]], reverse: bool) -> None:
        self.reverse = reverse
        self.offer = offer
        self.given: list[str] = []

    def take(self) -> list[tuple[str, str]]:
        offer, self.offer = self.offer, []
        return offer

    def give(self, key: str, encoded: str) -> None:
        self.given.append(key)


@pytest.mark.parametrize("reverse", [False, True])
def test_documents_a_peer_hands_over_are_not_parsed_again(
    reverse: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    text = "a: 1\n---\nb: [2]\n---\nc: {d: 3}\n---\ne: 4\n"
    keys = [cache.digest(chunk) for _, chunk in parse.split_documents(text)]
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    alone = _objects(text, "s.yaml")
    offer = [(k, parse._DOCUMENTS[k]) for k in keys[1:3]]  # the two in the middle
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    peer = _Peer(offer, reverse)
    parse.share_documents(peer)
    try:
        assert _objects(text, "s.yaml") == alone
    finally:
        parse.share_documents(None)
    first, last = keys[0], keys[3]
    assert peer.given == ([last, first] if reverse else [first, last])


def test_a_process_keeping_no_texts_parses_alike_and_keeps_only_documents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    text = "a: 1\n---\nb: [2]\n"
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    alone = _objects(text, "s.yaml")
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    parse.keep_texts(False)
    try:
        assert _objects(text, "s.yaml") == alone
        assert parse._PARSED.get(cache.digest(text)) is None  # the text is not kept
        assert _objects(text, "s.yaml") == alone  # its documents are
    finally:
        parse.keep_texts(True)


JSON_TEXTS = [
    *SPLIT,
    "a: 1\n---\nkind: List\nitems:\n- {b: 2}\n- {c: '\u2013 \U0001f600'}\n---\na: 1\n",
    "a: 1.0\nb: 1\nc: true\nd: '1'\ne: .nan\nf: -0.0\ng: 1e400\nh: null\n---\n# only\n",
    "kind: A\nx: &y {z: [1]}\nw: *y\n---\nkind: A\nx: {z: [1]}\nw: {z: [1]}\n",
]


@pytest.mark.parametrize("text", JSON_TEXTS)
def test_a_parse_entry_holds_the_objects_and_documents_keep_their_json(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole text's entry, joined from its documents' JSON, reads back to the
    objects (from this process's memo and from the cache); each document's JSON in
    :data:`parse._DOCUMENTS` is what encoding its rows gives."""
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    expected = _objects(text, "s.yaml")
    for reading in ("memo", "cache"):
        if reading == "cache":
            cold(PARSED_TEXTS)
        assert repr(_objects(text, "s.yaml")) == repr(expected), reading
    for encoded in [parse._DOCUMENTS[k] for k in list(parse._DOCUMENTS)]:
        rows, texts = parse._decoded(encoded)
        assert encoded == cache.encode(rows)
        assert texts == [cache.encode(doc) for _, doc in rows]
    if expected[0] == "ok":
        [entry] = (tmp_path / "parse").rglob("*.json")
        parts = json.loads(entry.read_text())["value"]
        assert parse._valid_parse(parts)
        back = [(o.index, o.line, o.data) for o in parse._read_back("s.yaml", parts)]
        assert repr(back) == repr(expected[1])  # repr: NaN is not equal to itself


@pytest.mark.parametrize(
    "encoded",
    [
        "",
        "[",
        "[[1,{}]",
        "[[1, {}]]",
        "[[1,{} ]]",
        "[[01,{}]]",
        "[[1,{}],]",
        "[1,{}]",
        '[[1,{"a":1}]]x',
    ],
)
def test_a_document_json_not_as_written_is_refused(encoded: str) -> None:
    with pytest.raises((ValueError, IndexError)):
        parse._decoded(encoded)


def _every_node(data: Any) -> list[Any]:
    out, stack = [], [data]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


@pytest.mark.parametrize("text", JSON_TEXTS)
@pytest.mark.parametrize(
    "how", ["parsed", "documents known", "from a peer", "text known", "from the cache"]
)
def test_noted_json_is_the_objects_own(
    text: str, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside :func:`parse.noting_json` an object's noted JSON is exactly what encoding
    its data gives, whether its document was parsed here, read back from the document
    memo or handed over by a peer, or its whole text read back from the memo or the
    cache; outside the block nothing is noted."""
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    offer: list[tuple[str, str]] = []
    if how != "parsed":
        try:
            parse.parse_stream(text, "s.yaml")
        except InputError:
            return
        offer = [(k, parse._DOCUMENTS[k]) for k in list(parse._DOCUMENTS)]
        forget = {
            "documents known": [PARSED_TEXTS],
            "from a peer": [PARSED_TEXTS, PARSED_DOCUMENTS],
            "text known": [],
            "from the cache": [PARSED_TEXTS, PARSED_DOCUMENTS],
        }[how]
        cold(*forget)
    if how in ("parsed", "documents known", "from a peer"):
        monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")
    parse.share_documents(_Peer(offer, False) if how == "from a peer" else None)
    try:
        with parse.noting_json():
            try:
                objects = parse.parse_stream(text, "s.yaml")
            except InputError:
                return
            noted = [parse.noted_json(o.data) for o in objects]
            for o, found in zip(objects, noted, strict=True):
                assert found is None or found == cache.encode(o.data)
                # nothing inside an object is noted as another object's JSON
                assert all(
                    parse.noted_json(n) in (None, cache.encode(n)) for n in _every_node(o.data)
                )
    finally:
        parse.share_documents(None)
    splits = not re.search(parse._UNSPLITTABLE, "\n" + text)
    if "List" not in text and (splits or how in ("text known", "from the cache")):
        assert all(n is not None for n in noted)  # a split or read back text's objects
    assert all(parse.noted_json(o.data) is None for o in objects)


@pytest.mark.parametrize(
    "forged",
    [
        '[[1,[[1,{"kind":"B"}]]]]',  # as the parse writes it: taken (its key is its text)
        '[[1, [[1,{"kind":"A"}]]]]',
        '[[1,[[1,{"kind" :"A"}]]]]',
        '[[1,[[1,{"kind":"A"}]]],]',
        '[[1,[[1,{"kind":"A"}]]]',
        '[[1,[[1,["kind"]]]]]',
        '[[+1,[[1,{"kind":"A"}]]]]',
        "[",
        "",
    ],
)
def test_a_parse_entry_read_with_its_json_is_checked(
    forged: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read back to be noted, an entry not as the parse writes it is a miss (parsed
    again), and one as written gives its own objects, each noted with its own JSON."""
    monkeypatch.setenv("CALICO_RENDER_CACHE_DIR", str(tmp_path))
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    text = "kind: A\n"
    parse.parse_stream(text, "a.yaml")
    [entry] = list((tmp_path / "parse").rglob("*.json"))
    full = json.loads(entry.read_text())["key"]
    entry.write_text('{"key":' + json.dumps(full) + ',"value":' + forged + "}")
    cold(PARSED_TEXTS, PARSED_DOCUMENTS)
    with parse.noting_json():
        [obj] = parse.parse_stream(text, "a.yaml")
        noted = parse.noted_json(obj.data)
    assert obj.data == ({"kind": "B"} if "B" in forged else {"kind": "A"})
    # a JSON text of the object: spaced otherwise, its key misses, never another's
    assert noted is not None and json.loads(noted) == obj.data
