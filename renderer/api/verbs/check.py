"""The check and capability verbs: the gate over every version of a tree, and one
version's release readiness; and the catalogue of rule ids."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from renderer.checks import exceptions as excepts
from renderer.checks.catalogue import RuleInfo, catalogue
from renderer.checks.options import TREE_GOLDEN, CheckOptions, refuse_misplaced
from renderer.checks.pipeline import release_check
from renderer.checks.report import CheckReport, ReleaseReport, VersionResult
from renderer.checks.runner import run_check
from renderer.data.bundled import bundled_golden, bundled_manifests
from renderer.errors import InputError
from renderer.k8s.schema import resolve_kube_versions
from renderer.manifests.tree import check_addon, resolve_version, tree_label


def rules() -> tuple[RuleInfo, ...]:
    """Every rule id a finding can carry, its stage and severity, and whether a reviewed
    exception may name it."""
    return tuple(catalogue().values())


def check(
    options: CheckOptions, progress: Callable[[VersionResult], None] | None = None
) -> CheckReport:
    """Check every version of every addon of a tree (``check``): templates, context,
    coverage, rules, schema and goldens for each, Calico's Typha contract, release rules
    (and fidelity) for Calico; ``progress`` sees each version as it finishes."""
    return run_check(options, progress)


def check_options(
    *,
    root: Path | None = None,
    golden: Path | None = None,
    kube_versions: Sequence[str] = (),
    update: bool = False,
    jobs: int | None = None,
    upstream: Path | None = None,
    exceptions_file: Path | None = None,
    strict: bool = False,
    addons: Sequence[str] = (),
    config: Path | None = None,
) -> CheckOptions:
    """What :func:`check` checks, from what a caller holds: a tree (None: the bundled
    one), its addons (default: every one), Calico's goldens (default: ROOT/golden/calico,
    or the bundled goldens for the bundled tree; every other addon's are
    ROOT/golden/<addon>), Kubernetes versions (default: the newest four), parallelism
    (default: the CPU count), an upstream directory and an exceptions file (default:
    ROOT's), the BKECluster (and BKENodes) the other addons render with (default: the
    create request the package ships); ``strict``: template branches no scenario renders
    fail the check."""
    for addon in addons:
        check_addon(addon)
    if golden is not None and golden.exists() and not golden.is_dir():
        raise InputError("not a directory", file=str(golden), key="golden", argument="golden")
    if golden is not None:
        refuse_misplaced(golden)
    return CheckOptions(
        root=root,
        golden=golden if golden is not None else default_golden(root),
        kube_versions=resolve_kube_versions(kube_versions),
        kube_args=bool(kube_versions),
        update=update,
        jobs=jobs if jobs is not None else default_jobs(),
        manifests_arg=str(root) if root is not None else None,
        golden_arg=str(golden) if golden is not None else None,
        upstream=upstream,
        upstream_arg=str(upstream) if upstream is not None else None,
        exceptions=excepts.load(excepts.find_file(root, exceptions_file)),
        strict=strict,
        addons=tuple(addons),
        config=config,
        config_arg=str(config) if config is not None else None,
    )


def default_golden(root: Path | None) -> Path:
    """A tree's own goldens (``ROOT/golden/calico``); the bundled goldens belong to the
    bundled tree only (also when it is named as ROOT, in a checkout), so a real tree is
    never compared with them."""
    if root is not None and root.resolve() != bundled_manifests().resolve():
        return root / TREE_GOLDEN
    try:
        return bundled_golden()
    except FileNotFoundError:
        # A checkout whose goldens were never generated: updating the goldens creates them.
        return Path(__file__).resolve().parents[1] / "golden"


def default_jobs() -> int:
    """How many versions :func:`check` checks at once by default: the CPU count."""
    return os.cpu_count() or 1


def capability(
    version: str,
    *,
    root: Path | None = None,
    kube_versions: Sequence[str] = (),
    exceptions_file: Path | None = None,
    upstream: Path | None = None,
    strict: bool = False,
) -> ReleaseReport:
    """Check one version for release (``capability``): the Typha contract, release rules,
    strict schemas, context, branch coverage (errors with ``strict``; and fidelity to
    ``upstream``), reviewed exceptions applied, on the scenarios :func:`check` renders."""
    kube = resolve_kube_versions(kube_versions)
    vdir = resolve_version(version, root)
    reviewed = excepts.load(excepts.find_file(root, exceptions_file))
    report = release_check(vdir, kube, reviewed, upstream, strict)
    return replace(report, manifests=tree_label(root))
