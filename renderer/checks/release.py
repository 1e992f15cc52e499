"""Release check of a version: Typha contract, release rules and schema validation.

A version is release-ready when it is Typha-capable, no error-severity rule fires on
its Typha-on render and every rendered object passes strict schema validation on the
chosen Kubernetes versions. A version without Typha is never release-ready, since it
cannot serve clusters above 50 nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from renderer.bke.context import UnreachableKey
from renderer.calico import policy
from renderer.calico.capability import CapabilityReport
from renderer.calico.fidelity import FidelityResult
from renderer.checks import exceptions as excepts
from renderer.checks.rules import Finding, RuleInput, blocking, run_rules
from renderer.data import schemas
from renderer.k8s.schema import SchemaFinding, SchemaValidator, errors, schema_sort_key

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A finding of any stage (a dataclass with a severity).
F = TypeVar("F", bound="DataclassInstance")

#: The node count rules judge: the smallest cluster that gets Typha (3 replicas).
RULE_NODES = policy.TYPHA_NODE_THRESHOLD + 1


@dataclass(frozen=True)
class ReleaseReport:
    capability: CapabilityReport
    rules: tuple[Finding, ...]
    schema: tuple[SchemaFinding, ...]
    kube_versions: tuple[str, ...]
    nodes: int = RULE_NODES
    #: The comparison with upstream (``--upstream``); its errors block the release.
    fidelity: FidelityResult | None = None
    #: Keys the templates read that no BKE config can set (warnings, never blocking).
    context: tuple[UnreachableKey, ...] = ()
    #: The exceptions file read (None: none) and every exception with its matches.
    exceptions_file: str | None = None
    exceptions: tuple[excepts.Applied, ...] = field(default=())

    @property
    def release_ready(self) -> bool:
        faithful = self.fidelity is None or self.fidelity.errors == 0
        return (
            self.capability.capable
            and not blocking(self.rules)
            and not errors(self.schema)
            and faithful
        )

    @property
    def exception_warnings(self) -> list[str]:
        """One warning per exception that matched no finding."""
        return [
            excepts.unmatched_message(a, self.exceptions_file)
            for a in self.exceptions
            if not a.matches
        ]

    def to_dict(self) -> dict[str, Any]:
        out = self.capability.to_dict()
        out["contract"] = [_nulls(item, ("detail",)) for item in out["contract"]]
        out["rules"] = {
            "nodes": self.nodes,
            "applied": not self.capability.legacy,
            "findings": [
                _nulls(f.to_dict(), ("object", "field", "file", "line")) for f in self.rules
            ],
        }
        out["schema"] = {
            v: {
                "errors": sum(
                    1 for f in self.schema if f.kube_version == v and f.severity == "error"
                ),
                "findings": [
                    _nulls(f.to_dict(), ("namespace", "path", "file", "line"))
                    for f in self.schema
                    if f.kube_version == v
                ],
            }
            for v in self.kube_versions
        }
        out["context"] = {"findings": [u.to_dict() for u in self.context]}
        out["kube_versions"] = list(self.kube_versions)
        if self.fidelity is not None:
            out["fidelity"] = self.fidelity.to_dict(findings=True)
        out["exceptions"] = {
            "file": self.exceptions_file,
            "entries": [a.to_dict() for a in self.exceptions],
            "warnings": self.exception_warnings,
        }
        out["release_ready"] = self.release_ready
        schemas.validate_output(schemas.CAPABILITY_REPORT, out)
        return out


def _nulls(data: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """``data`` with the unset values of ``keys`` ("" or line 0) as null."""
    return {k: (None if k in keys and v in ("", 0) else v) for k, v in data.items()}


def release_rules(report: CapabilityReport) -> list[Finding]:
    """The release rules on the contract's Typha-on render for :data:`RULE_NODES`."""
    on = report.typha_on(policy.decide_typha(RULE_NODES).replicas)
    return run_rules(RuleInput(on.objects, report.version, on.context, RULE_NODES))


def assess_release(
    report: CapabilityReport,
    kube_versions: Sequence[str] | None = None,
    context: Sequence[UnreachableKey] = (),
) -> ReleaseReport:
    """Check a version for release from its capability ``report``: the rules on its
    Typha-on render (3 replicas), and every object of every render the report holds
    schema-checked once per Kubernetes version. ``context`` findings (see
    :func:`renderer.checks.gate.context_findings`) are carried into the report.
    """
    validator = SchemaValidator(kube_versions)
    seen: set[tuple[str, str, str, str, str, str]] = set()
    schema: list[SchemaFinding] = []
    for scenario in report.scenarios:
        for f in validator.validate_all(scenario.objects):
            key = (f.kube_version, f.kind, f.namespace, f.name, f.path, f.message)
            if key not in seen:
                seen.add(key)
                schema.append(f)
    schema.sort(key=schema_sort_key)
    # A legacy version passes check as legacy with the rules not applied; say the same.
    findings = [] if report.legacy else release_rules(report)
    return ReleaseReport(
        report, tuple(findings), tuple(schema), validator.kube_versions, context=tuple(context)
    )


#: The rule id of a schema error, as the check report names it.
SCHEMA_RULE = "schema-invalid"


def apply_exceptions(report: ReleaseReport, found: excepts.ExceptionSet) -> ReleaseReport:
    """``report`` with reviewed exceptions applied to its rule, schema, context and
    fidelity findings (skipped, or downgraded), as ``check`` applies them, and listed."""
    items = found.items
    version = report.capability.version
    counts: dict[int, int] = {}

    def decide(rule: str) -> excepts.RuleException | None:
        hit = excepts.match(items, rule, version)
        if hit is not None:
            index = items.index(hit)
            counts[index] = counts.get(index, 0) + 1
        return hit

    def apply(findings: Sequence[F], rule_of: Callable[[F], str | None]) -> list[F]:
        """``findings`` less the skipped ones, the downgraded ones replaced (with the
        exception's reason where the finding carries one)."""
        out = []
        for f in findings:
            rule = rule_of(f)
            hit = decide(rule) if rule is not None else None
            if hit is None:
                out.append(f)
            elif hit.severity is not None:
                changes: dict[str, Any] = {"severity": hit.severity}
                if hasattr(f, "exception"):
                    changes["exception"] = hit.reason
                out.append(replace(f, **changes))
        return out

    rules = apply(report.rules, lambda f: f.rule)
    context = apply(report.context, lambda u: u.rule)
    schema = apply(report.schema, lambda sf: SCHEMA_RULE if sf.severity == "error" else None)
    fid = report.fidelity
    if fid is not None:
        fid = replace(fid, findings=apply(fid.findings, lambda ff: ff.id))
    applied = excepts.applied_list(found, [[(i, version, n) for i, n in sorted(counts.items())]])
    return replace(
        report,
        rules=tuple(rules),
        schema=tuple(schema),
        context=tuple(context),
        fidelity=fid,
        exceptions_file=found.file,
        exceptions=tuple(applied),
    )
