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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from renderer import errors
from renderer.calico import fidelity
from renderer.checks import exceptions as excepts
from renderer.checks import golden
from renderer.checks.addons import addon_cluster
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
    SchemaInput,
    SchemaResults,
    SchemaSeen,
    awaits_crds,
    check_inputs,
    seen,
    validate_objects,
)
from renderer.engine import limits
from renderer.errors import CalicoRenderError, InputError
from renderer.finding import TEMPLATES
from renderer.k8s import schema as kubeschema
from renderer.k8s.libyaml import C_LOADER
from renderer.manifests.tree import (
    ADDON,
    VersionDir,
    list_addons,
    list_versions,
    tree_label,
    unit_label,
)
from renderer.store.files import exclusive_lock


@dataclass
class Prepared:
    """What a version's preparation hands back: its result (every stage but schema),
    its objects of Kubernetes' own groups validated and located, and its custom
    resources, which wait for every version's CRDs. What only this process needed is
    left out (the rendered goldens unless updating, the templates' text)."""

    result: VersionResult
    checked: SchemaSeen = field(default_factory=SchemaSeen)
    waiting: list[SchemaInput] = field(default_factory=list)


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
    ready = [i for i in inputs if not awaits_crds(i)]
    checked = check_inputs(options.kube_versions, ready)
    result.seconds = time.monotonic() - start
    result.sources = {}  # read again where the report is made
    if not options.update:
        result.rendered = None
    return Prepared(result, checked, [i for i in inputs if awaits_crds(i)])


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

    def waiting(self) -> list[tuple[str, dict[str, Any]]]:
        """The custom resources every prepared version waits for, each object once."""
        out: dict[str, dict[str, Any]] = {}
        for label in self.versions:
            for i in self.prepared[label].waiting:
                out.setdefault(i.digest, i.obj.data)
        return list(out.items())

    def validated(self, results: SchemaResults) -> None:
        """Finish every version left, its custom resources validated as ``results``."""
        for label in list(self.versions)[len(self.finished) :]:
            self.finish(label, seen(self.prepared[label].waiting, results))

    def finish(self, label: str, more: SchemaSeen) -> None:
        self.finished.append(label)
        prepared = self.prepared[label]
        result = prepared.result
        items = self.options.exceptions.items
        self.matches.append(finish_version(result, prepared.checked + more, items))
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
    """Prepare every version in ``options.jobs`` processes (checking what needs no CRD
    there), then validate the custom resources they wait for."""
    kube = options.kube_versions
    jobs = max(1, min(options.jobs, len(versions) or 1))
    if jobs == 1:
        for version in versions:
            merger.add(_label(version), prepare(version, options))
        merger.validated(validate_objects(kube, merger.waiting()))
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
        found: SchemaResults = {}
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
                for chunk in chunks(merger.waiting(), jobs):
                    submit(_VALIDATED, validate_objects, kube, chunk)
                    pending += 1
        merger.validated(found)
        pool.close()
        pool.join()
    finally:
        # Ctrl-C, SIGTERM or an error: the workers end now, not after their tasks, and
        # hold nothing (locks, files) once the check returns or raises
        pool.terminate()
        pool.join()


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
