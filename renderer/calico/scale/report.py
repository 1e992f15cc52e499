"""What ``advise`` returns: the version, the inputs, the findings and the notes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.calico.scale.facts import ScaleInputs
from renderer.finding import Finding


@dataclass
class AdviceReport:
    """Scale advice for one version and cluster; ``version`` None: no Calico to advise on."""

    version: str | None
    manifests: str
    inputs: ScaleInputs | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: User-given params the version ignores (also in ``notes``), for ``--strict``.
    param_warnings: Sequence[Any] = ()

    @property
    def passed(self) -> bool:
        """No limit exceeded (warnings do not fail)."""
        return not any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, int]:
        return {
            s: sum(1 for f in self.findings if f.severity == s)
            for s in ("error", "warning", "info")
        }
