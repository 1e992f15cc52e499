"""What the library's verbs return: plain results that :mod:`renderer.output` turns into
documents (text, JSON) and the command line prints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renderer.bke import context as bke_context
from renderer.bke import unread
from renderer.calico import images, policy
from renderer.calico.capability import CapabilityReport
from renderer.calico.policy import TyphaDecision
from renderer.engine.render import RenderedFile, join_stream
from renderer.errors import EXIT_CHECK_FAILED, EXIT_OK
from renderer.finding import ERROR, Finding
from renderer.k8s.parse import K8sObject
from renderer.k8s.schema import NOT_CHECKED_RULE, errors
from renderer.manifests.tree import VersionDir

if TYPE_CHECKING:
    from renderer.api.request import Request


@dataclass(frozen=True)
class RenderResult:
    """A rendered version with the decision that shaped it and everything found wrong
    with what it renders: the one answer of :func:`renderer.api.verbs.render`.

    ``findings`` are every stage's (values that change the YAML their template wrote,
    keys no config can fill, objects rendered twice, strict schema findings, the scale
    advice as warnings, params that change nothing); ``exit_code`` is what the command
    line exits with: 1 when any is an error, and then nothing is written.
    """

    version: VersionDir
    files: tuple[RenderedFile, ...]
    #: The context of the first rendered file (every file's: :attr:`contexts`).
    context: Mapping[str, Any]
    route: policy.Route
    contexts: bke_context.VersionContexts
    #: Lines a reader should see before the decision (overridden keys, routing notes).
    warnings: tuple[str, ...] = ()
    #: User-given params no template reads, or whose value takes none of the compared branches.
    param_warnings: tuple[unread.ParamWarning, ...] = ()
    findings: tuple[Finding, ...] = ()
    #: The rendered objects (empty when a value changed the YAML: nothing is parsed then).
    objects: tuple[K8sObject, ...] = ()
    #: The Kubernetes versions the objects were schema-checked against (empty: none).
    kube_versions: tuple[str, ...] = ()
    #: Notes about the request itself (what counted as the node count, the schema
    #: versions chosen from the config).
    notes: tuple[str, ...] = ()

    @property
    def decision(self) -> policy.TyphaDecision:
        return self.route.decision

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def exit_code(self) -> int:
        """0 when nothing is wrong enough to stop the render, else 1 (nothing written)."""
        return EXIT_CHECK_FAILED if self.errors else EXIT_OK

    def stream(self) -> str:
        """The render as one multi-document stream (``helm template``'s layout)."""
        return join_stream(list(self.files), self.version.addon)

    def prepull(self) -> dict[str, tuple[str, ...]]:
        """Node role -> the Calico images a node of that role pre-pulls, read from the
        calico-node DaemonSet this render holds (nothing when it holds none)."""
        return images.images_by_role(o.data for o in self.objects)

    def texts(self) -> dict[str, str]:
        """Each template file's render by its name below the version directory."""
        return {f.name.split("/", 1)[1]: f.text for f in self.files}


@dataclass(frozen=True)
class AddonResult:
    """One addon's version rendered as BKE's controller renders it, and everything found
    wrong with it: the answer of :func:`renderer.api.render_addon`.

    Unlike :class:`RenderResult` a file that fails does not stop the others: ``failed``
    names each (its finding says why), ``files`` are the ones that rendered. ``decision``
    is Calico's Typha decision (None for any other addon); ``notes`` say what the
    controller does for the addon that a reader should know (placeholders for values it
    reads from a live cluster, scripts it would not run)."""

    version: VersionDir
    files: tuple[RenderedFile, ...]
    contexts: bke_context.VersionContexts
    findings: tuple[Finding, ...] = ()
    objects: tuple[K8sObject, ...] = ()
    failed: tuple[str, ...] = ()
    kube_versions: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    param_warnings: tuple[unread.ParamWarning, ...] = ()
    notes: tuple[str, ...] = ()
    decision: TyphaDecision | None = None

    @property
    def addon(self) -> str:
        return self.version.addon

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def exit_code(self) -> int:
        """0 when nothing is wrong enough to stop the render, else 1."""
        return EXIT_CHECK_FAILED if self.errors or self.failed else EXIT_OK

    def stream(self) -> str:
        """The files that rendered as one multi-document stream."""
        return join_stream(list(self.files), self.version.addon)

    def texts(self) -> dict[str, str]:
        """Each rendered file by its name below the version directory."""
        return {f.name.split("/", 1)[1]: f.text for f in self.files}


@dataclass(frozen=True)
class AddonImages:
    """The images a node of each BKE role pulls for one addon's version: those of every
    workload whose pods may be scheduled there (:mod:`renderer.bke.roles`), sorted;
    ``daemons`` those of the DaemonSets alone, which every such node runs."""

    addon: str
    version: str
    repo: str
    images: Mapping[str, tuple[str, ...]]
    daemons: Mapping[str, tuple[str, ...]]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListedAddon:
    """One addon a BKECluster lists, in the controller's order: its request, or why the
    controller renders nothing from bke-manifests for it (``skipped``)."""

    name: str
    version: str
    where: str
    request: Request | None = None
    skipped: str = ""


@dataclass(frozen=True)
class ExplainResult:
    """Each file's context for a version and node count, with every value's origin."""

    contexts: bke_context.VersionContexts
    route: policy.Route
    warnings: tuple[str, ...]
    param_warnings: tuple[unread.ParamWarning, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The contexts as data (``renderer.output.documents.explain_json`` publishes
        them, the warnings as findings)."""
        d = self.route.decision
        return {
            "version": self.contexts.version,
            "nodes": d.nodes,
            "operation": self.route.operation,
            "decision": {**d.context(), "reason": d.reason},
            "files": self.contexts.to_dict()["files"],
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class TyphaResult:
    """The Typha decision for ``nodes``, or (``nodes`` None) for every boundary count."""

    nodes: int | None
    decisions: tuple[TyphaDecision, ...]


@dataclass(frozen=True)
class VersionEntry:
    """One version of a tree: its capability, or the error that stopped its render."""

    version: VersionDir
    capability: CapabilityReport | None
    error: str | None = None
    #: The context keys its templates read, when asked for.
    keys: tuple[str, ...] | None = None


@dataclass(frozen=True)
class VersionsResult:
    """The versions under a tree; ``manifests`` names the tree as reports do."""

    manifests: str
    versions: tuple[VersionEntry, ...]


@dataclass(frozen=True)
class Imported:
    """A version derived from upstream: its directory, files and, for a check, the
    difference from the directory on disk ("" when none)."""

    target: Path
    files: dict[str, str]
    diff: str = ""
    #: For a check: each choice given that differs from the one the directory records,
    #: and each upstream file whose checksum differs from the recorded one (one line each).
    differences: tuple[str, ...] = ()


@dataclass(frozen=True)
class Validation:
    """Strict schema findings for the objects of some manifest files, identical ones
    merged (one per file, object, field and message, listing its Kubernetes versions),
    and how many objects were valid, invalid, skipped or not schema-checked."""

    files: tuple[str, ...]
    kube_versions: tuple[str, ...]
    findings: tuple[Finding, ...]
    objects: int
    skipped: int = 0

    @property
    def errors(self) -> list[Finding]:
        return errors(self.findings)

    def resources(self) -> dict[str, int]:
        """Objects by outcome, as kubeconform counts resources."""

        def keys(rule: str | None) -> set[tuple[str, str]]:
            return {  # an object is its file and identity
                (f.file, str(f.object))
                for f in self.findings
                if (rule is None and f.severity == "error") or f.rule == rule
            }

        invalid = keys(None)
        unchecked = keys(NOT_CHECKED_RULE) - invalid
        checked = self.objects - self.skipped
        return {
            "valid": checked - len(invalid) - len(unchecked),
            "invalid": len(invalid),
            "skipped": self.skipped,
            "not_checked": len(unchecked),
        }
