"""Differential tests: the Python engine against Go's text/template (tests/go/render.go).

Every case must render byte-identically in both, or fail in both; when both fail, the
Python error must carry a line and a column.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from renderer.errors import TemplateError
from renderer.gotemplate import compile_go

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CASES_FILE = HERE / "parity" / "cases.yaml"


@dataclass(frozen=True)
class Outcome:
    ok: bool
    output: bytes
    error: str


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
    return Outcome(False, b"", result.stderr.decode("utf-8", "replace").strip())


def run_python(template: str, context: Any, name: str) -> tuple[Outcome, TemplateError | None]:
    try:
        out = compile_go(template, name, template_name=TEMPLATE_NAME).render(context)
    except TemplateError as exc:
        return Outcome(False, b"", str(exc)), exc
    return Outcome(True, out.encode("utf-8", "surrogateescape"), ""), None


def assert_parity(go: Outcome, py: Outcome, py_error: TemplateError | None) -> None:
    if go.ok:
        assert py.ok, f"Go rendered {go.output!r} but Python failed: {py.error}"
        assert py.output == go.output
    else:
        assert not py.ok, f"Go failed ({go.error}) but Python rendered {py.output!r}"
        assert py_error is not None
        assert py_error.line is not None and py_error.line >= 1, str(py_error)
        assert py_error.column is not None and py_error.column >= 1, str(py_error)


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
    py, err = run_python(case["template"], context, "t.tmpl")
    assert_parity(go, py, err)


# --- the real manifests ------------------------------------------------------------------

MANIFEST_FILES = sorted((REPO / "manifests" / "kubernetes" / "calico").glob("*/*.yaml"))

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
    py, err = run_python(template, context, manifest.name)
    assert_parity(go, py, err)


# --- generated programs ------------------------------------------------------------------

FUZZ_SEEDS = range(400)


def test_generated_programs_match_go(go_render: Path, tmp_path: Path) -> None:
    """Random programs (tests/gotemplate_gen.py): same output as Go, or both fail."""
    from .gotemplate_gen import random_template

    context = json.loads(json.dumps(BASE_CONTEXT))
    rendered = 0
    for seed in FUZZ_SEEDS:
        source = random_template(seed)
        go = run_go(go_render, tmp_path / str(seed), source, context, "t.tmpl")
        py, err = run_python(source, context, "t.tmpl")
        try:
            assert_parity(go, py, err)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}: {source!r}\n{exc}") from None
        rendered += go.ok
    # the generator must produce working programs too, not only errors
    assert rendered >= len(FUZZ_SEEDS) // 8
