"""The check and release reports: plain dataclasses and their JSON data.

Their text, JSON and JUnit forms are documents of :mod:`renderer.output`
(:mod:`renderer.output.check`, :mod:`renderer.output.capability`), pure functions of
these reports, so every format says the same thing and text and JSON are byte-identical
across runs (sorted, no times). Only JUnit carries each version's measured time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.checks.exceptions import DEVIATION, Applied, ExceptionSet, verdicts
from renderer.finding import (
    CAPABILITY,
    CONTEXT,
    COVERAGE,
    FIDELITY,
    GOLDENS,
    RULES,
    SCHEMA,
    TEMPLATES,
    Finding,
    blocking,
    merge_findings,
)
from renderer.manifests.tree import ADDON, BUNDLED_TREE, unit_label

if TYPE_CHECKING:
    from renderer.calico.capability import CapabilityReport
    from renderer.calico.fidelity import FidelityResult

PASS, FAIL, LEGACY, SKIP, MISSING, UPDATED = "pass", "fail", "legacy", "skip", "missing", "updated"
#: The goldens of an addon a tree adopted for Calico only has not written yet: said in
#: one line with the command that writes them, not a failure.
NEW = "new"
#: How reports show a stage a version's addon does not have (Calico's Typha contract
#: for another addon): never a status of a result, only of its display.
NOT_APPLICABLE = "n/a"
#: The status columns of a check report, in its order (the stages that run, and the
#: order they list findings in: :data:`renderer.checks.pipeline.GATE`). FIDELITY is
#: the column ``--upstream`` adds; without it a report has no trace of it.
STAGES = (TEMPLATES, CAPABILITY, RULES, SCHEMA, COVERAGE, GOLDENS)
_GOOD = {PASS, LEGACY, SKIP, UPDATED, NEW}

#: The goldens stage's rule ids (:mod:`renderer.checks.golden` finds them).
GOLDEN_CHANGED = "golden-changed"
GOLDEN_TEXT_CHANGED = "golden-text-changed"
GOLDEN_MISSING = "golden-missing"
GOLDEN_LAYOUT = "golden-layout"
GOLDEN_STALE = "golden-stale"
#: Goldens ``--update-golden`` could not write.
GOLDENS_ERROR = "goldens-error"


# --- golden differences (:mod:`renderer.checks.golden` finds them) ---------------------


@dataclass(frozen=True)
class FileChange:
    """One golden file that would be added, modified or removed."""

    path: str
    change: str  # "added" | "modified" | "removed"


@dataclass(frozen=True)
class ObjectChange:
    """What differs in a golden: a field of a Kubernetes object (``path``), or a whole
    object, decision or file (empty ``path``); ``old``/``new`` are None when absent.

    ``ref`` is ``Kind namespace/name``, ``decision.json`` or a file name; ``file`` and
    ``line`` the template line it is located at (relative to ROOT).
    """

    ref: str
    path: str
    old: str | None
    new: str | None
    scenarios: tuple[str, ...] = ()
    note: str = ""
    file: str = ""
    line: int = 0

    def describe(self) -> str:
        if self.note:
            return f"{self.ref}: {self.note}"
        old = "(none)" if self.old is None else self.old
        new = "(none)" if self.new is None else self.new
        if not self.path:
            if self.old is None:
                return f"{self.ref}: added"
            if self.new is None:
                return f"{self.ref}: removed"
            return f"{self.ref}: {old} → {new}"
        return f"{self.ref} {self.path}: {old} → {new}"

    @property
    def where(self) -> str:
        """``file:line`` ("" when not located)."""
        if not self.file:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_dict(self) -> dict[str, Any]:
        return {
            "object": self.ref,
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "scenarios": list(self.scenarios),
            "summary": self.describe(),
            "location": None if not self.file else {"path": self.file, "line": self.line or None},
        }


@dataclass
class ScenarioResult:
    """A rendered scenario, its decision and whether its goldens matched."""

    name: str
    nodes: int
    operation: str
    decision: dict[str, Any]
    golden: str = SKIP
    changes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class GoldenResult:
    """The golden comparison of a version; ``command`` creates missing goldens."""

    status: str = SKIP
    directory: str = ""
    #: The unified diff of every golden file that differs (files only one side has
    #: are named in ``files``, not shown).
    diff: str = ""
    changes: list[ObjectChange] = field(default_factory=list)
    #: What an update writes or removes, as the files are on disk.
    files: list[FileChange] = field(default_factory=list)
    command: str = ""
    #: ``diff`` per golden file (path -> its diff), so each scenario can show its own.
    file_diffs: dict[str, str] = field(default_factory=dict, repr=False)
    #: Directories of the merged layout of earlier releases found (``common``, ``a+b``).
    merged: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "directory": self.directory or None,
            "merged_layout": list(self.merged),
            "files": [asdict(f) for f in self.files],
            "object_changes": [c.to_dict() for c in self.changes],
            "diff": self.diff or None,
            "command": self.command or None,
        }


@dataclass
class VersionResult:
    """Everything the gate found about one version directory."""

    version: str
    files: list[str]
    dialect: str
    #: The contract items the version misses (legacy or incomplete Typha templates).
    missing: list[str] = field(default_factory=list)
    stages: dict[str, str] = field(default_factory=lambda: dict.fromkeys(STAGES, SKIP))
    findings: list[Finding] = field(default_factory=list)
    scenarios: list[ScenarioResult] = field(default_factory=list)
    golden: GoldenResult = field(default_factory=GoldenResult)
    #: The rendered golden tree, kept for ``--update-golden``; not part of the report.
    rendered: dict[str, str] | None = field(default=None, repr=False, compare=False)
    #: The fidelity comparison (upstream folder, status, scenarios, counts), when run.
    fidelity: dict[str, Any] | None = None
    #: Scenarios, template branches, and those no scenario renders (counts), when run.
    coverage: dict[str, Any] | None = None
    #: Exceptions applied to this version: (rule, severity or None, reason, findings).
    exceptions: list[tuple[str, str | None, str, int]] = field(default_factory=list)
    #: Wall-clock seconds the version took; JUnit only (text and JSON stay deterministic).
    seconds: float = field(default=0.0, compare=False)
    #: Each template's text by file name, so a report can show the lines around a
    #: finding (HTML); not part of the JSON.
    sources: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: The addon whose version this is (``kubernetes/<addon>/<version>/``).
    addon: str = ADDON
    #: What the schema stage saw: distinct objects, those validated against a
    #: Kubernetes or CRD schema, those no schema covers, and their kinds.
    objects: dict[str, Any] | None = None
    #: The stages of the gate that run for this version's addon, in the order they run
    #: (some have no status column: context).
    ran: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """How reports name this version (:func:`unit_label`)."""
        return unit_label(self.addon, self.version)

    @property
    def stage_names(self) -> tuple[str, ...]:
        """The stages that ran for this result's addon, in :data:`STAGES` order, and
        fidelity with ``--upstream`` (Calico's Typha contract only for Calico)."""
        return tuple(s for s in (*STAGES, FIDELITY) if s in self.stages)

    @property
    def capable(self) -> bool | None:
        """Whether the Typha contract holds; None when the capability stage did not run
        (or does not apply: an addon other than Calico)."""
        status = self.stages.get(CAPABILITY, SKIP)
        return None if status == SKIP else status == PASS

    @property
    def legacy(self) -> bool:
        """No Typha templates at all: passes as legacy, release rules not applied."""
        return self.stages.get(CAPABILITY) == LEGACY

    @property
    def passed(self) -> bool:
        return all(status in _GOOD for status in self.stages.values())

    @property
    def failed_stages(self) -> list[str]:
        """The stages that did not pass (nor pass as legacy, skip or update), in order."""
        return [s for s in self.stage_names if self.stages.get(s, SKIP) not in _GOOD]


@dataclass
class StaleGolden:
    """Goldens for a version that is not in the tree: a failure until ``--update-golden``
    removes them (status ``updated``)."""

    version: str
    directory: str
    files: list[str]
    command: str
    status: str = FAIL
    #: The directory as findings name it (relative to ROOT for a tree's own goldens).
    shown: str = ""
    #: The addon the goldens were written for.
    addon: str = ADDON

    @property
    def label(self) -> str:
        return unit_label(self.addon, self.version)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["shown"]
        return data


class AppliedKinds:
    """The applied entries of an exceptions file, apart by kind (a report's
    ``exceptions`` holds both)."""

    exceptions: Sequence[Applied]

    @property
    def rule_exceptions(self) -> list[Applied]:
        """The reviewed exceptions of rules, as applied."""
        return [a for a in self.exceptions if a.exception.kind != DEVIATION]

    @property
    def deviations(self) -> list[Applied]:
        """The declared deviations from upstream, as applied."""
        return [a for a in self.exceptions if a.exception.kind == DEVIATION]


@dataclass
class CheckReport(AppliedKinds):
    """The whole gate: one result per version, in version order."""

    manifests: str
    golden: str
    kube_versions: list[str]
    versions: list[VersionResult] = field(default_factory=list)
    update: bool = False
    #: Golden directories of versions not in the tree, in version order.
    stale: list[StaleGolden] = field(default_factory=list)
    #: ``--upstream DIR`` as given, when the fidelity stage ran.
    upstream: str | None = None
    #: The exceptions file read (None: none) and every exception with its matches.
    exceptions_file: str | None = None
    exceptions: list[Applied] = field(default_factory=list)
    #: Notes on the exceptions file itself (an empty file).
    exceptions_notes: tuple[str, ...] = ()

    def _verdicts(self) -> tuple[list[str], list[str]]:
        excepts = ExceptionSet(
            self.exceptions_file, tuple(a.exception for a in self.exceptions), self.exceptions_notes
        )
        stages = {v.label: v.stages for v in self.versions}
        return verdicts(excepts, self.exceptions, stages)

    @property
    def addons(self) -> list[str]:
        """The addons checked, in report order (Calico first, then by name)."""
        return list(dict.fromkeys(v.addon for v in self.versions))

    def of_addon(self, addon: str) -> list[VersionResult]:
        """The results of one addon's versions, in version order."""
        return [v for v in self.versions if v.addon == addon]

    @property
    def only_calico(self) -> bool:
        """Whether Calico alone was checked: its reports read as they always have."""
        return all(v.addon == ADDON for v in self.versions) and all(
            s.addon == ADDON for s in self.stale
        )

    @property
    def new_goldens(self) -> list[str]:
        """The addons whose goldens a tree adopted for Calico only has yet to write."""
        return list(dict.fromkeys(v.addon for v in self.versions if v.golden.status == NEW))

    @property
    def exception_warnings(self) -> list[str]:
        """One warning per exception that matched nothing where its stage ran."""
        return self._verdicts()[0]

    @property
    def exception_notes(self) -> list[str]:
        """Exceptions whose stage ran on none of their versions, and an empty file."""
        return self._verdicts()[1]

    @property
    def stale_failed(self) -> list[str]:
        return [s.label for s in self.stale if s.status == FAIL]

    @property
    def passed(self) -> bool:
        return (
            bool(self.versions) and all(v.passed for v in self.versions) and not self.stale_failed
        )

    @property
    def findings(self) -> list[Finding]:
        """Every version's findings, in version order."""
        return [f for v in self.versions for f in v.findings]


# --- the release report (``capability``) ---------------------------------------------


@dataclass(frozen=True)
class ReleaseReport(AppliedKinds):
    """One version checked for release: the Typha contract, the rules on its Typha-on
    render, strict schemas per Kubernetes version, context, fidelity and exceptions.

    A version without Typha is never release-ready: it cannot serve clusters above 50
    nodes.
    """

    capability: CapabilityReport
    rules: tuple[Finding, ...]
    schema: tuple[Finding, ...]
    kube_versions: tuple[str, ...]
    nodes: int
    #: The comparison with upstream; its errors block the release.
    fidelity: FidelityResult | None = None
    #: Keys the templates read that no BKE config can set (warnings, never blocking).
    context: tuple[Finding, ...] = ()
    #: The exceptions file read (None: none) and every exception with its matches.
    exceptions_file: str | None = None
    exceptions: tuple[Applied, ...] = field(default=())
    exceptions_notes: tuple[str, ...] = ()
    #: The tree checked, as reports name it (:func:`renderer.manifests.tree.tree_label`).
    manifests: str = BUNDLED_TREE
    #: Each template's text by file name (the lines around a finding); not in the JSON.
    sources: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: The contract's failures, located (what check reports in its capability stage).
    contract: tuple[Finding, ...] = ()
    #: The scenarios rendered (as check renders them): rules and schemas ran on each.
    scenarios: tuple[str, ...] = ()
    #: Template branches no scenario renders (the coverage stage), and the counts.
    coverage: tuple[Finding, ...] = ()
    coverage_counts: dict[str, Any] = field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        """Every stage's findings, identical ones merged (a schema problem on every
        Kubernetes version is one finding): the contract items an incomplete version
        misses, rules, context, schema, fidelity."""
        fid = () if self.fidelity is None else tuple(self.fidelity.findings)
        contract = self.contract
        found = [*contract, *self.rules, *self.context, *self.schema, *self.coverage, *fid]
        return merge_findings(found)

    @property
    def release_ready(self) -> bool:
        faithful = self.fidelity is None or self.fidelity.errors == 0
        return (
            self.capability.capable
            and not blocking(self.rules)
            and not blocking(self.schema)
            and not blocking(self.coverage)
            and faithful
        )

    def _verdicts(self) -> tuple[list[str], list[str]]:
        cap = self.capability
        excepts = ExceptionSet(
            self.exceptions_file, tuple(a.exception for a in self.exceptions), self.exceptions_notes
        )
        statuses = {
            CAPABILITY: LEGACY if cap.legacy else (PASS if cap.capable else FAIL),
            RULES: SKIP if cap.legacy else PASS,
            SCHEMA: PASS,
            COVERAGE: PASS,
            CONTEXT: PASS,
        }
        if self.fidelity is not None:
            statuses[FIDELITY] = PASS
        stages = {cap.version: statuses}
        return verdicts(excepts, self.exceptions, stages, "not the version checked")

    @property
    def exception_warnings(self) -> list[str]:
        """One warning per exception that matched nothing where its stage ran."""
        return self._verdicts()[0]

    @property
    def exception_notes(self) -> list[str]:
        """Exceptions whose stage did not run on this version, and an empty file."""
        return self._verdicts()[1]
