"""What the 601-node render of the real v3.31.3 template pays to import, cold and warm.

    python benchmarks/imports.py [--repeat N] [--top K] [--instructions]

"cold" runs each process on a new, empty cache directory; "warm" on a cache the same
command filled first. For each, ``python -X importtime`` of ``--repeat``
fresh processes: the sum of every module's own time (the smallest seen for it: on a
shared machine the least disturbed run is the closest to its cost), then the ``--top``
modules by cumulative and by own time. ``--instructions`` also counts, under
valgrind's callgrind (deterministic, where times are not), the instructions a fresh
interpreter spends importing the modules that render imported, and an empty
interpreter's for reference. Bytecode is compiled first, as an installed wheel has it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RENDER = ["--version", "v3.31.3", "--nodes", "601", "--manifests", "tests/fixtures/bke-real"]
IMPORT_ALL = (
    "import importlib, sys\n"
    "for name in open(sys.argv[1]).read().split():\n"
    "    try:\n"
    "        importlib.import_module(name)\n"
    "    except ImportError:\n"
    "        pass\n"
)
LIST_MODULES = (
    "import atexit, runpy, sys\n"
    "before = set(sys.modules)\n"
    "out = sys.argv.pop(1)\n"
    "atexit.register(lambda: open(out, 'w').write('\\n'.join(\n"
    "    m for m in list(sys.modules) if m not in before and not m.startswith('__'))))\n"
    "sys.argv[0] = 'renderer'\n"
    "runpy.run_module('renderer', run_name='__main__', alter_sys=True)\n"
)


def _env(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CALICO_RENDER_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(CALICO_RENDER_CACHE_DIR=cache)
    return env


def _render(cache: str, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, *extra, "-m", "renderer", *RENDER]
    return subprocess.run(args, cwd=ROOT, env=_env(cache), capture_output=True, text=True)


def _importtime(warm: bool, repeat: int) -> dict[str, tuple[int, int, int]]:
    """Module -> (smallest own, smallest cumulative microseconds, depth) over the runs."""
    seen: dict[str, tuple[int, int, int]] = {}
    for _ in range(repeat):
        cache = tempfile.mkdtemp(prefix="imports-")
        try:
            if warm:
                _render(cache)
            run = _render(cache, "-X", "importtime")
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        for line in run.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, cumulative, name = line.split(":", 1)[1].split("|")
            depth = (len(name) - len(name.lstrip())) // 2
            key = name.strip()
            was = seen.get(key, (int(own), int(cumulative), depth))
            seen[key] = (min(was[0], int(own)), min(was[1], int(cumulative)), depth)
    return seen


def _instructions(warm: bool) -> tuple[int, int] | None:
    """Instructions to import what the render imports, and an empty interpreter's."""
    if shutil.which("valgrind") is None:
        return None
    cache = tempfile.mkdtemp(prefix="imports-")
    listing = Path(cache) / "modules.txt"
    script = Path(cache) / "import_all.py"
    script.write_text(IMPORT_ALL, encoding="utf-8")
    try:
        if warm:
            _render(cache)
        subprocess.run(
            [sys.executable, "-c", LIST_MODULES, str(listing), *RENDER],
            cwd=ROOT,
            env=_env(cache),
            capture_output=True,
            check=False,
        )
        empty = Path(cache) / "empty.txt"
        empty.write_text("", encoding="utf-8")
        counts = []
        for names in (listing, empty):
            valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
            run = subprocess.run(
                [*valgrind, sys.executable, str(script), str(names)],
                cwd=ROOT,
                env={**_env(cache), "PYTHONPATH": str(ROOT)},
                capture_output=True,
                text=True,
            )
            found = [line for line in run.stderr.splitlines() if "Collected" in line]
            if not found:
                return None
            counts.append(int(found[-1].split()[-1]))
        return counts[0], counts[1]
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "renderer"), quiet=1)
    for warm in (False, True):
        title = "warm (result cache)" if warm else "cold (empty cache)"
        seen = _importtime(warm, args.repeat)
        ours = [m for m in seen if m == "renderer" or m.startswith("renderer.")]
        print(f"== {title}: {len(seen)} modules ({len(ours)} of renderer)")
        print(f"   own times summed: {sum(s[0] for s in seen.values()) / 1000:.1f} ms")
        by_cumulative = sorted(seen, key=lambda m: -seen[m][1])[: args.top]
        by_own = sorted(seen, key=lambda m: -seen[m][0])[: args.top]
        for heading, names in (("by cumulative", by_cumulative), ("by own time", by_own)):
            print(f"   top {args.top} {heading} (ms own / cumulative):")
            for name in names:
                own, cumulative, _ = seen[name]
                print(f"     {own / 1000:7.2f} {cumulative / 1000:8.2f}  {name}")
        if args.instructions:
            counted = _instructions(warm)
            if counted is None:
                print("   instructions: valgrind not available")
            else:
                total, empty = counted
                print(
                    f"   instructions: {total / 1e6:.1f} M importing the render's modules "
                    f"(an empty interpreter: {empty / 1e6:.1f} M)"
                )


if __name__ == "__main__":
    main()
