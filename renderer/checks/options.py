"""What a check run is asked to do: the tree, the goldens, the Kubernetes versions,
the jobs, upstream and the reviewed exceptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from renderer.checks import exceptions as excepts
from renderer.errors import InputError
from renderer.manifests.tree import ADDON, semver_key

#: Where a tree's goldens live when none are named: ``ROOT/golden/calico``.
TREE_GOLDEN = Path("golden") / "calico"


def _version_dirs(directory: Path) -> list[str]:
    """Names of the subdirectories of ``directory`` named like a version."""
    try:
        return [p.name for p in directory.iterdir() if p.is_dir() and semver_key(p.name)[0] == 0]
    except OSError:
        return []


def refuse_misplaced(golden: Path) -> None:
    """Bad input when a named golden directory holds goldens laid out for another
    location: ``golden/`` holding ``calico/<version>/`` (the goldens are one level down),
    or one version's goldens (one level up). Comparing there would report every
    version MISSING, and the suggested update would write a second golden set."""
    if not golden.is_dir() or _version_dirs(golden):
        return
    inner = golden / TREE_GOLDEN.name
    if _version_dirs(inner):
        raise InputError(
            f"holds no <version>/ but {TREE_GOLDEN.name}/<version>/: the goldens are in "
            f"{inner} (name that directory, or leave the golden directory out: a tree's "
            f"goldens are ROOT/{TREE_GOLDEN.as_posix()}/)",
            file=str(golden),
            key="golden",
            argument="golden",
        )
    if semver_key(golden.name)[0] == 0 and any(
        (golden / name).is_dir() for name in ("common", "nodes-50")
    ):
        raise InputError(
            f"is the goldens of one version: the goldens are in {golden.parent} "
            "(the directory holding <version>/)",
            file=str(golden),
            key="golden",
            argument="golden",
        )


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
    #: The addons to check (``--addon``); empty: every addon of the tree.
    addons: tuple[str, ...] = ()
    #: The representative BKECluster (and BKENodes) every addon but Calico renders
    #: with: its controller's context (None: the create request the package ships).
    config: Path | None = None
    config_arg: str | None = None

    #: The tree's goldens are Calico's alone (it adopted the gate when it checked
    #: Calico only): another addon without goldens is ``new``, not a failure.
    calico_only_goldens: bool = False

    @property
    def goldens_root(self) -> Path:
        """``ROOT/golden``: where every addon's goldens live (Calico's unless named)."""
        base = self.root if self.root is not None else self.golden.parent
        return base / TREE_GOLDEN.parent

    def golden_dir(self, addon: str = ADDON) -> Path:
        """Where the goldens of ``addon`` live: Calico's in :attr:`golden` (named with
        ``--golden``, the bundled goldens for the bundled tree, else
        ``ROOT/golden/calico``), every other addon's in ``ROOT/golden/<addon>``."""
        return self.golden if addon == ADDON else self.goldens_root / addon
