"""The render's document: what a render decided and found, for a service (JSON) and for
a person (the lines printed on stderr beside the manifest)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from renderer.calico import policy
from renderer.finding import Finding
from renderer.output import Document
from renderer.output.findings import findings_list, report_header, scale_line, severity_counts

if TYPE_CHECKING:
    from renderer.api.results import RenderResult

RENDER = "render-result.schema.json"


@dataclass(frozen=True)
class RenderDocument(Document):
    """What a render decided and found, for a service: the version and tree, the Typha
    decision with its reason, the routing (and a refusal), every finding, what each
    node role pre-pulls, and the files written with their SHA-256. The manifest itself
    is not part of it (it goes to ``--output-dir``, or stdout in text form)."""

    schema = RENDER

    manifests: str
    version: str
    nodes: int
    route: policy.Route
    findings: tuple[Finding, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    kube_versions: tuple[str, ...] = ()
    #: Role -> the images a node of that role pre-pulls (empty when refused).
    images: dict[str, list[str]] | None = None
    #: Path -> SHA-256 of each file written.
    written: dict[str, str] | None = None
    exit_code: int = 0

    def data(self) -> dict[str, Any]:
        r = self.route
        d = r.decision
        return {
            **report_header("render"),
            "manifests": self.manifests,
            "version": self.version,
            "nodes": self.nodes,
            "decision": {**d.context(), "reason": d.reason},
            "routing": {
                "operation": r.operation,
                "capable": r.capable,
                "refused": r.refused,
                "compatibility": r.compatibility,
                "message": r.message or None,
            },
            "kube_versions": list(self.kube_versions),
            "exit_code": self.exit_code,
            "summary": severity_counts(self.findings),
            "findings": findings_list(self.findings),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "images": self.images or {},
            "written": [{"path": p, "sha256": h} for p, h in sorted((self.written or {}).items())],
        }

    @classmethod
    def of(
        cls, result: RenderResult, manifests: str, written: dict[str, str] | None = None
    ) -> RenderDocument:
        """A Calico render's document (``render --version``)."""
        return cls(
            manifests,
            result.version.name,
            result.decision.nodes,
            result.route,
            findings=result.findings,
            warnings=(*result.warnings, *(w.message for w in result.param_warnings)),
            notes=result.notes,
            kube_versions=result.kube_versions,
            images={role: list(found) for role, found in result.prepull().items()},
            written=written or {},
            exit_code=result.exit_code,
        )

    def text(self) -> str:
        """The lines the command line prints on stderr: notes, warnings, the decision
        line, then every finding (and why nothing was written)."""
        d = self.route.decision
        lines = [f"calico-render: {n}" for n in self.notes]
        lines += [f"calico-render: warning: {w}" for w in self.warnings]
        if not self.route.refused:
            lines.append(
                f"calico-render: Calico {self.version} ({self.manifests}): "
                f"allowTypha={d.context()['allowTypha']} "
                f"typhaReplicas={d.context()['typhaReplicas']} ({d.reason})"
            )
        lines += [
            f"calico-render: {scale_line(f) if f.stage == 'scale' else f}" for f in self.findings
        ]
        errors = sum(1 for f in self.findings if f.severity == "error")
        if errors:
            lines.append(f"calico-render: {errors} error finding(s); nothing written")
        return "".join(f"{line}\n" for line in lines)
