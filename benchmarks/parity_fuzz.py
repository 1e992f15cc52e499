"""Differential fuzz counts: random templates and random values, Go against the engine.

Fixed seeds, the Go reference program of tests/go (the controller's functions,
blang/semver v4):

- engine: ``tests/gotemplate_gen.py`` templates on the parity corpus's base context,
  rendered by the Go-dialect engine directly;
- programs: the same through ``calico-render template`` and a JSON values file;
- values: the same templates with every string of the context replaced by text the
  controller renders but YAML may not like (tab, quote, backslash, U+2028, a lone
  surrogate escape, ``: ``, a line break), given to ``calico-render template`` through a
  JSON values file, as a user would.

Prints, per run: cases, Go rendered, identical, differing, refused by the engine
(exit 2 where Go rendered). Run it against another checkout to compare
(``--engine DIR`` puts DIR first on the import path):

    python benchmarks/parity_fuzz.py [--seeds N] [--engine DIR]
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ODD = ["a\tb", 'a"b', "a\\", "a\u2028b", "a\ud800b", "a: b", "a\n- b", "v1.34.3-of.1", " 1.2"]


def build_go(work: Path) -> Path:
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}
    env.setdefault("GOCACHE", str(work / "gocache"))
    env.setdefault("GOPATH", str(work / "gopath"))
    binary = work / "render"
    subprocess.run(
        ["go", "build", "-o", str(binary), "."], cwd=REPO / "tests" / "go", env=env, check=True
    )
    return binary


def go_render(binary: Path, work: Path, template: str, context: Any) -> bytes | None:
    tmpl, ctx = work / "t.tmpl", work / "c.json"
    tmpl.write_bytes(template.encode("utf-8", "surrogateescape"))
    ctx.write_text(json.dumps(context), encoding="utf-8")
    r = subprocess.run([str(binary), str(tmpl), str(ctx)], capture_output=True, check=False)
    return r.stdout if r.returncode == 0 else None


def engine_render(work: Path, template: str, context: Any) -> tuple[bytes | None, bool]:
    """(output or None, refused as bad input) through the library's ``template``."""
    from renderer import api
    from renderer.errors import InputError, TemplateError

    tmpl, values = work / "t.yaml", work / "v.json"
    tmpl.write_bytes(template.encode("utf-8", "surrogateescape"))
    values.write_text(json.dumps(context), encoding="utf-8")
    try:
        out = api.template(str(tmpl), values_file=str(values))
    except InputError:
        return None, True
    except TemplateError:
        return None, False
    return out.encode("utf-8", "surrogateescape"), False


def engine_direct(template: str, context: Any) -> bytes | None:
    """Output of the Go-dialect engine itself (no values file, no checks)."""
    from renderer.engine.gotemplate import compile_go
    from renderer.errors import TemplateError

    try:
        out = compile_go(template, "t.tmpl", template_name="calico").render(context)
    except TemplateError:
        return None
    return out.encode("utf-8", "surrogateescape")


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
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--engine", type=Path, default=None, help="checkout to measure")
    args = parser.parse_args()
    if args.engine is not None:
        sys.path.insert(0, str(args.engine.resolve()))
    sys.path.insert(1, str(REPO))
    from ruamel.yaml import YAML

    from tests.gotemplate_gen import random_template

    base = YAML(typ="safe").load((REPO / "tests" / "parity" / "cases.yaml").read_text())
    base_context = json.loads(json.dumps(base["base_context"]))
    work = Path(tempfile.mkdtemp(prefix="parity-fuzz-"))
    try:
        binary = build_go(work)
        for name in ("engine", "programs", "values"):
            counts = dict.fromkeys(("cases", "go_rendered", "identical", "differ", "refused"), 0)
            for seed in range(args.seeds):
                template = random_template(seed)
                ctx = base_context if name != "values" else odd_context(base_context, seed)
                go = go_render(binary, work, template, ctx)
                if name == "engine":
                    py, refused = engine_direct(template, ctx), False
                else:
                    py, refused = engine_render(work, template, ctx)
                counts["cases"] += 1
                counts["go_rendered"] += go is not None
                counts["identical"] += go == py
                counts["differ"] += go != py and not refused
                counts["refused"] += refused and go is not None
            print(name, " ".join(f"{k}={v}" for k, v in counts.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
