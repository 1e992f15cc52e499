"""Custom resources of a bke-manifests tree checked against the tree's own CRDs.

    python benchmarks/crds.py ROOT [--config FILE] [--kube 1.28] [--json]

ROOT holds ``kubernetes/<addon>/<version>/``. Every version of every addon is rendered
by :func:`renderer.api.render_addon` with the context BKE's controller builds for it
(:meth:`renderer.api.Request.for_addon`: the representative create request, or
``--config``), so each render's custom resources are checked against its own CRDs,
then against those the tree's addons render, on one Kubernetes version (by default the
config's ``kubernetesVersion``).

Per addon it prints: versions, objects, objects checked against a Kubernetes schema,
against a CRD, custom resources no CRD of the tree checks (by kind), objects of an API
Kubernetes no longer serves (by kind), and every error a CRD finds, at the template's
file:line. Nothing here is a timed test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from renderer import api
from renderer.k8s import schema as kubeschema
from renderer.k8s.crd import crds_of
from renderer.manifests.tree import list_addons, list_versions

COLUMNS = ("versions", "objects", "kubernetes", "crd", "unchecked", "removed")


def survey(root: Path, config: Path | None, kube: list[str]) -> tuple[dict[str, Any], int]:
    """Per addon: the counts of :data:`COLUMNS`, the kinds of the last two, and the
    errors the CRDs find; and how many CRDs the tree holds."""
    renders = []
    for addon in list_addons(root):
        for vdir in list_versions(root, addon):
            request = api.Request.for_addon(addon, vdir, root=root, config=config, kube=kube)
            renders.append((addon, request, api.render_addon(request)))
    tree = crds_of(o for *_, r in renders for o in r.objects)
    report: dict[str, Any] = {}
    for addon, request, result in renders:
        version = request.kube_versions[0]
        crds = crds_of(result.objects).then(tree)
        row = report.setdefault(addon, {**dict.fromkeys(COLUMNS, 0), "kinds": {}, "errors": []})
        row["versions"] += 1
        custom = set()
        for obj in result.objects:
            row["objects"] += 1
            source = kubeschema.schema_source(obj.kind, obj.api_version, version, crds)
            if source == kubeschema.NONE:
                group = kubeschema.api_group(obj.api_version)
                column = "removed" if kubeschema.is_builtin_group(group) else "unchecked"
                row[column] += 1
                kinds = row["kinds"].setdefault(column, Counter())
                kinds[f"{obj.kind} {obj.api_version}"] += 1
            else:
                row[source] += 1
            if source == kubeschema.CRD:
                custom.add((obj.kind, obj.name))
        row["errors"] += [
            str(f)
            for f in result.findings
            if f.stage == "schema" and f.severity == "error" and f.object is not None
            and (f.object.kind, f.object.name) in custom
        ]  # fmt: skip
    return report, len(tree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--kube", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    report, crds = survey(args.root, args.config, args.kube)
    seconds = time.perf_counter() - start
    if args.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True)
        print()
        return
    versions = sum(r["versions"] for r in report.values())
    print(f"{len(report)} addons, {versions} versions, {crds} CRDs ({seconds:.1f} s)")
    print(f"{'addon':<28}" + "".join(f"{c:>11}" for c in COLUMNS))
    totals: Counter[str] = Counter()
    for addon, r in report.items():
        totals.update({c: r[c] for c in COLUMNS})
        print(f"{addon:<28}" + "".join(f"{r[c]:>11}" for c in COLUMNS))
        for column, kinds in r["kinds"].items():
            listed = ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items()))
            print(f"    {column}: {listed}")
    print(f"{'total':<28}" + "".join(f"{totals[c]:>11}" for c in COLUMNS))
    errors = [e for r in report.values() for e in r["errors"]]
    print(f"\n{len(errors)} error(s) the CRDs find:")
    for e in errors:
        print(f"  {e}")


if __name__ == "__main__":
    main()
