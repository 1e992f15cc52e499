"""Cold runs that validate against Kubernetes' schemas: the whole render and check, and
the schema check alone, each in a fresh process on a new, empty cache directory.

    python benchmarks/schema_cold.py [--repeat 7] [--source DIR ...]
                                     [--only render,check,check-1,schema,plain]
                                     [--instructions]

1. ``calico-render --version v3.31.3 --nodes 601 --manifests tests/fixtures/bke-real``
   (validation on: the newest four Kubernetes minors).
2. ``calico-render check`` of the bundled tree (``check-1``: with ``--jobs 1``).
3. ``schema``: the schema check alone, a process that renders and parses the same
   601-node objects with validation off, then times ``SchemaValidator().validate_all``
   on them (wall and CPU of that call only), cache off; ``plain``: the same objects
   validated by jsonschema alone (``validator_for(...).iter_errors``, one validator per
   kind and version, imports included), what the compiled check saves a cold render.

Each figure is the median of ``--repeat`` runs, wall seconds and user+sys CPU seconds;
on a shared machine the CPU figure is the steadier one. ``--source`` runs the same
commands from other source trees (``git archive main | tar -x -C DIR`` gives the code
before a change) in DIR (its working directory and ``PYTHONPATH``), interleaved run by
run so both see the same load; their outputs are asserted byte-identical.
``--instructions`` adds, per command and source, the instructions valgrind's callgrind
counts for one whole process (steady on a busy machine, where times are not). No
assertion on the figures.
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
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RENDER = ["--version", "v3.31.3", "--nodes", "601", "--manifests", "tests/fixtures/bke-real"]
SCHEMA_ONLY = r"""
import json, os, resource, sys, time
from pathlib import Path
from renderer import api
from renderer.k8s import schema
os.environ["CALICO_RENDER_NO_CACHE"] = "1"
request = api.Request.of("v3.31.3", 601, root=Path("tests/fixtures/bke-real"))
objects = api.render(request).objects
before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
if sys.argv[1] == "compiled":
    found = [[f.field, f.kube_versions[0]] for f in schema.SchemaValidator().validate_all(objects)]
else:  # jsonschema alone, as the library validates (its validators built once per kind)
    found = []
    for v in schema.default_kube_versions():
        for o in objects:
            validator = schema.validator_for(v, o.kind, o.api_version)
            for e in validator.iter_errors(o.data) if validator is not None else ():
                found.append([".".join(map(str, e.absolute_path)), v])
wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"wall": wall, "cpu": cpu, "findings": found}))
"""


def environment(cache: str, source: Path) -> dict[str, str]:
    env = {**os.environ, "CALICO_RENDER_CACHE_DIR": cache, "PYTHONPATH": str(source)}
    env.pop("CALICO_RENDER_NO_CACHE", None)
    env["PYTHONHASHSEED"] = "0"
    return env


def instructions(cmd: Sequence[str], source: Path) -> int | None:
    """The instructions callgrind counts for one fresh process on an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        log = Path(cache) / "callgrind.log"
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        subprocess.run(
            [*valgrind, f"--log-file={log}", *cmd],
            cwd=source,
            env=environment(str(Path(cache) / "cache"), source),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        found = [line for line in log.read_text().splitlines() if "Collected" in line]
    return int(found[-1].split()[-1]) if found else None


def run(cmd: Sequence[str], source: Path) -> tuple[float, float, bytes]:
    """Wall and user+sys CPU seconds of one fresh process on an empty cache, and its stdout."""
    with tempfile.TemporaryDirectory() as cache:
        env = environment(cache, source)
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=source, env=env, stdout=out, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            text = out.read()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--source", type=Path, action="append", default=[])
    parser.add_argument("--only", default="render,check,check-1,schema,plain")
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    sources = [ROOT, *args.source]
    for source in sources:  # no run pays for compiling the code
        compileall.compile_dir(str(source / "renderer"), quiet=1)
    cli = [sys.executable, "-m", "renderer"]
    commands = {
        "render": [*cli, *RENDER],
        "check": [*cli, "check"],
        "check-1": [*cli, "check", "--jobs", "1"],
        "schema": [sys.executable, "-c", SCHEMA_ONLY, "compiled"],
        "plain": [sys.executable, "-c", SCHEMA_ONLY, "jsonschema"],
    }
    for name in args.only.split(","):
        walls: dict[Path, list[float]] = {s: [] for s in sources}
        cpus: dict[Path, list[float]] = {s: [] for s in sources}
        outputs: dict[Path, set[bytes]] = {s: set() for s in sources}
        for _ in range(args.repeat):
            for source in sources:
                wall, cpu, text = run(commands[name], source)
                if name in ("schema", "plain"):  # the call's own figures, printed by it
                    figures = json.loads(text)
                    wall, cpu = figures["wall"], figures["cpu"]
                    text = json.dumps(figures["findings"]).encode()
                walls[source].append(wall)
                cpus[source].append(cpu)
                outputs[source].add(text)
        for source in sources:
            assert len(outputs[source]) == 1, f"{name}: output differs between runs"
            print(
                f"{name:<8} {source!s:<40} wall {statistics.median(walls[source]):6.3f} s"
                f"  cpu {statistics.median(cpus[source]):6.3f} s"
            )
        if len({frozenset(o) for o in outputs.values()}) != 1:
            raise SystemExit(f"{name}: outputs differ between sources")
        for source in sources if args.instructions else ():
            count = instructions(commands[name], source)
            shown = "valgrind not available" if count is None else f"{count / 1e6:9.1f} M"
            print(f"{name:<8} {source!s:<40} instructions {shown}")


if __name__ == "__main__":
    main()
