"""Differential fuzz counts: random templates and random values, Go against the engine.

Fixed seeds, the Go reference program of tests/go (the controller's functions,
blang/semver v4) in its batch mode, one process for all cases:

- engine: ``tests/gotemplate_gen.py`` templates on the parity corpus's base context,
  rendered by the Go-dialect engine directly;
- programs: the same through ``calico-render template`` and a JSON values file;
- values: the same templates with every string of the context replaced by text the
  controller renders but YAML may not like (tab, quote, backslash, U+2028, a lone
  surrogate escape, ``: ``, a line break), given to ``calico-render template`` through a
  JSON values file, as a user would.

Prints, per run, how many cases gave identical output, how many failed in both with
Go's exact message (``template: calico:LINE:COL: ...``), how many failed in both with
another message, and how many differ (one side rendered and the other failed, or both
rendered different bytes). Where Go is newer than 1.24, its few rewordings since 1.24.5
(the controller's Go) are read back as 1.24.5 words them; ``--toolchain go1.24.5`` builds
the oracle with that Go itself instead. ``--show KIND`` prints the cases of a kind
(``other`` or ``differ``). Run it against another checkout to compare (``--engine DIR``
puts DIR first on the import path; a checkout whose errors carry no Go message is
compared by its ``file:line:column: message`` read as Go's form):

    python benchmarks/parity_fuzz.py [--seeds N] [--runs engine,programs,values]
        [--engine DIR] [--toolchain go1.24.5] [--show other|differ]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ODD = ["a\tb", 'a"b', "a\\", "a\u2028b", "a\ud800b", "a: b", "a\n- b", "v1.34.3-of.1", " 1.2"]
RUNS = ("engine", "programs", "values")


def build_go(work: Path, toolchain: str) -> Path:
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": toolchain, "CGO_ENABLED": "0"}
    binary = work / "render"
    subprocess.run(
        ["go", "build", "-o", str(binary), "."], cwd=REPO / "tests" / "go", env=env, check=True
    )
    version = subprocess.run(
        ["go", "version", str(binary)], capture_output=True, text=True, env=env, check=True
    )
    print("oracle:", version.stdout.strip().split(": ", 1)[-1])
    return binary


def _location_form(exc: Any) -> str:
    """An error without Go's message, read as Go's form (for checkouts before it had one)."""
    message = exc.message
    if message.startswith("executing "):
        return f"template: calico:{exc.line}:{(exc.column or 1) - 1}: {message}"
    return f"template: calico:{exc.line}: {message}"


def engine_render(work: Path, template: str, context: Any) -> Any:
    """The outcome of ``calico-render template`` with a JSON values file (the library's)."""
    from renderer import api
    from renderer.errors import InputError, TemplateError
    from tests.gotemplate_gen import Outcome

    tmpl, values = work / "t.yaml", work / "v.json"
    tmpl.write_bytes(template.encode("utf-8", "surrogateescape"))
    values.write_text(json.dumps(context), encoding="utf-8")
    try:
        out = api.template(str(tmpl), values_file=str(values))
    except InputError as exc:
        return Outcome(False, b"", f"(refused) {exc}")
    except TemplateError as exc:
        return Outcome(False, b"", getattr(exc, "go_message", None) or _location_form(exc))
    return Outcome(True, out.encode("utf-8", "surrogateescape"), "")


def engine_direct(template: str, context: Any) -> Any:
    """The outcome of the Go-dialect engine itself (no values file, no checks)."""
    from renderer.engine.gotemplate import compile_go
    from renderer.errors import TemplateError
    from tests.gotemplate_gen import Outcome

    try:
        out = compile_go(template, "t.tmpl", template_name="calico").render(context)
    except TemplateError as exc:
        return Outcome(False, b"", getattr(exc, "go_message", None) or _location_form(exc))
    return Outcome(True, out.encode("utf-8", "surrogateescape"), "")


def odd_context(base: dict[str, Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return rng.choice(ODD)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return {k: walk(v) for k, v in base.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20_000)
    parser.add_argument("--runs", default=",".join(RUNS), help="of " + ", ".join(RUNS))
    parser.add_argument("--engine", type=Path, default=None, help="checkout to measure")
    parser.add_argument("--toolchain", default="local", help="GOTOOLCHAIN for the oracle")
    parser.add_argument("--show", choices=("other", "differ"), default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from ruamel.yaml import YAML

    from tests.gotemplate_gen import (
        DIFFER,
        KINDS,
        OTHER_ERROR,
        as_go_1_24,
        classify,
        go_batch,
        random_template,
    )

    if args.engine is not None:  # this checkout's generator, that one's engine
        sys.path.insert(0, str(args.engine.resolve()))

    show = {"other": OTHER_ERROR, "differ": DIFFER}.get(args.show or "")
    base = YAML(typ="safe").load((REPO / "tests" / "parity" / "cases.yaml").read_text())
    base_context = json.loads(json.dumps(base["base_context"]))
    work = Path(tempfile.mkdtemp(prefix="parity-fuzz-"))
    try:
        binary = build_go(work, args.toolchain)
        templates = [random_template(seed) for seed in range(args.seeds)]
        for name in args.runs.split(","):
            contexts = [
                base_context if name != "values" else odd_context(base_context, seed)
                for seed in range(args.seeds)
            ]
            go = go_batch(binary, list(zip(templates, contexts, strict=True)))
            counts: Counter[str] = Counter()
            reworded = sum(o.error != as_go_1_24(o.error) for o in go)
            for seed, (template, ctx) in enumerate(zip(templates, contexts, strict=True)):
                if name == "engine":
                    py = engine_direct(template, ctx)
                else:
                    py = engine_render(work, template, ctx)
                kind = classify(go[seed], py)
                counts[kind] += 1
                if kind == show:
                    print(f"seed {seed}: {template!r}\n  go: {go[seed]}\n  py: {py}")
            cells = ", ".join(f"{kind} {counts[kind]}" for kind in KINDS)
            print(f"{name}: {args.seeds} cases: {cells} (Go's newer wording read back: {reworded})")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
