"""The check of a whole tree: every version through the pipeline, in parallel.

Versions are independent, so they are prepared (rendered, ruled, compared) in worker
processes; each object not seen before is sent for schema validation as soon as its
version is prepared, and versions are merged back in version order, which keeps every
report byte-identical whatever the number of jobs.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from renderer import errors
from renderer.calico import fidelity
from renderer.checks import exceptions as excepts
from renderer.checks import golden
from renderer.checks.addons import addon_cluster, tree_crds
from renderer.checks.options import CheckOptions
from renderer.checks.pipeline import (
    finish_version,
    new_result,
    prepare_version,
    template_sources,
)
from renderer.checks.report import FAIL, CheckReport, VersionResult
from renderer.checks.stages import error_finding
from renderer.checks.validation import (
    Crd,
    OtherCrds,
    SchemaInput,
    SchemaResults,
    SchemaSeen,
    awaits_crds,
    check_inputs,
    crd_set,
    custom_kinds,
    own_crds,
    seen,
    validate_custom,
)
from renderer.engine import limits
from renderer.errors import CalicoRenderError, InputError
from renderer.finding import TEMPLATES
from renderer.k8s import schema as kubeschema
from renderer.k8s.libyaml import C_LOADER
from renderer.k8s.schema import strict_unchecked
from renderer.manifests.tree import (
    ADDON,
    VersionDir,
    list_addons,
    list_versions,
    tree_label,
    unit_label,
)
from renderer.store.files import exclusive_lock

if TYPE_CHECKING:
    from renderer.k8s.crd import CrdSet


@dataclass
class Prepared:
    """What a version's preparation hands back: its result (every stage but schema),
    its objects of Kubernetes' own groups validated and located, and its custom
    resources, which wait for every version's CRDs. What only this process needed is
    left out (the rendered goldens unless updating, the templates' text)."""

    result: VersionResult
    checked: SchemaSeen = field(default_factory=SchemaSeen)
    waiting: list[SchemaInput] = field(default_factory=list)
    #: The version's own CRDs, every custom resource of the tree may need them.
    crds: list[Crd] = field(default_factory=list)


class NothingToUpdate(InputError):
    """Goldens to update for a tree without versions: refused, it would remove them all."""


def prepare(version: VersionDir, options: CheckOptions) -> Prepared:
    """:func:`prepare_version` and the schema check of its objects that need no CRD,
    timed; a version that fails outright fails its templates."""
    start = time.monotonic()
    try:
        result, inputs = prepare_version(version, options)
    except (fidelity.UpstreamError, golden.GoldenError):
        raise  # bad upstream input or goldens stop the whole check (exit 2)
    except CalicoRenderError as exc:
        result = new_result(version.name, [], "", options, version.addon)
        result.stages[TEMPLATES] = FAIL
        result.findings.append(error_finding(TEMPLATES, exc))
        return Prepared(result)
    kube = options.kube_versions
    ready = [i for i in inputs if not awaits_crds(i, kube)]
    checked = check_inputs(kube, ready)
    result.seconds = time.monotonic() - start
    result.sources = {}  # read again where the report is made
    if not options.update:
        result.rendered = None
    waiting = [i for i in inputs if awaits_crds(i, kube)]
    crds = own_crds(inputs, f"kubernetes/{version.addon}/{version.name}/")
    return Prepared(result, checked, waiting, crds)


def chunks(items: list[Any], parts: int) -> list[list[Any]]:
    """``items`` in at most ``parts`` consecutive chunks of equal size (the last shorter)."""
    size = max(1, -(-len(items) // parts))
    return [items[i : i + size] for i in range(0, len(items), size)]


class Merger:
    """Collects prepared versions and finishes them in report order: a version without
    custom resources as soon as it and those before it are prepared, the others once
    every version is prepared and the custom resources validated."""

    def __init__(
        self,
        options: CheckOptions,
        versions: Sequence[VersionDir],
        progress: Callable[[VersionResult], None] | None,
    ) -> None:
        self.options = options
        self.versions = {_label(v): v for v in versions}
        self.progress = progress
        self.prepared: dict[str, Prepared] = {}
        self.finished: list[str] = []
        self.customs: list[Custom] = []
        self.matches: list[list[tuple[int, str, int]]] = []

    def add(self, label: str, prepared: Prepared) -> None:
        """Record a prepared version; finish, in report order, every version up to the
        first one still waiting (for its preparation or for custom resources)."""
        self.prepared[label] = prepared
        for at in list(self.versions)[len(self.finished) :]:
            found = self.prepared.get(at)
            if found is None or found.waiting:
                return
            self.finish(at, SchemaSeen())

    def custom(self, others: OtherCrds) -> list[Custom]:
        """The custom resources each prepared version waits for, each with the CRDs
        that check it: the version's own first (what the cluster gets with it), then
        those of every other addon of the tree, addons by name, each one's versions
        newest first (a resource invalid against every one is reported against the
        newest); ``others`` gives those of the addons this check did not render."""
        waiting = [label for label in self.versions if self.prepared[label].waiting]
        if not waiting:
            return []
        kinds = frozenset().union(*(custom_kinds(self.prepared[w].waiting) for w in waiting))
        by_addon: dict[str, list[str]] = {}
        for label, version in self.versions.items():
            by_addon.setdefault(version.addon, []).append(label)
        rendered = [
            c
            for addon in sorted(by_addon, key=lambda a: a.encode("utf-8", "surrogateescape"))
            for label in reversed(by_addon[addon])
            for c in self.prepared[label].crds
        ]
        tree = crd_set([*rendered, *others(kinds)], kinds)
        out = []
        for label in waiting:
            prepared = self.prepared[label]
            own = crd_set(prepared.crds, custom_kinds(prepared.waiting))
            items = [(i.digest, i.obj.data) for i in prepared.waiting]
            out.append(Custom(label, items, own.then(tree)))
        self.customs = out
        return out

    def validated(self, results: Mapping[str, SchemaResults]) -> None:
        """Finish every version left, its custom resources validated as ``results``
        (by version)."""
        kube = self.options.kube_versions
        crds = {c.label: c.crds for c in self.customs}
        for label in list(self.versions)[len(self.finished) :]:
            waiting = self.prepared[label].waiting
            found = results.get(label, {})
            more = seen(waiting, found, kube, crds.get(label)) if waiting else SchemaSeen()
            self.finish(label, more)

    def finish(self, label: str, more: SchemaSeen) -> None:
        self.finished.append(label)
        prepared = self.prepared[label]
        result = prepared.result
        items = self.options.exceptions.items
        checked = prepared.checked + more
        if self.options.strict:  # a custom resource no CRD checks is an error
            checked = replace(checked, findings=tuple(strict_unchecked(checked.findings)))
        self.matches.append(finish_version(result, checked, items))
        result.sources = template_sources(self.versions[label])
        if self.progress is not None:
            self.progress(result)

    @property
    def results(self) -> list[VersionResult]:
        """Every version's result, in report order."""
        return [self.prepared[label].result for label in self.versions]


def _init_worker(render_timeout: float, names: dict[str, str]) -> None:
    """Workers leave Ctrl-C to the main process, which reports it once and ends them
    (SIGTERM, their default: they hold nothing to clean up), and render under the main
    process's time limit and name arguments in its words."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    limits.set_render_timeout(render_timeout)
    errors.use_names(names)


def checked_addons(options: CheckOptions) -> tuple[str, ...]:
    """The addons a check covers: those asked for (each must be in the tree), else
    every addon of the tree, Calico first (the bundled tree holds Calico alone)."""
    present = list_addons(options.root)
    if options.addons:
        for addon in options.addons:
            if addon not in present:
                raise InputError(
                    f"no kubernetes/{addon}/ in the tree; its addons: {', '.join(present)}",
                    file=options.manifests_arg,
                    key="addon",
                    argument="addon",
                    value=addon,
                )
        chosen = list(dict.fromkeys(options.addons))
    else:
        chosen = list(present)
    return tuple(sorted(chosen, key=lambda a: (a != ADDON, a)))


def units(options: CheckOptions, addons: Sequence[str]) -> list[VersionDir]:
    """Every version of every addon checked, in report order."""
    return [v for addon in addons for v in list_versions(options.root, addon)]


def run_check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None = None
) -> CheckReport:
    """Check every version of every addon under ROOT (those of ``options.addons``);
    ``progress`` sees each version as it finishes."""
    if not C_LOADER:
        raise InputError("ruamel.yaml's C loader is not available; install ruamel.yaml.clib")
    if not options.kube_versions:
        options = replace(options, kube_versions=kubeschema.resolve_kube_versions())
    addons = checked_addons(options)
    versions = units(options, addons)
    if options.update and not versions:
        # An update of a tree without versions would remove every golden as stale.
        raise NothingToUpdate(
            "no versions found; refusing to update goldens (it would remove them all)",
            file=options.manifests_arg,
        )
    if any(a != ADDON for a in addons):  # a bad cluster is bad input, before any work
        first = next(v for v in versions if v.addon != ADDON) if versions else None
        if first is not None:
            addon_cluster(first, options.root, options.config)
    options = replace(options, calico_only_goldens=golden.adopted_for_calico_only(options, addons))
    # a golden directory linked elsewhere is neither read nor locked
    golden.guard(options, addons)
    if options.update:  # two updates of one golden directory would interleave
        with contextlib.ExitStack() as stack:
            for directory in golden.lock_dirs(options, addons):
                stack.enter_context(exclusive_lock(directory, "update-golden"))
            return _run_check(options, addons, versions, progress)
    return _run_check(options, addons, versions, progress)


def _run_versions(versions: list[VersionDir], merger: Merger, options: CheckOptions) -> None:
    """Prepare every version in ``options.jobs`` processes (checking there what needs no
    CRD), then validate the custom resources against the tree's CRDs."""
    jobs = max(1, min(options.jobs, len(versions) or 1))
    others = _other_crds(options, {v.addon for v in versions})
    if jobs == 1:
        for version in versions:
            merger.add(_label(version), prepare(version, options))
        merger.validated(validate_groups(options.kube_versions, merger.custom(others)))
        return
    done: queue.SimpleQueue[tuple[str, Any, BaseException | None]] = queue.SimpleQueue()
    pool = multiprocessing.Pool(
        jobs, initializer=_init_worker, initargs=(limits.render_timeout(), errors.names())
    )
    try:

        def submit(kind: str, func: Callable[..., Any], *args: Any) -> None:
            pool.apply_async(
                func,
                args,
                callback=lambda value: done.put((kind, value, None)),
                error_callback=lambda exc: done.put((kind, None, exc)),
            )

        for version in versions:
            submit(_label(version), prepare, version, options)
        pending = len(versions)
        validating = False
        found: dict[str, SchemaResults] = {}
        while pending:
            try:  # a timeout keeps the wait open to Ctrl-C and SIGTERM
                kind, value, exc = done.get(timeout=0.2)
            except queue.Empty:
                continue
            pending -= 1
            if exc is not None:
                raise exc
            if kind == _VALIDATED:
                found.update(value)
            else:
                merger.add(kind, value)
            if not pending and not validating:  # every version prepared
                validating = True
                for chunk in chunks(merger.custom(others), jobs):
                    submit(_VALIDATED, validate_groups, options.kube_versions, chunk)
                    pending += 1
        merger.validated(found)
        pool.close()
        pool.join()
    finally:
        # Ctrl-C, SIGTERM or an error: the workers end now, not after their tasks, and
        # hold nothing (locks, files) once the check returns or raises
        pool.terminate()
        pool.join()


@dataclass(frozen=True)
class Custom:
    """A version's custom resources (digest, data) and the CRDs that check them."""

    label: str
    items: list[tuple[str, dict[str, Any]]]
    crds: CrdSet


def validate_groups(kube_versions: Sequence[str], groups: Sequence[Custom]) -> dict[str, Any]:
    """Each version's custom resources validated against its CRDs, by version."""
    return {g.label: validate_custom(kube_versions, g.items, g.crds) for g in groups}


def _other_crds(options: CheckOptions, checked: set[str]) -> OtherCrds:
    """The CRDs (of some kinds) of the tree's addons this check does not render (with
    ``--addon``): what checks a custom resource is the same whichever addons are
    asked for."""
    return lambda kinds: tree_crds(options.root, options.config, kinds, skip=checked)


#: The tag of a validation task's result (versions are tagged by their name).
_VALIDATED = "\0validated"


def _label(version: VersionDir) -> str:
    return unit_label(version.addon, version.name)


def _run_check(
    options: CheckOptions,
    addons: Sequence[str],
    versions: list[VersionDir],
    progress: Callable[[VersionResult], None] | None,
) -> CheckReport:
    if options.upstream is not None:  # refuse a bad upstream directory before any work
        fidelity.check_upstream_dir(options.upstream)
        for v in versions:
            if v.addon == ADDON:
                fidelity.upstream_files(options.upstream, v.name)
    merger = Merger(options, versions, progress)
    _run_versions(versions, merger, options)
    ordered = merger.results
    stale = [
        s
        for addon in addons
        for s in golden.find_stale(options, [v.name for v in versions if v.addon == addon], addon)
    ]
    if not options.addons:  # goldens of an addon no longer in the tree
        for addon in golden.stale_addons(options, addons):
            stale += golden.find_stale(options, (), addon)
    if options.update:
        for r in ordered:
            golden.apply_update(r, options)
        for s in stale:  # only once every new golden is in place
            golden.remove_stale(s)
    return CheckReport(
        manifests=tree_label(options.root),
        golden=golden.golden_label(options, addons),
        kube_versions=list(options.kube_versions),
        versions=ordered,
        update=options.update,
        stale=stale,
        upstream=options.upstream_arg if options.upstream is not None else None,
        exceptions_file=options.exceptions.file,
        exceptions=excepts.applied_list(options.exceptions, merger.matches),
        exceptions_notes=options.exceptions.notes,
    )
