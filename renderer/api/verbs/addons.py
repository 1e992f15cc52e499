"""The addon verbs: any addon of the tree rendered as BKE's controller renders it, the
addons a BKECluster lists in the controller's order, and the images each BKE role's
nodes pull for an addon.

Every addon of bke-manifests goes through the controller's one code path
(``pkg/kube/addon.go``): the file walk, the common parameters, what it adds for the
addon, the addon's params per file, ``repo`` last, the same functions and decoder. So
one verb renders them all; Calico's request also gets its Typha keys as the controller
decides them (the deep Calico checks stay :func:`renderer.api.verbs.render.render`'s).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from renderer.api.listed import AddonRender, ListedImages, ListedRender
from renderer.api.request import Request, default_config
from renderer.api.results import (
    AddonImages,
    AddonResult,
    ListedAddon,
    RenderResult,
)
from renderer.api.verbs.crds import CrdSource, Kinds, tree_crds, version_crds
from renderer.api.verbs.render import (
    duplicate_objects,
    given_warnings,
    located,
    plan_route,
    render,
    schema_findings,
    unreachable_reads,
)
from renderer.bke import addons as addon_rules
from renderer.bke import context as bke_context
from renderer.bke import missing
from renderer.bke.cluster import Addon as BkeAddon
from renderer.bke.cluster import load_stream
from renderer.bke.roles import images_by_role
from renderer.calico import policy
from renderer.checks.stages import error_finding
from renderer.engine.render import RenderedFile, render_each
from renderer.errors import InputError, RefusedError
from renderer.finding import TEMPLATES, Finding
from renderer.k8s.crd import CrdSet
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.k8s.readings import reading_findings
from renderer.manifests.tree import ADDON, list_addons, list_versions


def render_addon(request: Request, *, crds: CrdSource | None = None) -> AddonResult:
    """Render the request's addon version file by file with the contexts the controller
    builds, and check what renders: files that fail (a key the context lacks named as
    such), ``<no value>`` printed into objects, values that change the YAML, keys no
    config can set, scalars the controller reads as YAML 1.1, objects rendered twice,
    and (with ``kube_versions``) strict schemas: custom resources against the render's
    own CRDs, then those ``crds`` gives for the kinds it lacks (by default the tree's).

    Raises :class:`~renderer.errors.RefusedError` for a first Calico install above 50
    nodes on a version the controller finds no Typha in, as the controller refuses it;
    :class:`~renderer.errors.InputError` for a strict request whose params change
    nothing."""
    vdir, inputs = request.version, request.inputs
    typha: dict[str, str] | None = None
    reason = ""
    warnings: list[str] = []
    decision = None
    if vdir.addon == ADDON:
        route = plan_route(vdir, request.node_count, request.operation, controller=True)
        if route.refused:
            raise RefusedError(route.message, key="nodes", argument="nodes", value=request.nodes)
        decision = route.decision
        typha, reason = decision.context(), decision.reason
        overridden = policy.overridden_keys(bke_context.typha_params(inputs.params), decision)
        warnings += [*overridden, *route.warnings]
    contexts = bke_context.build(vdir, inputs, typha, typha_reason=reason)
    by_file = contexts.contexts()
    files, failed = render_each(vdir, by_file)
    # what reads the templates judges the files that compiled and rendered
    rendered = replace(vdir, files=tuple(tf for tf in vdir.files if tf.name not in failed))
    given = given_warnings(request, rendered)
    entry = request.cluster.addon if request.cluster is not None else None
    listed = entry is not None and not entry.assumed
    found: list[Finding] = []
    for name, error in failed.items():
        read = missing.failed_read(error, by_file[name], vdir.addon, vdir.name, listed=listed)
        found.append(read or error_finding(TEMPLATES, error))
    found += unreachable_reads(rendered, contexts, files)
    found += bke_context.injection_findings(files)
    objects, undecoded = _decode(files)
    found += undecoded
    found += missing.no_value_reads(files, objects, vdir.addon, vdir.name, listed=listed)
    found += reading_findings(objects)
    found += duplicate_objects(vdir, objects, contexts)
    if request.kube_versions:
        found += schema_findings(request, objects, crds)
    return AddonResult(
        vdir,
        tuple(files),
        contexts,
        findings=tuple(located(vdir, found)),
        objects=tuple(objects),
        failed=tuple(failed),
        kube_versions=request.kube_versions,
        warnings=(*warnings, *contexts.warnings),
        param_warnings=given,
        notes=(
            *request.notes,
            *((request.kube_note,) if request.kube_note else ()),
            *addon_rules.layout_notes(vdir.addon, [tf.name for tf in vdir.files]),
        ),
        decision=decision,
    )


def _decode(files: Sequence[RenderedFile]) -> tuple[list[K8sObject], list[Finding]]:
    """The objects of every file the controller's decoder reads, and a finding for each
    file it refuses (the controller fails that file's apply)."""
    objects: list[K8sObject] = []
    found: list[Finding] = []
    for f in files:
        try:
            objects += parse_rendered([f])
        except InputError as exc:
            found.append(error_finding(TEMPLATES, exc))
    return objects, found


def listed_addons(
    config: str | Path | None = None,
    *,
    nodes_file: str | Path | None = None,
    nodes: int | None = None,
    root: Path | None = None,
    repo: str | None = None,
    addons: Sequence[str] = (),
    bad_input: str = "skip",
    **options: Any,
) -> tuple[ListedAddon, ...]:
    """Every addon ``config`` (by default the representative create request) lists, in
    the order the controller installs them (the BKECluster's), each with its request
    (:meth:`Request.for_addon`; ``options`` as it takes them) or the reason the controller
    renders nothing for it from bke-manifests: a Helm chart, or a directory the tree
    does not have (the controller fails that install). ``addons`` names the ones to
    give (all when it names none; one the config does not list is an InputError). An
    entry the config gets wrong (a version that is no directory name, an addon listed
    twice) or a directory the tree lacks is skipped with the error's words, or
    (``bad_input="raise"``) raised."""
    source = default_config() if config is None else config
    found, _ = load_stream(source)
    present = set(list_addons(root))
    out = []
    for addon in _chosen(found.addons, addons, source):
        listed = ListedAddon(addon.name, addon.version, addon.where)
        if addon.type == "chart":
            out.append(replace(listed, skipped="a Helm chart: not rendered from bke-manifests"))
            continue
        if addon.name not in present:
            other = [p for p in present if p.lower() == addon.name.lower()]
            if bad_input == "raise" and other:  # the controller joins the name into a path
                raise InputError(
                    f"{addon.name!r}: the controller reads an addon's manifests from "
                    f"kubernetes/{addon.name}/{addon.version}/, which does not exist (the "
                    f"directory is kubernetes/{other[0]}/ and names are case-sensitive), so "
                    "the install fails",
                    file=found.file,
                    line=addon.line,
                    key=f"{addon.where}.name",
                )
            why = (
                f"no kubernetes/{addon.name}/{addon.version}/ in the tree (it has no "
                f"kubernetes/{addon.name}/): the controller fails this install (addon dir "
                "does not exist)"
            )
            out.append(replace(listed, skipped=why))
            continue
        versions = {v.name for v in list_versions(root, addon.name)}
        if addon.version not in versions:
            known = ", ".join(sorted(versions)) or "none"
            if bad_input == "raise":
                raise InputError(
                    f"the controller reads {addon.name}'s manifests from "
                    f"kubernetes/{addon.name}/{addon.version}/, which does not exist "
                    f"(versions: {known}), so the install fails",
                    file=found.file,
                    line=addon.line,
                    key=f"{addon.where}.version",
                )
            why = (
                f"no kubernetes/{addon.name}/{addon.version}/ in the tree (versions: {known}): "
                "the controller fails this install (addon dir does not exist)"
            )
            out.append(replace(listed, skipped=why))
            continue
        try:
            request = Request.for_addon(
                addon.name,
                addon.version,
                config=source,
                nodes_file=nodes_file,
                nodes=nodes,
                root=root,
                repo=repo,
                **options,
            )
        except InputError as exc:
            if bad_input == "raise":
                raise
            out.append(replace(listed, skipped=str(exc)))
            continue
        out.append(replace(listed, request=request))
    return tuple(out)


def render_listed(
    config: str | Path | None = None,
    *,
    addons: Sequence[str] = (),
    nodes_file: str | Path | None = None,
    nodes: int | None = None,
    root: Path | None = None,
    repo: str | None = None,
    **options: Any,
) -> ListedRender:
    """Every addon ``config`` (by default the representative create request) lists, or
    the ``addons`` named, rendered in the order the controller installs them, each with
    the context the controller builds for it (:func:`listed_addons`; ``options`` as
    :meth:`Request.for_addon` takes them): Calico by :func:`renderer.api.render` (the
    Typha decision by the controller's text search, the scale advice), every other by
    :func:`render_addon`. A custom resource is checked against its own render's CRDs,
    then those of the addons the cluster lists, then the tree's.

    ``values``, ``values_file`` and ``sets`` are one addon's params: they need exactly
    one addon to render. An addon the config does not list is an InputError (argument
    ``addon``); Calico's refusal is its entry's ``refused``, not an exception."""
    source = default_config() if config is None else config
    chosen = listed_addons(
        source,
        nodes_file=nodes_file,
        nodes=nodes,
        root=root,
        repo=repo,
        addons=addons,
        bad_input="raise",
        **options,
    )
    given = [k for k in ("values", "values_file", "sets") if options.get(k)]
    if given and sum(1 for entry in chosen if entry.request is not None) != 1:
        raise InputError(
            "values and settings are one addon's params: name the addon to render",
            key="addon",
            argument="addon",
        )

    def every() -> Sequence[ListedAddon]:  # the cluster gets every listed addon's CRDs
        if not addons:
            return chosen
        return listed_addons(
            source, nodes_file=nodes_file, nodes=nodes, root=root, repo=repo, **options
        )

    crds = listed_crds(every, root)
    out = []
    for entry in chosen:
        request = entry.request
        if request is None:
            out.append(AddonRender(entry))
            continue
        try:
            result: RenderResult | AddonResult = (
                render(request, crds=crds)
                if request.addon == ADDON
                else render_addon(request, crds=crds)
            )
        except RefusedError as exc:
            out.append(AddonRender(entry, refused=exc.message))
            continue
        out.append(AddonRender(entry, result))
    first = next((entry.request for entry in chosen if entry.request is not None), None)
    return ListedRender(
        str(source),
        first.nodes or 0 if first is not None else nodes or 0,
        tuple(out),
        kube_versions=first.kube_versions if first is not None else (),
        notes=(*first.notes, *((first.kube_note,) if first.kube_note else ()))
        if first is not None
        else (),
    )


def _chosen(listed: Sequence[BkeAddon], names: Sequence[str], config: str | Path) -> list[BkeAddon]:
    """The listed addons ``names`` asks for (all when it names none), in the listed
    order."""
    if not names:
        return list(listed)
    known = [entry.name for entry in listed]
    for name in names:
        if name not in known:
            raise InputError(
                f"{config} lists no addon named {name} (it lists: {', '.join(known) or 'none'})",
                key="addon",
                argument="addon",
                value=name,
            )
    return [entry for entry in listed if entry.name in names]


def listed_crds(listed: Callable[[], Sequence[ListedAddon]], root: Path | None) -> CrdSource:
    """The CRDs a cluster gets from the addons its BKECluster lists (``listed``, asked
    when a render first needs a CRD it lacks; each rendered with its own request), then
    the tree's for the kinds they do not define."""

    def source(kinds: Kinds) -> CrdSet:
        found = CrdSet(
            v
            for entry in listed()
            if entry.request is not None
            for v in version_crds(entry.request.version, entry.request, kinds)
        )
        rest = kinds - found.kinds()
        return found.then(tree_crds(root, rest)) if rest else found

    return source


def addon_images(request: Request) -> AddonImages:
    """The images a node of each BKE role pulls for the request's addon version, read
    from what it renders: every workload whose pods may be scheduled on such a node
    (:mod:`renderer.bke.roles`), and the DaemonSets' alone."""
    result = render_addon(request)
    by_role, daemons = images_by_role(result.objects)
    notes = list(result.notes)
    if result.failed:
        notes.append(
            f"{len(result.failed)} file(s) did not render, their images are not listed: "
            + ", ".join(result.failed)
        )
    notes.append("a dedicated etcd node may run no kubelet: it pulls nothing")
    return AddonImages(
        result.addon,
        result.version.name,
        str(request.inputs.repo.value),
        by_role,
        daemons,
        tuple(notes),
    )


def listed_images(
    config: str | Path | None = None,
    *,
    addons: Sequence[str] = (),
    nodes_file: str | Path | None = None,
    nodes: int | None = None,
    root: Path | None = None,
    repo: str | None = None,
) -> tuple[ListedImages, ...]:
    """The images each node role pulls for every addon ``config`` lists (or the
    ``addons`` named), in the controller's order (:func:`addon_images`; a config without
    BKENodes renders as the controller counts it, with none); bad entries and versions
    the tree lacks are refused as :func:`render_listed` refuses them."""
    chosen = listed_addons(
        config,
        nodes_file=nodes_file,
        nodes=nodes,
        root=root,
        repo=repo,
        addons=addons,
        bad_input="raise",
    )
    out = []
    for entry in chosen:
        if entry.request is None:
            out.append(ListedImages(entry))
            continue
        request = entry.request
        if request.nodes is None:  # no BKENodes: the controller counts none
            request = replace(request, nodes=0)
        try:
            out.append(ListedImages(entry, addon_images(request)))
        except RefusedError as exc:
            out.append(ListedImages(entry, refused=exc.message))
    return tuple(out)
