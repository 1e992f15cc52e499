"""The release gate against the same validation done naively, on the bundled tree.

Fast: ``calico-render check`` as the CLI runs it (versions in parallel, C loader, each
distinct object validated once per Kubernetes version, goldens and rules included).
Naive: one process, every scenario rendered and parsed with ruamel.yaml's round-trip
loader, ``kubernetes_validate.validate()`` per object per Kubernetes version, no cache.
Both verdicts (per version, scenario, object and Kubernetes version) must be identical;
the script prints both timings and the ratio, and fails when verdicts differ.

    python benchmarks/check.py [--kube-version X.Y]... [--jobs N] [--min-ratio R]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from typing import Any

import kubernetes_validate
from ruamel.yaml import YAML

from renderer import api
from renderer.bke.values import build_context
from renderer.calico import capability
from renderer.calico.scenarios import route_scenario
from renderer.checks import coverage, pipeline
from renderer.checks.options import CheckOptions
from renderer.data.bundled import bundled_golden
from renderer.engine import compile
from renderer.engine.render import render_version
from renderer.k8s import schema as kubeschema
from renderer.manifests.tree import list_versions

Verdicts = dict[tuple[str, str, str, str], bool]


def ref(data: dict[str, Any]) -> str:
    meta = data.get("metadata") or {}
    ns = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
    return f"{data.get('kind')} {ns}{meta.get('name')}"


def naive(kube_versions: tuple[str, ...]) -> Verdicts:
    """Render, round-trip parse and validate everything, every time."""
    verdicts: Verdicts = {}
    for version in list_versions():
        compile._CACHE.clear()
        cap = pipeline.assess(pipeline.Renders(version))
        chosen = coverage.derive(version, cap.capable, cap.legacy, cap.missing).scenarios
        for scenario in chosen:
            route = route_scenario(scenario, cap.capable, version.name, tuple(cap.missing))
            ctx = build_context({}, typha=route.decision.context(), repo=capability.CHECK_REPO)
            ctx = coverage.scenario_context(ctx, scenario.values)
            for f in render_version(version, ctx):
                for doc in YAML().load_all(io.StringIO(f.text)):
                    if not doc:
                        continue
                    for kube in kube_versions:
                        try:
                            kubernetes_validate.validate(doc, kube, strict=True)
                            ok = True
                        except kubernetes_validate.ValidationError:
                            ok = False
                        except kubernetes_validate.SchemaNotFoundError:
                            group = str(doc.get("apiVersion", "")).rpartition("/")[0]
                            ok = not kubeschema.is_builtin_group(group)
                        verdicts[(version.name, scenario.name, ref(doc), kube)] = ok
    return verdicts


def fast(kube_versions: tuple[str, ...], jobs: int) -> tuple[Verdicts, bool]:
    """The gate's verdicts, expanded to every (version, scenario, object, kube) it covers."""
    options = CheckOptions(
        root=None, golden=bundled_golden(), kube_versions=kube_versions, jobs=jobs
    )
    report = api.check(options)
    failing = {
        (v.version, s, f.object, k)
        for v in report.versions
        for f in v.findings
        if f.stage == "schema" and f.severity == "error"
        for s in f.scenarios
        for k in f.kube_versions
    }
    verdicts: Verdicts = {}
    for v in report.versions:
        renders = pipeline.Renders(next(x for x in list_versions() if x.name == v.version))
        for s in v.scenarios:
            d = s.decision
            _, _, objects = renders.get(
                {"allowTypha": d["allowTypha"], "typhaReplicas": d["typhaReplicas"]},
                overrides=tuple(d.get("values", {}).items()),
            )
            for obj in objects:
                for kube in kube_versions:
                    key = (v.version, s.name, obj.ref, kube)
                    verdicts[key] = key not in failing
    return verdicts, report.passed


def timed(label: str, func: Any, *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = func(*args)
    took = time.perf_counter() - start
    print(f"{label:<7} {took:8.2f} s", flush=True)
    return out, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kube-version", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=api.default_jobs())
    parser.add_argument("--min-ratio", type=float, default=20.0)
    args = parser.parse_args()
    kube = kubeschema.resolve_kube_versions(args.kube_version)
    print(f"bundled tree, Kubernetes {', '.join(kube)}, --jobs {args.jobs}")
    start = time.perf_counter()
    api.check(CheckOptions(None, bundled_golden(), kube_versions=kube, jobs=args.jobs))
    fast_time = time.perf_counter() - start
    print(f"fast    {fast_time:8.2f} s  (calico-render check, all stages)", flush=True)
    naive_verdicts, naive_time = timed("naive", naive, kube)
    fast_verdicts, passed = fast(kube, args.jobs)
    ratio = naive_time / fast_time
    print(f"ratio   {ratio:8.1f} x  ({len(naive_verdicts)} verdicts, gate passed: {passed})")
    if naive_verdicts != fast_verdicts:
        diff = sorted(set(naive_verdicts.items()) ^ set(fast_verdicts.items()))
        print("verdicts differ:", *diff[:20], sep="\n  ")
        sys.exit(1)
    if ratio < args.min_ratio:
        print(f"below the {args.min_ratio:g}x target")
        sys.exit(1)


if __name__ == "__main__":
    main()
