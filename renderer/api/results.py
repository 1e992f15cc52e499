"""What a render returns: plain results that :mod:`renderer.output` turns into documents
(text, JSON) and the CLI prints. The other verbs' results are
:mod:`renderer.api.verb_results`, imported on first use."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.calico import policy
from renderer.finding import Finding, merge_findings
from renderer.k8s.parse import K8sObject, parse_rendered
from renderer.k8s.schema import errors
from renderer.manifests.tree import VersionDir

if TYPE_CHECKING:
    from renderer.bke import context as bke_context
    from renderer.bke import unread
    from renderer.engine.render import RenderedFile


@dataclass(frozen=True)
class RenderResult:
    """A rendered version with the decision that shaped it."""

    version: VersionDir
    files: list[RenderedFile]
    context: dict[str, Any]
    route: policy.Route
    warnings: list[str] = field(default_factory=list)
    #: Each file's context and where its values came from (None: one context for all).
    contexts: bke_context.VersionContexts | None = None
    #: User-given params no template reads, or whose value takes no branch.
    param_warnings: tuple[unread.ParamWarning, ...] = ()
    #: Values that changed the YAML a template wrote (``context-value-injects-yaml``).
    findings: tuple[Finding, ...] = ()

    @property
    def decision(self) -> policy.TyphaDecision:
        return self.route.decision

    def stream(self) -> str:
        from renderer.engine.render import join_stream

        return join_stream(self.files)

    @cached_property
    def objects(self) -> tuple[K8sObject, ...]:
        """The rendered objects, parsed once (on first use) with their file and line."""
        return tuple(parse_rendered(self.files))


class RenderCheck(NamedTuple):
    """Strict schema findings for a render; ``ok`` says whether it may be written."""

    kube_versions: tuple[str, ...]
    findings: tuple[Finding, ...]

    @property
    def errors(self) -> list[Finding]:
        """The error findings, one per problem whatever the Kubernetes versions."""
        return errors(merge_findings(self.findings))

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        """The one line explaining why nothing was written (when not ``ok``)."""
        return (
            f"{len(self.errors)} schema error(s) on Kubernetes "
            f"{', '.join(self.kube_versions)}; nothing written"
        )
