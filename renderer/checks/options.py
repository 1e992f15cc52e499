"""What a check run is asked to do: the tree, the goldens, the Kubernetes versions,
the jobs, upstream and the reviewed exceptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from renderer.checks import exceptions as excepts

#: Where a tree's goldens live when none are named: ``ROOT/golden/calico``.
TREE_GOLDEN = Path("golden") / "calico"


@dataclass(frozen=True)
class CheckOptions:
    """What to check: ROOT (None: bundled), the golden root and the Kubernetes versions."""

    root: Path | None
    golden: Path
    kube_versions: tuple[str, ...] = ()
    #: Whether Kubernetes versions were asked for (so the update command repeats them).
    kube_args: bool = False
    update: bool = False
    jobs: int = 1
    #: How the manifests and goldens are shown in the command that creates goldens.
    manifests_arg: str | None = None
    golden_arg: str | None = None
    #: Compare each version with upstream's manifests in this directory.
    upstream: Path | None = None
    upstream_arg: str | None = None
    #: Reviewed exceptions (ROOT/.calico-render.yaml or a named file).
    exceptions: excepts.ExceptionSet = field(default_factory=excepts.ExceptionSet)
    #: Branches no scenario renders are errors, not warnings.
    strict: bool = False
