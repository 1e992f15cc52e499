"""The CustomResourceDefinitions a render's custom resources are checked against: its
own, then those a cluster gets from elsewhere (the other addons its BKECluster lists),
then any the tree's addons render, so that cert-manager's CRD checks the Certificates
cluster-api renders.

Finding a tree's CRDs renders only the files that may hold one of the kinds asked for
(a search of their words), with the context BKE's controller builds for their addon from
the representative create request; nothing is looked for when every custom resource of
a render has its CRD in the render itself (Calico's renders).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from renderer.api.request import Request
from renderer.bke import context as bke_context
from renderer.engine.render import render_each
from renderer.errors import InputError
from renderer.finding import Finding, merge_findings
from renderer.k8s import schema as kubeschema
from renderer.k8s.crd import CrdSet, ServedVersion, crds_of, defined_kinds, may_define
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.manifests.tree import VersionDir, list_addons, list_versions
from renderer.store.memo import Memo

#: (group, kind) of custom resources.
Kinds = frozenset[tuple[str, str]]
#: Where a render finds the CRDs its own objects lack: the kinds asked for -> CRDs.
CrdSource = Callable[[Kinds], CrdSet]

#: A tree's CRDs of some kinds, by the files searched and their bytes.
_FOUND: Memo[tuple[object, ...], CrdSet] = Memo("api.crds.tree", 32)


def custom_kinds(objects: Iterable[K8sObject], kube_versions: Sequence[str]) -> Kinds:
    """(group, kind) of the objects no Kubernetes schema checks on some of
    ``kube_versions``: those a CRD must define."""
    return frozenset(
        (kubeschema.api_group(o.api_version), o.kind)
        for o in objects
        if kubeschema.needs_crd(o.kind, o.api_version, kube_versions)
    )


def version_crds(vdir: VersionDir, request: Request, kinds: Kinds | None = None) -> CrdSet:
    """The CRDs (of ``kinds``) one version renders with ``request``'s contexts, each
    located at ``kubernetes/<addon>/<version>/<file>:<line>``: only the files that may
    hold one are rendered; a file that fails to render or decode gives none."""
    chosen = tuple(tf for tf in vdir.files if may_define(tf.source, kinds))
    if not chosen:
        return CrdSet()
    vdir = replace(vdir, files=chosen)
    contexts = bke_context.build(vdir, request.inputs, None).contexts()
    given = json.dumps(contexts, sort_keys=True, default=repr)
    key = (str(vdir.path), *(tf.digest for tf in chosen), given, kinds)
    found = _FOUND.get(key)
    if found is None:
        found = _render_crds(vdir, contexts, kinds)
        _FOUND[key] = found
    return found


def _render_crds(
    vdir: VersionDir, contexts: Mapping[str, Mapping[str, Any]], kinds: Kinds | None
) -> CrdSet:
    files, _ = render_each(vdir, contexts)
    objects: list[K8sObject] = []
    for f in files:
        try:
            objects += parse_rendered([f])
        except InputError:
            continue
    found = crds_of(objects)
    if kinds is not None:
        found = found.only(kinds)
    where = f"kubernetes/{vdir.addon}/"
    return CrdSet(replace(v, where=where + v.where) for v in found)


def tree_crds(root: Path | None = None, kinds: Iterable[tuple[str, str]] | None = None) -> CrdSet:
    """The CRDs (of ``kinds``: (group, kind), None for every one) the addons of the
    tree under ``root`` render with the context BKE's controller builds from the
    representative create request: addons by name, each one's versions newest first
    (so a resource invalid against every one is reported against the newest)."""
    wanted = frozenset(kinds) if kinds is not None else None
    found: list[ServedVersion] = []
    for addon in list_addons(root):
        for vdir in reversed(list_versions(root, addon)):  # newest first
            if not any(may_define(tf.source, wanted) for tf in vdir.files):
                continue
            try:
                request = Request.for_addon(addon, vdir, root=root)
            except InputError:
                continue
            found += version_crds(vdir, request, wanted)
    return CrdSet(found)


def tree_source(root: Path | None) -> CrdSource:
    """The tree's CRDs of the kinds a render asks for."""
    return lambda kinds: tree_crds(root, kinds)


def schema_findings(
    request: Request, objects: Sequence[K8sObject], crds: CrdSource | None = None
) -> list[Finding]:
    """The strict schema findings of a render's objects on the request's Kubernetes
    versions, custom resources checked against the render's own CRDs, then those
    ``crds`` gives for the kinds the render lacks (by default the tree's); a custom
    resource no CRD checks is an error for a strict request."""
    lacking = custom_kinds(objects, request.kube_versions) - defined_kinds(objects)
    extra = CrdSet()
    if lacking:
        extra = (crds if crds is not None else tree_source(request.root))(lacking)
    found = kubeschema.SchemaValidator(request.kube_versions, crds=extra).validate_all(objects)
    if request.strict:
        found = kubeschema.strict_unchecked(found)
    return merge_findings(found)
