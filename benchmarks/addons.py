"""Every addon of a bke-manifests tree rendered two ways, and what the difference says.

    python benchmarks/addons.py ROOT [--config FILE] [--kube 1.28] [--json]

ROOT holds ``kubernetes/<addon>/<version>/`` (e.g. ``git -C MIRROR archive HEAD
kubernetes | tar -x -C ROOT``). Every file of every version of every addon is rendered

- **bare**: with a context of ``repo`` alone, as a maintainer trying the engine would;
- **controller**: with the context BKE's controller builds for that addon
  (:meth:`renderer.api.Request.for_addon`: the representative create request the
  package ships, or ``--config``), through :func:`renderer.api.render_addon`.

Per addon it prints: versions, files (the controller's walk), files applied verbatim,
files rendered, files failed (and why), the ``<no value>`` keys, and objects failing
the strict schema on a ``<no value>``. Then it classifies what failed bare: a file that
renders with the controller's context, or an object whose ``<no value>`` goes away,
was our context; what still fails is a defect of the tree, named at file:line with the
key and who could set it. Nothing here is a timed test.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renderer import api
from renderer.engine.compile import compile_file
from renderer.engine.render import is_verbatim, render_each
from renderer.errors import CalicoRenderError
from renderer.finding import Finding
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.k8s.schema import SchemaValidator
from renderer.manifests.tree import VersionDir, list_addons, list_versions

NO_VALUE = "<no value>"


@dataclass
class Outcome:
    """One way of rendering one version: what failed, what printed <no value>."""

    rendered: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # file -> why
    no_value_keys: Counter[str] = field(default_factory=Counter)
    #: file -> objects (Kind ns/name) failing the schema on a <no value>
    schema_no_value: dict[str, set[str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    #: verbatim files that fail when executed as templates (bare only)
    verbatim_failed: dict[str, str] = field(default_factory=dict)


def _located(exc: CalicoRenderError) -> str:
    where = ":".join(str(p) for p in (exc.file, exc.line, exc.column) if p)
    return f"{where}: {exc.message}" if where else exc.message


def _schema_no_value(found: Sequence[Finding], objects: Sequence[K8sObject]) -> dict[str, set[str]]:
    by_ref = {(o.ref, o.file): o for o in objects}
    out: dict[str, set[str]] = {}
    for f in found:
        if f.rule != "schema-invalid" or NO_VALUE not in f.message:
            continue
        ref = str(f.object)
        file = next((fl for (r, fl) in by_ref if r == ref), f.file)
        out.setdefault(file.split("/", 1)[-1], set()).add(ref)
    return out


def bare(vdir: VersionDir, validator: SchemaValidator) -> Outcome:
    """The version rendered with ``{"repo": ""}`` for every file; a file the controller
    applies verbatim (``noexecute``) is executed too, and counted apart, as a maintainer
    not knowing the rule would run it."""
    out = Outcome()
    contexts = {tf.name: {"repo": ""} for tf in vdir.files}
    files, failed = render_each(vdir, contexts)
    out.failed = {name: _located(exc) for name, exc in failed.items()}
    for tf in vdir.files:
        if is_verbatim(vdir, tf):
            try:
                compile_file(tf).render({"repo": ""})
            except CalicoRenderError as exc:
                out.verbatim_failed[tf.name] = _located(exc)
    objects: list[K8sObject] = []
    for f in files:
        if is_verbatim(vdir, next(t for t in vdir.files if f.name.endswith("/" + t.name))):
            continue
        out.rendered += 1
        for p in f.printed:
            if f.text[p.start : p.end] == NO_VALUE:
                out.no_value_keys[p.key] += 1
        try:
            objects += parse_rendered([f])
        except CalicoRenderError as exc:
            out.failed[f.name.split("/", 1)[1]] = f"decode: {_located(exc)}"
    out.schema_no_value = _schema_no_value(validator.validate_all(objects), objects)
    return out


def controller(vdir: VersionDir, root: Path, config: Path | None, kube: str) -> Outcome:
    """The version rendered with the controller's context, as the library renders it."""
    out = Outcome()
    request = api.Request.for_addon(vdir.addon, vdir.name, config=config, root=root, kube=(kube,))
    result = api.render_addon(request)
    verbatim = {t.name for t in vdir.files if is_verbatim(vdir, t)}
    out.rendered = len([f for f in result.files if f.name.split("/", 1)[1] not in verbatim])
    for found in result.findings:
        file = found.file.rsplit(f"/{vdir.name}/", 1)[-1]
        decode = found.rule == "templates-error" and file not in result.failed
        if found.rule == "templates-error" or (
            found.rule == "context-missing-key" and file in result.failed
        ):
            out.failed[file] = f"{'decode: ' if decode else ''}{found.where}: {found.message}"
            out.rendered -= decode
    for rendered in result.files:
        for p in rendered.printed:
            if rendered.text[p.start : p.end] == NO_VALUE:
                out.no_value_keys[p.key] += 1
    out.schema_no_value = _schema_no_value(result.findings, result.objects)
    out.findings = list(result.findings)
    return out


def measure(root: Path, config: Path | None, kube: str) -> dict[str, Any]:
    validator = SchemaValidator((kube,))
    report: dict[str, Any] = {"addons": {}, "ours": [], "tree": [], "missing": []}
    for addon in list_addons(root):
        rows = []
        for vdir in list_versions(root, addon):
            b = bare(vdir, validator)
            c = controller(vdir, root, config, kube)
            rows.append((vdir, b, c))
            _classify(report, vdir, b, c)
        report["addons"][addon] = _summary(rows)
    return report


def _classify(report: dict[str, Any], vdir: VersionDir, b: Outcome, c: Outcome) -> None:
    where = f"kubernetes/{vdir.addon}/{vdir.name}"
    entry: dict[str, Any]
    for file, why in sorted(b.verbatim_failed.items()):
        entry = {"file": f"{where}/{file}", "bare": _short(why)}
        report["ours"].append({"kind": "verbatim", **entry})
    seen = set()
    for f in c.findings:
        if f.rule == "context-missing-key":
            key = (f.where, f.details.key, f.details.supplier)  # type: ignore[union-attr]
            if key not in seen:
                seen.add(key)
                report["missing"].append(
                    {
                        "at": f.where,
                        "key": key[1],
                        "supplier": key[2],
                        "object": str(f.object or ""),
                    }
                )
    for file, why in sorted(b.failed.items()):
        entry = {"file": f"{where}/{file}", "bare": _short(why)}
        if file in c.failed:
            entry["still"] = _short(c.failed[file])
            report["tree"].append({"kind": "render", **entry})
        else:
            report["ours"].append({"kind": "render", **entry})
    for file, refs in sorted(b.schema_no_value.items()):
        still = c.schema_no_value.get(file, set())
        entry = {"file": f"{where}/{file}", "objects": sorted(refs)}
        if refs - still:
            report["ours"].append({"kind": "schema", **entry, "fixed": sorted(refs - still)})
        if still:
            lines = sorted(
                {
                    f"{f.where} .{f.details.key}"  # type: ignore[union-attr]
                    for f in c.findings
                    if f.rule == "context-missing-key" and str(f.object) in still
                }
            )
            report["tree"].append({"kind": "schema", **entry, "still": sorted(still), "at": lines})


def _short(message: str) -> str:
    return message if len(message) < 240 else message[:237] + "..."


def _side(rows: Sequence[tuple[VersionDir, Outcome]]) -> dict[str, Any]:
    keys: Counter[str] = Counter()
    for _, o in rows:
        keys.update(o.no_value_keys)
    return {
        "rendered": sum(o.rendered for _, o in rows),
        "failed": {f"{v.name}/{k}": _short(w) for v, o in rows for k, w in o.failed.items()},
        "no_value_keys": dict(sorted(keys.items())),
        "schema_no_value_files": sum(len(o.schema_no_value) for _, o in rows),
    }


def _summary(rows: Sequence[tuple[VersionDir, Outcome, Outcome]]) -> dict[str, Any]:
    return {
        "versions": [v.name for v, _, _ in rows],
        "files": sum(len(v.files) for v, _, _ in rows),
        "verbatim": sum(1 for v, _, _ in rows for t in v.files if is_verbatim(v, t)),
        "bare": _side([(v, b) for v, b, _ in rows]),
        "controller": _side([(v, c) for v, _, c in rows]),
    }


def text(report: Mapping[str, Any]) -> str:
    lines = []
    totals: Counter[str] = Counter()
    for addon, s in report["addons"].items():
        b, c = s["bare"], s["controller"]
        totals.update(
            versions=len(s["versions"]),
            files=s["files"],
            verbatim=s["verbatim"],
            bare_rendered=b["rendered"],
            bare_failed=len(b["failed"]),
            bare_schema=b["schema_no_value_files"],
            rendered=c["rendered"],
            failed=len(c["failed"]),
            schema=c["schema_no_value_files"],
        )
        lines.append(
            f"{addon}: {len(s['versions'])} version(s) ({', '.join(s['versions'])}), "
            f"{s['files']} file(s), {s['verbatim']} verbatim; bare: {b['rendered']} rendered, "
            f"{len(b['failed'])} failed, {b['schema_no_value_files']} file(s) with <no value> "
            f"schema failures; controller: {c['rendered']} rendered, {len(c['failed'])} failed, "
            f"{c['schema_no_value_files']} with <no value> schema failures"
        )
        for file, why in c["failed"].items():
            lines.append(f"    failed {file}: {why}")
        if c["no_value_keys"]:
            keys = ", ".join(f"{k} ({n})" for k, n in c["no_value_keys"].items())
            lines.append(f"    <no value>: {keys}")
    lines.append(
        "total: {versions} versions, {files} files ({verbatim} verbatim); bare: "
        "{bare_rendered} rendered, {bare_failed} failed, {bare_schema} files with <no value> "
        "schema failures; controller: {rendered} rendered, {failed} failed, {schema} files "
        "with <no value> schema failures".format(**totals)
    )
    ours = report["ours"]
    tree = report["tree"]
    count = Counter(e["kind"] for e in ours)
    still = Counter(e["kind"] for e in tree)
    lines.append(
        f"bare: {count['verbatim'] + count['render'] + still['render']} render failures "
        f"({count['verbatim']} of them verbatim files the controller never executes), "
        f"{count['schema'] + still['schema']} files with <no value> schema failures"
    )
    lines.append(
        f"our context: {count['verbatim']} verbatim + {count['render']} render failures, "
        f"{count['schema']} schema files; still failing with the controller's context: "
        f"{still['render']} render failures, {still['schema']} schema files"
    )
    for e in ours:
        lines.append(f"  ours ({e['kind']}): {e['file']}: {e.get('bare', '')}".rstrip(": "))
    for e in tree:
        if e["kind"] == "render":
            lines.append(f"  still: {e['still']}")
        else:
            at = "; ".join(e["at"]) or "(no template line found)"
            lines.append(f"  still: {e['file']}: {', '.join(e['still'])}: {at}")
    lines.append("keys the controller's context lacks, where a template reads them:")
    for m in report["missing"]:
        obj = f" ({m['object']})" if m["object"] else ""
        lines.append(f"  {m['at']}: .{m['key']} [{m['supplier']}]{obj}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path, help="a tree holding kubernetes/<addon>/<version>/")
    parser.add_argument("--config", type=Path, default=None, help="the BKECluster (and BKENodes)")
    parser.add_argument("--kube", default="1.28", help="the Kubernetes schema version")
    parser.add_argument("--json", action="store_true", help="the whole report as JSON")
    args = parser.parse_args(argv)
    report = measure(args.root, args.config, args.kube)
    if args.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True)
        print()
    else:
        print(text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
