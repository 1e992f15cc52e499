"""Differential tests: our parse of a rendered stream against BKE's controller's decoding
(tests/go/decode: apimachinery v0.28.0's YAMLOrJSONDecoder, go-yaml v2 through
sigs.k8s.io/yaml v1.6.0, UnstructuredJSONScheme and the controller's list step).

Every stream must give JSON-equal objects in both, or fail in both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.checks.pipeline import VersionRun
from renderer.k8s.parse import parse_stream
from renderer.manifests.tree import list_versions
from tests.decodehelp import Decoded, difference, our_decode, run_go, scalar_streams, scalars

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: BKE's real Calico versions (bke-manifests' v3.31.3, and v3.27.3 with its ipMod edit).
REAL = (FIXTURES / "bke-real", FIXTURES / "bke-real-ipmod")
#: The test trees (hand-written releases, odd layouts).
TREES = tuple(FIXTURES / name for name in ("advise", "context-tree", "handwritten", "tree"))
UPSTREAM = FIXTURES.parents[1] / "upstream" / "calico"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of small streams: parsed, not written to the result cache."""
    monkeypatch.setenv("CALICO_RENDER_NO_CACHE", "1")


def ours(text: str) -> Decoded:
    return our_decode(lambda t: [o.data for o in parse_stream(t, "f.yaml")], text)


def disagreements(binary: Path, streams: list[str]) -> list[str]:
    """Each stream our parse decodes otherwise than the controller, with how."""
    out = []
    for text, go in zip(streams, run_go(binary, streams), strict=True):
        found = difference(go, ours(text))
        if found is not None:
            out.append(f"{text!r}: {found}")
    return out


#: Streams that take each path of the controller's decoding: how it cuts documents
#: (and which it fails on), JSON streams, what is not an object, lists, keys that
#: become strings, anchors and merges, tags, numbers.
CASES = [
    # the stream cut into documents: a document without content fails, but for none at
    # all or a trailing ``---``; a ``---`` line with more than a comment fails
    "",
    "\n",
    "# only a comment\n",
    "---\n",
    "---\n---\n",
    "---\nkind: A\n",
    "kind: A\n---\n",
    "kind: A\n---",
    "kind: A\n---\n\n",
    "kind: A\n---\n# comment\n",
    "# head\n---\nkind: A\n",
    "---\n# head\nkind: A\n",
    "kind: A\n---\n---\nkind: B\n",
    "kind: A\n--- # c\nkind: B\n",
    "kind: A\n---# c\nkind: B\n",
    "kind: A\n---  \t\nkind: B\n",
    "kind: A\n--- x\nkind: B\n",
    "kind: A\n---x\n",
    "kind: A\n----\n",
    "kind: A\n--- |\n  x\n",
    "kind: A\n--- {}\n",
    "kind: A\n---\u00a0\nkind: B\n",
    "kind: A\n...\nkind: B\n",
    "kind: A\n...\n---\nkind: B\n",
    "kind: A\n...\n[\n",
    "kind: A\nnull\n",
    "null\n",
    "~\n",
    "---\nnull\n---\nkind: A\n",
    "kind: A\r\nv: b\r\n",
    "kind: A\r\n---\r\nkind: B\r\n",
    'kind: A\nv: "x\r"\n',
    "kind: A\nv: |\n  ---\n  x\n",
    "kind: A\nv: |\n---\n",
    "\ufeffkind: A\n",
    "%YAML 1.1\n---\nkind: A\n",
    "kind: A\n%YAML 1.1\n",
    "%TAG !e! tag:yaml.org,2002:\n--- \nkind: A\n",
    # documents that are not objects; kinds
    "- a\n",
    "a\n",
    "1\n",
    "true\n",
    "{}\n",
    "v: 1\n",
    "kind: 1\n",
    "kind: ''\n",
    "kind: yes\n",
    "kind: [A]\n",
    "apiVersion: v1\nkind: A\n",
    "kind: A\nkind: B\n",
    # lists: six kinds stand for their items, any top-level items is read as a list's
    "kind: ConfigMapList\napiVersion: v1\nitems:\n- metadata: {name: a}\n- kind: Secret\n",
    "kind: ConfigMapList\nitems: []\n",
    "kind: ConfigMapList\nitems:\n",
    "kind: SecretList\n",
    "kind: RoleList\napiVersion: rbac.authorization.k8s.io/v1\nitems:\n-\n- apiVersion: x\n",
    "kind: List\napiVersion: v1\nitems:\n- kind: ConfigMap\n  metadata: {name: a}\n",
    "kind: A\nitems: {}\n",
    "kind: A\nitems: [1]\n",
    "kind: A\nitems: [[]]\n",
    "kind: A\nitems: x\n",
    "kind: ClusterRoleBindingList\nitems:\n- kind: 1\n  apiVersion: 2\n",
    "kind: A\nitems:\n- {kind: ''}\n",
    # keys given twice, keys that become strings
    "kind: A\nv: 1\nv: 2\n",
    "kind: A\n1: a\n'1': a\n",
    "kind: A\ntrue: a\nyes: b\non: c\n",
    "kind: A\n010: a\n8: b\n",
    "kind: A\n0.1: a\n1e3: b\n1.5e6: c\n-0.0: d\n3.4e39: e\n1e-50: f\n",
    "kind: A\n~: a\n",
    "kind: A\n: a\n",
    "kind: A\n18446744073709551615: a\n",
    "kind: A\n9223372036854775807: a\n",
    "kind: A\n.nan: a\n.inf: b\n-.inf: c\n",
    "kind: A\n[a]: b\n",
    "kind: A\n{a: 1}: b\n",
    "kind: A\n? - a\n: b\n",
    "kind: A\n'null': a\n",
    # anchors, aliases and merges
    "kind: A\na: &x 1\nb: *x\n",
    "kind: A\na: &x [1, {b: 2}]\nc: *x\n",
    "kind: A\nb: *x\n",
    "kind: A\na: &x {b: *x}\n",
    "kind: A\na: &x 1\nb: &x 2\nc: *x\n",
    "kind: A\na: &x {b: &x 1, c: *x}\nd: *x\n",
    "kind: A\n&k key: 1\nother: *k\n",
    "kind: A\nbase: &b {x: 1, y: 2}\nm:\n  x: 0\n  <<: *b\n  z: 3\n",
    "kind: A\nbase: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n",
    "kind: A\na: &a {x: 1, y: 1}\nb: &b {x: 2, z: 2}\nm:\n  <<: [*a, *b]\n",
    "kind: A\nm:\n  <<: {x: 1}\n  <<: {x: 2}\n",
    "kind: A\nm:\n  <<: [{x: 1}, {x: 2}]\n",
    "kind: A\nm:\n  <<: 1\n",
    "kind: A\nm:\n  <<: [1]\n",
    "kind: A\nm:\n  <<: ~\n",
    "kind: A\nm:\n  <<: []\n",
    "kind: A\ns: &s [1]\nm:\n  <<: *s\n",
    "kind: A\nm:\n  '<<': {x: 1}\n",
    "kind: A\nm:\n  !!merge <<: {x: 1}\n",
    "kind: A\nm:\n  ! <<: {x: 1}\n",
    "kind: A\nv: <<\n",
    "kind: A\nm: &m\n  <<: {x: 1}\nn:\n  <<: *m\n  y: 2\n",
    "kind: A\nl: &l [a, b]\nm: [*l, *l, *l]\n",
    # tags
    "kind: A\nv: !!str 1\n",
    "kind: A\nv: !!int '10'\n",
    "kind: A\nv: !!int x\n",
    "kind: A\nv: !!float 1\n",
    "kind: A\nv: !!float x\n",
    "kind: A\nv: !!bool yes\n",
    "kind: A\nv: !!bool 1\n",
    "kind: A\nv: !!null ''\n",
    "kind: A\nv: !!null x\n",
    "kind: A\nv: !!timestamp 2001-12-14\n",
    "kind: A\nv: !!timestamp 2001-12-14T21:59:43.10Z\n",
    "kind: A\nv: !!timestamp x\n",
    "kind: A\nv: !!binary aGVsbG8=\n",
    "kind: A\nv: !!binary '!!'\n",
    "kind: A\nv: !!binary /w==\n",
    "kind: A\nv: !!binary |\n  aGVs\n  bG8=\n",
    "kind: A\nv: !foo bar\n",
    "kind: A\nv: ! 1\n",
    "kind: A\nv: ! yes\n",
    "kind: A\nv: !<tag:yaml.org,2002:int> 3\n",
    "kind: A\nv: !!map {a: 1}\n",
    "kind: A\nv: !!str {a: 1}\n",
    "kind: A\nv: !!float 18446744073709551615\n",
    # values: what JSON cannot hold fails, numbers as the cluster reads them
    "kind: A\nv: .nan\n",
    "kind: A\nv: [.inf]\n",
    "kind: A\nv: .nan\nv: 1\n",
    "kind: A\nv: 1e400\n",
    "kind: A\nv: 1152921504606846976.0\n",
    "kind: A\nv: 1152921504606846976\n",
    "kind: A\nv: -0.0\n",
    "kind: A\nv: 2001-12-14t21:59:43.10-05:00\n",
    "kind: A\nv: 1:20\n",
    "kind: A\nv: 'yes'\n",
    "kind: A\nv: |\n  yes\n",
    "kind: A\nv: >-\n  010\n",
    "kind: A\nmetadata:\n  labels:\n    enabled: yes\n    mode: on\n",
    # JSON streams (the first non-space character is ``{``)
    '{"kind": "A"}\n',
    '{"kind": "A"} {"kind": "B"}',
    '  \n{"kind": "A", "v": 1.0, "w": 1e300}',
    '{"kind": "A", "v": 1e400}',
    '{"kind": "A", "v": NaN}',
    '{"kind": "A"}\n---\n',
    '{"kind": "A"}\nnull\n',
    '{"kind": "A", "kind": "B"}',
    '{"kind": "A", "v": 12345678901234567890}',
    '{"kind": "A"} x',
    "{kind: A}\n",
    "[1]\n",
]


def test_streams_decode_as_the_controller_decodes_them(go_decode: Path) -> None:
    assert disagreements(go_decode, CASES) == []


#: Keys of different types that become one string: the controller keeps either value
#: (Go's map order), so no answer is the controller's; the parse refuses them.
UNDECIDED = ["kind: A\n1: a\n'1': b\n", "kind: A\n1: a\n1.0: b\n", "kind: A\ntrue: a\n'true': b\n"]


@pytest.mark.parametrize("text", UNDECIDED)
def test_keys_the_controller_keeps_at_random_are_refused(go_decode: Path, text: str) -> None:
    [go] = run_go(go_decode, [text])
    assert go.objects is not None and len(go.objects) == 1
    refused = ours(text)
    assert refused.objects is None
    assert "appears twice once keys are strings" in str(refused.error)


#: The scalar fuzz's seed and size: each scalar as a value, an item and a key.
SEED, SCALARS = 35, 5_000


def test_scalars_decode_as_the_controller_decodes_them(go_decode: Path) -> None:
    streams = scalar_streams(scalars(SEED, SCALARS))
    assert len(streams) == 3 * SCALARS
    assert disagreements(go_decode, streams) == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_more_scalars_decode_as_the_controller_decodes_them(go_decode: Path, seed: int) -> None:
    assert disagreements(go_decode, scalar_streams(scalars(seed, 10_000))) == []


def rendered_streams() -> dict[str, str]:
    """Every distinct rendered file of every scenario of every bundled version, of BKE's
    real versions and of the test trees, each with one place it comes from."""
    found: dict[str, str] = {}
    for root in (None, *REAL, *TREES):
        for version in list_versions(root):
            for render in VersionRun(version).scenarios:
                for name, text in render.files:
                    found.setdefault(text, f"{version.name}/{name} ({render.scenario.name})")
    return found


def test_every_render_decodes_as_the_controller_decodes_it(go_decode: Path) -> None:
    found = rendered_streams()
    streams = list(found)
    decoded = run_go(go_decode, streams)
    failed = [found[s] for s, d in zip(streams, decoded, strict=True) if d.objects is None]
    assert failed == []  # the controller applies every render
    assert disagreements(go_decode, streams) == []


def test_upstream_release_manifests_decode_as_the_controller_decodes_them(go_decode: Path) -> None:
    """Upstream Calico's own files (the fidelity stage reads them with the same parse)."""
    streams = [p.read_text(encoding="utf-8") for p in sorted(UPSTREAM.glob("v*/*.yaml"))]
    assert len(streams) >= 15
    assert disagreements(go_decode, streams) == []
