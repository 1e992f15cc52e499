"""The CustomResourceDefinitions a tree gives a render's custom resources whose kind
the render itself does not define (:func:`renderer.api.verbs.render.schema_findings`):
those any of its addons renders, so that cert-manager's CRD checks the Certificates
cluster-api renders.

Finding a tree's CRDs renders only the files that may hold one of the kinds asked for
(a search of their words), with the context BKE's controller builds for their addon from
the representative create request; nothing is looked for when every custom resource of
a render has its CRD in the render itself (this module is not even loaded then).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from renderer.api.request import Request
from renderer.bke import context as bke_context
from renderer.engine.render import render_each
from renderer.errors import InputError
from renderer.k8s.crd import CrdSet, ServedVersion, crds_of, may_define
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.manifests.tree import VersionDir, list_addons, list_versions
from renderer.store.memo import Memo

#: (group, kind) of custom resources.
Kinds = frozenset[tuple[str, str]]
#: Where a render finds the CRDs its own objects lack: the kinds asked for -> CRDs.
CrdSource = Callable[[Kinds], CrdSet]

#: A tree's CRDs of some kinds, by the files searched and their bytes.
_FOUND: Memo[tuple[object, ...], CrdSet] = Memo("api.crds.tree", 32)


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
