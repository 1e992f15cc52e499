"""Whole-process timings of the commands people run, cold (empty cache) and warm.

    python benchmarks/speed.py [--repeat N] [--manifests /tmp/real] [--skip-tree] [--only S]

Every figure is the median of ``--repeat`` fresh processes (wall and CPU seconds, peak
RSS of the slowest run). "cold" runs each process on a new, empty cache directory;
"warm" runs on a cache the same command filled first (the result cache answers the
verdict, the parses, the schema findings and the injection answers); "no-cache" has the
cache off.

1. ``calico-render --version V --nodes 601`` (schema validation on) of the bundled v3.28
   and of the real v3.31.3 template (``tests/fixtures/bke-real``, 7,600 rendered lines)
   against the Go reference renderer (``tests/go/render.go``, built here) rendering the
   same templates with the same context, one process per template file as the
   controller's tests do, and against the interpreter's start-up (``python -c pass``):
   on a shared machine the ratios are steadier than the seconds.
2. ``calico-render validate`` of rendered files against a naive validator: a process
   that loads each file with ruamel.yaml's round-trip loader and calls
   ``kubernetes_validate.validate(obj, v, strict=True)`` per object and version.
3. ``calico-render check`` on the bundled tree and on a 20-version tree (copies of the
   bundled versions under new names, goldens generated first), ``--jobs 1`` and ``2``,
   and again after editing one version of the 20.

Ratios to the naive validator are of wall time (the target) and, steadier on a busy
machine, of CPU time. Outputs are asserted identical across variants: render bytes
(and Python vs Go per file), validate findings and exit codes (and the naive
validator's verdicts), check reports. Targets are printed next to the figures;
nothing here is a timed test.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renderer import api
from renderer.manifests.tree import list_versions

ROOT = Path(__file__).resolve().parents[1]
PY = [sys.executable, "-m", "renderer"]
NAIVE = r"""
import io, json, sys
import kubernetes_validate
from ruamel.yaml import YAML
from renderer.k8s.schema import is_builtin_group
kube = sys.argv[1].split(",")
out = []
for name in sys.argv[2:]:
    with open(name, encoding="utf-8") as fh:
        docs = list(YAML().load_all(io.StringIO(fh.read())))
    for doc in docs:
        if not doc:
            continue
        meta = doc.get("metadata") or {}
        ref = f"{doc.get('kind')} {meta.get('namespace') or ''}/{meta.get('name')}"
        for v in kube:
            try:
                kubernetes_validate.validate(doc, v, strict=True)
                verdict = "ok"
            except kubernetes_validate.ValidationError:
                verdict = "invalid"
            except kubernetes_validate.SchemaNotFoundError:
                group = str(doc.get("apiVersion", "")).rpartition("/")[0]
                verdict = "invalid" if is_builtin_group(group) else "not-checked"
            out.append([name, ref, v, verdict])
json.dump(out, sys.stdout)
"""


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    code: int
    stdout: bytes
    stderr: bytes


@dataclass
class Figure:
    wall: float
    cpu: float
    rss_mb: float
    last: Run


def run(cmd: Sequence[str], env: dict[str, str], cwd: Path | None = None) -> Run:
    """One process: wall and CPU time and peak RSS from wait4, its output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024,
            proc.returncode,
            out.read(),
            err.read(),
        )


def environment(cache: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CALICO_RENDER_")}
    if cache is None:
        env["CALICO_RENDER_NO_CACHE"] = "1"
    else:
        env["CALICO_RENDER_CACHE_DIR"] = str(cache)
    return env


def measure(cmd: Sequence[str], mode: str, repeat: int, work: Path, **kw: Any) -> Figure:
    """Median of ``repeat`` runs in ``mode``: cold (an empty cache), warm (a cache the
    same command filled) or no-cache."""
    runs = []
    warm = work / "warm-cache"
    if mode == "warm":
        shutil.rmtree(warm, ignore_errors=True)
        run(cmd, environment(warm), **kw)
    for i in range(repeat):
        if mode == "cold":
            cache: Path | None = work / f"cold-{time.monotonic_ns()}-{i}"
        elif mode == "warm":
            cache = warm
        else:
            cache = None
        runs.append(run(cmd, environment(cache), **kw))
        if mode == "cold" and cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
    first = runs[0]
    for r in runs[1:]:
        if (r.code, r.stdout) != (first.code, first.stdout):
            sys.exit(f"outputs differ between runs of {' '.join(cmd)}")
    return Figure(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        max(r.rss_mb for r in runs),
        first,
    )


def row(label: str, fig: Figure, note: str = "") -> None:
    print(
        f"  {label:<34} wall {fig.wall:6.3f} s  cpu {fig.cpu:6.3f} s  "
        f"rss {fig.rss_mb:5.0f} MB  {note}",
        flush=True,
    )


def same(figs: dict[str, Figure], what: str) -> None:
    outs = {(f.last.code, f.last.stdout) for f in figs.values()}
    if len(outs) != 1:
        sys.exit(f"{what}: outputs differ between {', '.join(figs)}")


# --- 1. render ---------------------------------------------------------------------------


def build_go(work: Path) -> Path | None:
    go = shutil.which("go")
    if go is None:
        return None
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CGO_ENABLED="0")
    env.setdefault("GOCACHE", str(work / "gocache"))
    env.setdefault("GOPATH", str(work / "gopath"))
    binary = work / "render-go"
    subprocess.run(
        [go, "build", "-o", str(binary), "."], cwd=ROOT / "tests" / "go", env=env, check=True
    )
    return binary


def go_render(binary: Path, version: str, root: Path | None, repeat: int, work: Path) -> Figure:
    """The Go reference renderer on the same templates and context as our 601 render."""
    result = api.render(api.Request.of(version, 601, root=root))
    ctx = work / "context.json"
    ctx.write_text(json.dumps(result.context), encoding="utf-8")
    walls, cpus, rss, outputs = [], [], 0.0, b""
    for _ in range(repeat):
        wall = cpu = 0.0
        chunks = []
        for tf in result.version.files:
            r = run([str(binary), str(tf.path), str(ctx)], dict(os.environ))
            if r.code != 0:
                sys.exit(f"Go renderer failed on {tf.path}: {r.stderr.decode()}")
            wall, cpu, rss = wall + r.wall, cpu + r.cpu, max(rss, r.rss_mb)
            chunks.append(r.stdout)
        walls.append(wall)
        cpus.append(cpu)
        outputs = b"".join(chunks)
    python = b"".join(f.text.encode("utf-8") for f in result.files)
    if outputs != python:
        sys.exit(f"Go and Python renders of {version} differ")
    return Figure(
        statistics.median(walls), statistics.median(cpus), rss, Run(0, 0, rss, 0, outputs, b"")
    )


#: The real template the render targets are set for (a fixture shaped like BKE's v3.31.3).
REAL_FIXTURE = ROOT / "tests" / "fixtures" / "bke-real"
#: (warm, cold) wall-time targets in seconds, per render target.
RENDER_TARGETS = {"bundled": (0.18, 0.35), "real": (0.18, 0.35)}


def ratios(fig: Figure, startup: Figure, go: Figure | None) -> str:
    """Wall and CPU as multiples of the interpreter's start-up (steady on a busy machine)
    and of Go's render of the same templates."""
    out = f"= {fig.wall / startup.wall:5.1f}x start-up wall, {fig.cpu / startup.cpu:5.1f}x cpu"
    if go is not None and go.wall > 0:
        out += f", {fig.wall / go.wall:5.0f}x Go"
    return out


def bench_render(args: argparse.Namespace, work: Path, go: Path | None) -> None:
    targets: list[tuple[str, str, Path | None]] = [
        ("bundled", "v3.28", None),
        ("real", "v3.31.3", REAL_FIXTURE),
    ]
    if args.manifests is not None:
        real = [v.name for v in list_versions(args.manifests)]
        targets.append((str(args.manifests), real[-1], args.manifests))
    startup = measure([sys.executable, "-c", "pass"], "no-cache", args.repeat, work)
    row("python -c pass", startup, "(the interpreter's start-up)")
    for label, version, root in targets:
        cmd = [*PY, "--version", version, "--nodes", "601"]
        if root is not None:
            cmd += ["--manifests", str(root)]
        print(f"render {version} --nodes 601 ({label}), validation on:")
        modes = ("no-cache", "cold", "warm")
        figs = {m: measure(cmd, m, args.repeat, work) for m in modes}
        same(figs, "render (byte-identical warm, cold and without a cache)")
        go_fig = go_render(go, version, root, args.repeat, work) if go is not None else None
        warm_target, cold_target = RENDER_TARGETS.get(label, RENDER_TARGETS["real"])
        row("calico-render, no cache", figs["no-cache"], ratios(figs["no-cache"], startup, go_fig))
        row("calico-render, cold", figs["cold"], ratios(figs["cold"], startup, go_fig))
        print(f"    target <= {cold_target} s wall")
        row("calico-render, warm", figs["warm"], ratios(figs["warm"], startup, go_fig))
        print(f"    target <= {warm_target} s wall")
        if go_fig is not None:
            row("Go text/template (per file)", go_fig)
        imports = measure([*PY, "--tool-version"], "warm", args.repeat, work)
        row("calico-render --tool-version", imports, ratios(imports, startup, None))


# --- 2. validate -------------------------------------------------------------------------


def bench_validate(args: argparse.Namespace, work: Path) -> None:
    files: list[str] = []
    out = work / "rendered"
    roots: list[Path | None] = [None]
    if args.manifests is not None:
        roots.append(args.manifests)
    for root in roots:
        for v in list_versions(root):
            for nodes in (1, 601):
                try:
                    r = api.render(api.Request.of(v.name, nodes, root=root, operation="upgrade"))
                except Exception:  # a version this tree cannot render
                    continue
                path = out / f"{'real' if root else 'bundled'}-{v.name}-{nodes}.yaml"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(r.stream(), encoding="utf-8")
                files.append(str(path))
    files.append(str(ROOT / "tests" / "fixtures" / "broken" / "misspelled.yaml"))
    one = str(out / "bundled-v3.28.2-601.yaml")
    for label, chosen in (("the v3.28 601-node render", [one]), (f"{len(files)} files", files)):
        validate_set(args, work, label, chosen)


def validate_set(args: argparse.Namespace, work: Path, label: str, files: list[str]) -> None:
    from renderer.k8s.schema import default_kube_versions

    kube = default_kube_versions()
    print(f"validate {label}, Kubernetes {', '.join(kube)}:")
    cmd = [*PY, "validate", *files]
    figs = {m: measure(cmd, m, args.repeat, work) for m in ("cold", "warm")}
    same(figs, "validate")
    naive = measure(
        [sys.executable, "-c", NAIVE, ",".join(kube), *files], "no-cache", args.repeat, work
    )
    check_validate_verdicts(figs["warm"].last, naive.last, files, kube)
    row("naive (ruamel rt + kubernetes_validate)", naive)
    for mode, target in (("cold", 6), ("warm", 10)):
        ratio = naive.wall / figs[mode].wall
        cpu = naive.cpu / figs[mode].cpu
        note = f"{ratio:4.1f}x (target >= {target}x), {cpu:4.1f}x by CPU"
        row(f"calico-render validate, {mode}", figs[mode], note)


def check_validate_verdicts(ours: Run, naive: Run, files: list[str], kube: Sequence[str]) -> None:
    """Every object's verdict per Kubernetes version: ours (findings) == naive's."""
    from renderer.k8s.parse import parse_stream
    from renderer.store.read import read_text

    flagged: dict[tuple[str, str, str], str] = {}
    for line in ours.stdout.decode().splitlines():
        where, _, rest = line.partition(": ")
        severity, _, rest = rest.partition(": Kubernetes ")
        version, _, rest = rest.partition(": ")
        kind, _, rest = rest.partition(" ")
        name = rest.split(" ", 1)[0].rstrip(":")
        ref = f"{kind} {name if '/' in name else '/' + name}"
        verdict = "invalid" if severity == "error" else "not-checked"
        flagged[(where.rsplit(":", 1)[0], ref, version)] = verdict
    mine = {}
    for name in files:
        for obj in parse_stream(read_text(name), name):
            ref = f"{obj.kind} {obj.namespace}/{obj.name}"
            for v in kube:
                mine[(name, ref, v)] = flagged.get((name, ref, v), "ok")
    theirs = {(n, r, v): verdict for n, r, v, verdict in json.loads(naive.stdout)}
    if mine != theirs:
        diff = sorted(set(mine.items()) ^ set(theirs.items()))[:10]
        sys.exit("validate verdicts differ from the naive validator:\n" + "\n".join(map(str, diff)))


# --- 3. check ----------------------------------------------------------------------------


def synthetic_tree(work: Path, count: int) -> tuple[Path, Path, str]:
    """``count`` versions: the bundled ones copied under new patch numbers (v3.28.102),
    the version in their image tags renamed alike so the release rules still hold."""
    bundled = list_versions()
    root = work / "tree"
    base = root / "kubernetes" / "calico"
    names = []
    for i in range(count):
        src = bundled[i % len(bundled)]
        major_minor = src.name.rsplit(".", 1)[0]
        name = f"{major_minor}.{100 + i}"
        names.append(name)
        (base / name).mkdir(parents=True)
        for tf in src.files:
            text = tf.path.read_text(encoding="utf-8").replace(src.name, name)
            (base / name / tf.path.name).write_text(text, encoding="utf-8")
    golden = work / "tree-golden"
    r = run(
        [*PY, "check", "--manifests", str(root), "--golden", str(golden), "--update-golden"],
        environment(None),
    )
    if r.code != 0:
        sys.exit(f"creating the synthetic goldens failed: {r.stdout.decode()[-2000:]}")
    return root, golden, names[0]


def bench_check(args: argparse.Namespace, work: Path) -> None:
    print("check, bundled tree:")
    figs: dict[str, Figure] = {}
    for jobs in (1, 2):
        cmd = [*PY, "check", "--format", "json", "--jobs", str(jobs)]
        for mode in ("cold", "warm"):
            figs[f"{mode} --jobs {jobs}"] = fig = measure(cmd, mode, args.repeat, work)
            row(f"{mode}, --jobs {jobs}", fig)
    same(figs, "check (bundled)")
    if args.skip_tree:
        return
    count = 20
    root, golden, first = synthetic_tree(work, count)
    print(f"check, {count}-version tree (copies of the bundled versions):")
    base = [*PY, "check", "--format", "json", "--manifests", str(root), "--golden", str(golden)]
    figs = {}
    for jobs in (1, 2):
        cmd = [*base, "--jobs", str(jobs)]
        for mode in ("cold", "warm"):
            figs[f"{mode} --jobs {jobs}"] = fig = measure(cmd, mode, args.repeat, work)
            row(f"{mode}, --jobs {jobs}", fig)
    same(figs, "check (20 versions)")
    one = work / "one"
    shutil.copytree(root / "kubernetes" / "calico" / first, one / "kubernetes" / "calico" / first)
    single = measure(
        [*PY, "check", "--format", "json", "--manifests", str(one), "--golden", str(golden)],
        "cold",
        args.repeat,
        work,
    )
    row("one version alone, cold, --jobs 1", single)
    for jobs in (1, 2):
        cmd = [*base, "--jobs", str(jobs)]
        walls, cpus = [], []
        warm = work / "warm-cache"
        shutil.rmtree(warm, ignore_errors=True)
        run(cmd, environment(warm))
        template = sorted((root / "kubernetes" / "calico" / first).iterdir())[-1]
        original = template.read_text(encoding="utf-8")
        for i in range(args.repeat):
            template.write_text(original + f"# edited {time.monotonic_ns()} {i}\n", "utf-8")
            r = run(cmd, environment(warm))
            walls.append(r.wall)
            cpus.append(r.cpu)
        template.write_text(original, encoding="utf-8")
        fig = Figure(statistics.median(walls), statistics.median(cpus), r.rss_mb, r)
        extra = fig.wall - figs[f"warm --jobs {jobs}"].wall
        row(
            f"one version edited, --jobs {jobs}",
            fig,
            f"= warm + {extra:.3f} s (one version alone: {single.wall:.3f} s)",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--manifests", type=Path, default=None, help="also a real bke-manifests tree"
    )
    parser.add_argument("--skip-tree", action="store_true", help="no 20-version tree")
    parser.add_argument(
        "--only", choices=("render", "validate", "check"), action="append", help="one section"
    )
    args = parser.parse_args()
    only = set(args.only or ("render", "validate", "check"))
    # Bytecode as an installed wheel has it: with PYTHONDONTWRITEBYTECODE set (as in some
    # CI images) every run would otherwise compile every module from source again.
    compileall.compile_dir(str(ROOT / "renderer"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="calico-render-speed-") as tmp:
        work = Path(tmp)
        go = build_go(work)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, median of {args.repeat}")
        if "render" in only:
            bench_render(args, work, go)
        if "validate" in only:
            bench_validate(args, work)
        if "check" in only:
            bench_check(args, work)


if __name__ == "__main__":
    main()
