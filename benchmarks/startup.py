"""The start-up budget: what a fresh process pays before and while it answers.

    python benchmarks/startup.py [--repeat N]

Prints, each the median of ``--repeat`` fresh processes (wall and CPU seconds), beside
its budget: the interpreter's own start-up (``python -c pass``), ``calico-render
--tool-version`` (imports only), ``calico-render typha --nodes 601`` (a light verb),
and the 601-node render of BKE's real v3.31.3 (validation on) answered from a warm
result cache, the command people repeat most. Then how many modules that warm render
loads, of the package and in all, and whether it loaded any of what a render never
needs (the gate's stages and process pool, the OCI client, Jinja2, jsonschema, the
JUnit writer's XML library): the budget this benchmark holds instead of tests that
pin imports. Bytecode is compiled first, as an installed wheel has it.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "bke-real"
RENDER = ["--version", "v3.31.3", "--nodes", "601", "--manifests", str(REAL)]
#: Wall-time budgets in seconds on an idle 2-core machine.
BUDGETS = {"--tool-version": 0.15, "typha": 0.15, "warm render": 0.18}
#: What a warm render must not load.
NEVER = (
    "renderer.checks.runner",
    "renderer.checks.pipeline",
    "renderer.checks.golden",
    "renderer.oci.client",
    "renderer.calico.plan",
    "renderer.calico.importer",
    "jinja2",
    "jsonschema",
    "xml.etree.ElementTree",
    "multiprocessing",
)
MODULES = (
    "import json, sys\n"
    "from renderer.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)) + '\\n')\n"
)


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def median(argv: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    runs = [timed(argv, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "renderer"), quiet=1)
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CALICO_RENDER_")}
        env["CALICO_RENDER_CACHE_DIR"] = cache
        cli = [sys.executable, "-m", "renderer"]
        subprocess.run([*cli, *RENDER], env=env, capture_output=True, check=False)  # warm it
        rows = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("--tool-version", [*cli, "--tool-version"]),
            ("typha", [*cli, "typha", "--nodes", "601"]),
            ("warm render", [*cli, *RENDER]),
        ]
        print(f"{'':16} {'wall s':>7} {'cpu s':>7}  budget (wall, idle 2-core machine)")
        for label, argv in rows:
            wall, cpu = median(argv, env, args.repeat)
            budget = BUDGETS.get(label)
            mark = (
                "" if budget is None else f"  <= {budget}" + (" ok" if wall <= budget else " OVER")
            )
            print(f"{label:16} {wall:7.3f} {cpu:7.3f}{mark}")
        done = subprocess.run(
            [sys.executable, "-c", MODULES, *RENDER], env=env, capture_output=True, text=True
        )
        modules = json.loads(done.stderr.strip().splitlines()[-1])
        ours = [m for m in modules if m.startswith("renderer")]
        loaded = [m for m in NEVER if m in modules]
        print(f"warm render loads {len(modules)} modules ({len(ours)} of renderer)")
        print("never needed, yet loaded: " + (", ".join(loaded) if loaded else "none"))


if __name__ == "__main__":
    main()
