"""Differential tests: the Python interpreter against Go's text/template (tests/go/render.go).

Every case must render byte-identically in both, or fail in both with Go's exact message
(``template: calico:LINE:COL: ...``, as Go 1.24 words it); the Python error also carries
a line and a column for the user.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from renderer.engine.gotemplate import GoTemplateError, compile_go
from renderer.errors import TemplateError
from tests.gotemplate_gen import (
    IDENTICAL,
    SAME_ERROR,
    Outcome,
    as_go_1_24,
    classify,
    features,
    go_batch,
    random_template,
)

HERE = Path(__file__).resolve().parents[2]
REPO = HERE.parent
CASES_FILE = HERE / "parity" / "cases.yaml"


#: The name the controller gives every template: the addon's.
TEMPLATE_NAME = "calico"


def run_go(binary: Path, workdir: Path, template: str, context: Any, name: str) -> Outcome:
    workdir.mkdir(parents=True, exist_ok=True)
    tmpl = workdir / name
    tmpl.write_bytes(template.encode("utf-8", "surrogateescape"))
    ctx = workdir / "context.json"
    ctx.write_text(json.dumps(context), encoding="utf-8")
    result = subprocess.run(
        [str(binary), str(tmpl), str(ctx)], capture_output=True, check=False, timeout=60
    )
    if result.returncode == 0:
        return Outcome(True, result.stdout, "")
    if result.returncode != 1:
        pytest.fail(f"Go renderer crashed (rc={result.returncode}): {result.stderr!r}")
    return Outcome(False, b"", result.stderr.decode("utf-8", "surrogateescape").strip())


def run_python(template: str, context: Any, name: str) -> tuple[Outcome, TemplateError | None]:
    """The interpreter's outcome (its error as Go's text where it has it), and its error
    when it failed."""
    try:
        out = compile_go(template, name, template_name=TEMPLATE_NAME).render(context)
    except TemplateError as exc:
        return Outcome(False, b"", getattr(exc, "go_message", str(exc))), exc
    return Outcome(True, out.encode("utf-8", "surrogateescape"), ""), None


def assert_parity(go: Outcome, py: Outcome, py_error: TemplateError | None) -> None:
    """The same bytes, or both fail: Python with Go's exact message (as Go 1.24 words it),
    and a line and column for the user."""
    if go.ok:
        assert py.ok, f"Go rendered {go.output!r} but Python failed: {py.error}"
        assert py.output == go.output
    else:
        assert not py.ok, f"Go failed ({go.error}) but Python rendered {py.output!r}"
        assert py_error is not None
        assert py_error.line is not None and py_error.line >= 1, str(py_error)
        assert py_error.column is not None and py_error.column >= 1, str(py_error)
        assert isinstance(py_error, GoTemplateError), str(py_error)
        assert py_error.go_message == as_go_1_24(go.error)


def _load_cases() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = YAML(typ="safe").load(CASES_FILE.read_text(encoding="utf-8"))
    return data["base_context"], data["cases"]


BASE_CONTEXT, CASES = _load_cases()


def _context(case: dict[str, Any]) -> Any:
    if "context" in case:
        ctx = case["context"]
    else:
        ctx = dict(BASE_CONTEXT)
        ctx.update(case.get("extra", {}))
    # a JSON round trip gives both sides exactly the same data
    return json.loads(json.dumps(ctx))


def test_case_names_are_unique() -> None:
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    assert len(CASES) >= 200


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_parity_case(case: dict[str, Any], go_render: Path, tmp_path: Path) -> None:
    context = _context(case)
    go = run_go(go_render, tmp_path, case["template"], context, "t.tmpl")
    if "go_fails" in case:
        assert go.ok is not case["go_fails"], f"case expectation is stale: Go gave {go}"
    assert_parity(go, *run_python(case["template"], context, "t.tmpl"))


# --- the real manifests ------------------------------------------------------------------

MANIFEST_FILES = [
    *sorted((REPO / "manifests" / "kubernetes" / "calico").glob("*/*.yaml")),
    # BKE's released v3.27.3, which branches on ipModVersion and reads .ClusterCidr.Ipv6
    HERE / "fixtures" / "bke-real-ipmod" / "kubernetes" / "calico" / "v3.27.3" / "calico.yaml",
]

_BASE_MANIFEST_CONTEXT: dict[str, Any] = {
    "repo": "registry.example.com/openfuyao/",
    "allowTypha": "false",
    "typhaReplicas": "0",
    "calicoMode": "vxlan",
    "ipAutoDetectionMethod": "skip-interface=nerdctl*",
    "ipModVersion": "ipv4",
    "podSubnet": "10.244.0.0/16",
    "ClusterCidr": {"Ipv6": "fd00:10:244::/56"},
}


def _variant(**changes: Any) -> dict[str, Any]:
    ctx = dict(_BASE_MANIFEST_CONTEXT)
    for key, value in changes.items():
        if value is _DROP:
            ctx.pop(key, None)
        else:
            ctx[key] = value
    return ctx


_DROP = object()

MANIFEST_CONTEXTS: dict[str, dict[str, Any]] = {
    "typha-on-4": _variant(allowTypha="true", typhaReplicas="4"),
    "typha-off": _variant(),
    "ipip": _variant(calicoMode="ipip"),
    "bgp": _variant(calicoMode="bgp"),
    "ipv6": _variant(ipModVersion="ipv6"),
    "dual": _variant(ipModVersion="dual", allowTypha="true", typhaReplicas="3"),
    "no-repo": _variant(repo=""),
    "autodetect-missing": _variant(ipAutoDetectionMethod=_DROP),
    "autodetect-empty": _variant(ipAutoDetectionMethod=""),
    # what the controller renders: no config can set ClusterCidr, values need not match
    "ipv6-no-cluster-cidr": _variant(ipModVersion="ipv6", ClusterCidr=_DROP),
    "dual-no-cluster-cidr": _variant(ipModVersion="dual", ClusterCidr=_DROP),
    "odd-values": _variant(calicoMode="IPIP", ipAutoDetectionMethod="first-found "),
}


@pytest.mark.parametrize("context_name", sorted(MANIFEST_CONTEXTS))
@pytest.mark.parametrize(
    "manifest", MANIFEST_FILES, ids=[str(p.relative_to(REPO)) for p in MANIFEST_FILES]
)
def test_manifest_parity(
    manifest: Path, context_name: str, go_render: Path, tmp_path: Path
) -> None:
    template = manifest.read_text(encoding="utf-8")
    context = json.loads(json.dumps(MANIFEST_CONTEXTS[context_name]))
    go = run_go(go_render, tmp_path, template, context, manifest.name)
    assert_parity(go, *run_python(template, context, manifest.name))


@pytest.mark.slow
def test_100k_actions_match_go(go_render: Path, tmp_path: Path) -> None:
    """A 100,000-action template (1.2 MB): interpreted in a few seconds, as Go renders it."""
    source = "".join(
        f"a{i}: {{{{ if .x{i % 7} }}}}{{{{ .y }}}}{{{{ else }}}}{{{{ $.z }}}}{{{{ end }}}}\n"
        for i in range(20_000)
    )
    assert source.count("{{") == 100_000
    context = {"x1": "on", "x4": [1], "y": "Y", "z": 3}
    go = run_go(go_render, tmp_path, source, context, "big.yaml")
    assert_parity(go, *run_python(source, context, "big.yaml"))
    assert go.ok and go.output.count(b"Y") == sum(i % 7 in (1, 4) for i in range(20_000))


# --- the controller's version functions ----------------------------------------------------


def test_version_functions_match_go_and_the_controllers_data(
    go_render: Path, tmp_path: Path
) -> None:
    """Every pair of ../shared/controller-semver/cases.json through one template: Go (with
    blang/semver v4, as the controller) and Python print the same verdicts, and both are
    the data's."""
    data = json.loads(
        (HERE / "engine" / "gotemplate" / "controller_semver_cases.json").read_text("utf-8")
    )
    names = ("vgt", "vlt", "veq", "vgte", "vlte", "vne")
    source = (
        "{{ range .pairs }}"
        + "".join(f"{{{{ {n} (index . 0) (index . 1) }}}} " for n in names)
        + "\n{{ end }}"
    )
    context = {"pairs": [[p["a"], p["b"]] for p in data["pairs"]]}
    go = run_go(go_render, tmp_path, source, context, "versions.yaml")
    assert_parity(go, *run_python(source, context, "versions.yaml"))
    expected = "".join(
        "".join(f"{str(p[n]).lower()} " for n in names) + "\n" for p in data["pairs"]
    )
    assert go.output.decode() == expected


# --- generated programs: the differential fuzz ----------------------------------------------

#: Generated templates (tests/gotemplate_gen.py) held to Go: all of them under ``-m slow``
#: (as CI runs), the first :data:`FUZZ_QUICK` in every run.
FUZZ_SEEDS = 20_000
FUZZ_QUICK = 300
#: The slow seeds in runs of this many, one test each (parallel workers share them out).
FUZZ_CHUNK = 2_500


def _fuzz(binary: Path, seeds: range) -> Counter[str]:
    """Run ``seeds`` through Go (one batch process) and the engine: every case must give
    identical output, or fail in both with Go's exact message. Counts kinds and what
    the rendered cases exercised."""
    context = json.loads(json.dumps(BASE_CONTEXT))
    sources = [random_template(seed) for seed in seeds]
    counts: Counter[str] = Counter()
    wrong = []
    outcomes = go_batch(binary, [(t, context) for t in sources])
    for seed, source, go in zip(seeds, sources, outcomes, strict=True):
        py = run_python(source, context, "t.tmpl")[0]
        kind = classify(go, py)
        counts[kind] += 1
        if kind == IDENTICAL:
            counts.update(features(source))
        elif kind != SAME_ERROR:
            wrong.append(f"seed {seed}: {kind}: {source!r}\n  Go: {go}\n  Python: {py}")
    assert not wrong, f"{len(wrong)} of {len(seeds)} cases:\n" + "\n".join(wrong[:10])
    return counts


def test_generated_programs_match_go_quick(go_render: Path) -> None:
    """The fuzz's first seeds: same output as Go, or the same error message."""
    counts = _fuzz(go_render, range(FUZZ_QUICK))
    assert counts["identical output"] >= FUZZ_QUICK // 3
    assert counts["both error, same message"] >= FUZZ_QUICK // 4


@pytest.mark.slow
@pytest.mark.parametrize("first", range(0, FUZZ_SEEDS, FUZZ_CHUNK))
def test_generated_programs_match_go(first: int, go_render: Path) -> None:
    """20,000 generated programs in all: same output as Go, or the same error message;
    the rendered ones exercise Go 1.23/1.24's syntax and the float verbs."""
    counts = _fuzz(go_render, range(first, first + FUZZ_CHUNK))
    assert counts["identical output"] >= FUZZ_CHUNK // 3
    assert counts["both error, same message"] >= FUZZ_CHUNK // 4
    for feature in ("else with", "range over an integer", "break or continue", "float verb"):
        assert counts[feature] >= FUZZ_CHUNK // 50, (feature, counts)
    for feature in ("complex constant", "declaration in parentheses"):
        assert counts[feature] >= FUZZ_CHUNK // 100, (feature, counts)


# --- deep nesting (Go has no limit; Python's functions have) -------------------------------


def _nested(open_: str, close: str, depth: int, inner: str) -> str:
    return open_ * depth + inner + close * depth


DEEP_CASES = {
    "range_25": _nested("{{ range $i, $e := $.one }}", "{{ end }}", 25, "{{ $i }}{{ $e }}"),
    "range_dollar_and_vars": (
        '{{ $x := "a" }}'
        + _nested("{{ range $.one }}", "{{ end }}", 12, '{{ $x = printf "%s." $x }}{{ $.s }}')
        + "{{ $x }}"
    ),
    "if_120": _nested("{{ if .s }}", "{{ end }}", 120, "{{ .s }}"),
    "if_else_chain_60": _nested("{{ if .n }}no{{ else if .s }}", "{{ end }}", 60, "y"),
    "with_dot_40": _nested(
        "{{ with .m }}{{ with .nested }}", "{{ end }}{{ end }}", 20, "x"
    ).replace("{{ with .nested }}", "{{ with $.m }}"),
    "break_deep_in_ifs": (
        "{{ range .l }}"
        + _nested("{{ if $.s }}", "{{ end }}", 15, "{{ break }}")
        + "never{{ end }}done"
    ),
    "continue_deep_in_ifs": (
        "{{ range $i, $e := .l }}"
        + _nested(
            "{{ if $.s }}", "{{ end }}", 15, "{{ if eq $i 0 }}{{ continue }}{{ end }}{{ $i }}"
        )
        + "{{ end }}"
    ),
    "template_call_deep": (
        '{{ define "d" }}[{{ . }}]{{ end }}'
        + _nested("{{ range $.l }}", "{{ end }}", 10, '{{ template "d" $.s }}')
    ),
    "error_deep": _nested("{{ if .s }}", "{{ end }}", 30, "{{ .s.x }}"),
    "declared_in_deep_scope": _nested("{{ if .s }}{{ $v := 1 }}", "{{ $v }}{{ end }}", 20, ""),
    # past Python's 20 nested loops and 100 blocks per function, with the jump inside
    "break_in_ifs_150": (
        "{{ range .l }}a"
        + _nested("{{ if $.s }}", "{{ end }}", 150, "{{ break }}")
        + "never{{ end }}done"
    ),
    "continue_in_withs_150": (
        "{{ range $i, $e := .l }}"
        + _nested("{{ with $.s }}", "{{ end }}", 150, "{{ if eq $i 0 }}{{ continue }}{{ end }}")
        + "{{ $i }}{{ end }}"
    ),
    "ranges_60_break_continue": _nested(
        "{{ range $i, $e := $.l }}{{ if eq $i 1 }}{{ continue }}{{ end }}",
        "{{ break }}{{ end }}",
        60,
        "{{ $i }}",
    ),
    # Go nests parentheses up to its parser's maxStackDepth (10,000); ours too
    "parens_300": "{{ " + _nested("(", ")", 300, "1") + " }}",
    "parens_1000": '{{ printf "%d" ' + _nested("(", ")", 1000, "len .l") + " }}",
    "parens_10000": "a\n{{ " + _nested("(", ")", 10_000, "$.s") + " }}",
    "parens_in_ifs_300": _nested("{{ if .s }}(", "){{ end }}", 300, "{{ (((.s))) }}"),
    "range_else_break_deep": (
        "{{ range .l }}"
        + _nested(
            "{{ if $.s }}", "{{ end }}", 110, "{{ range $.n }}{{ else }}e{{ break }}x{{ end }}"
        )
        + "{{ continue }}y{{ end }}"
    ),
}


@pytest.mark.parametrize("name", sorted(DEEP_CASES))
def test_deep_nesting_matches_go(name: str, go_render: Path, tmp_path: Path) -> None:
    context = json.loads(json.dumps({**BASE_CONTEXT, "l": [1, 2], "one": ["o"]}))
    source = DEEP_CASES[name]
    go = run_go(go_render, tmp_path, source, context, "deep.yaml")
    assert_parity(go, *run_python(source, context, "deep.yaml"))
    if name != "error_deep":
        assert go.ok, go.error


def _random_nesting(r: random.Random, depth: int, in_range: bool) -> str:
    """Random if/with/range nests 10-30 deep with break, continue and variables."""
    if depth > r.randint(10, 30):
        return r.choice(["{{ $.s }}", "{{ . }}", "t", '{{ $v = printf "%v+" $v }}'])
    kind = r.randint(0, 6)
    inner = _random_nesting(r, depth + 1, in_range or kind == 0)
    if kind == 0:
        return "{{ range $i, $e := $.one }}" + inner + "{{ $i }}{{ end }}"
    if kind == 1:
        return "{{ if $.s }}" + inner + "{{ else }}E{{ end }}"
    if kind == 2:
        return "{{ with $.m }}" + inner + "{{ .a }}{{ end }}"
    if kind == 3 and in_range:
        jump = "{{ continue }}" if r.random() < 0.5 else "{{ break }}"
        return "{{ if $.s }}" + inner + jump + "{{ end }}"
    if kind == 4:
        return "{{ $w := 1 }}" + inner + "{{ $w }}"
    if kind == 5:
        return "{{ range $.n }}" + inner + "{{ else }}" + inner + "{{ end }}"
    return "a" + inner


@pytest.mark.slow
def test_random_deep_nesting_matches_go(go_render: Path, tmp_path: Path) -> None:
    """Same output as Go: the interpreter nests as deep as Go here."""
    context = {"s": "x", "n": None, "one": ["o"], "m": {"a": "b"}}
    for seed in range(30):
        source = '{{ $v := "" }}' + _random_nesting(random.Random(seed), 0, False) + "{{ $v }}"
        go = run_go(go_render, tmp_path / str(seed), source, context, "deep.yaml")
        try:
            assert_parity(go, *run_python(source, context, "deep.yaml"))
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}: {source!r}\n{exc}") from None
