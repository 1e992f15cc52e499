"""What a stage of the gate is, independent of what it checks.

A stage has a name (the ``stage`` its findings carry and the report's column,
:mod:`renderer.finding` names them all), what it needs beyond the version's templates,
and ``run``: the shared state of one version in, findings out. The gate lists its stages
once (:data:`renderer.checks.pipeline.GATE`); a command's view picks from that list the
stages whose needs it can give (:func:`view`): ``check`` gives a golden directory,
``capability`` does not, so it runs the list without goldens.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from renderer.errors import CalicoRenderError
from renderer.finding import ERROR, Finding

State = TypeVar("State")
State_contra = TypeVar("State_contra", contravariant=True)


class Stage(Protocol[State_contra]):
    """One stage of the gate: its name, what it needs, and its run on a version's state."""

    @property
    def name(self) -> str: ...

    @property
    def needs(self) -> frozenset[str]: ...

    def run(self, state: State_contra) -> Sequence[Finding]: ...


@dataclass(frozen=True)
class Step(Generic[State]):
    """A :class:`Stage` made of a function; ``about`` says what it checks (for readers
    of the list)."""

    name: str
    check: Callable[[State], Sequence[Finding]]
    needs: frozenset[str] = frozenset()
    about: str = ""

    def run(self, state: State) -> Sequence[Finding]:
        return self.check(state)


def view(
    stages: Iterable[Stage[State]], given: Collection[str], without: Collection[str] = ()
) -> tuple[Stage[State], ...]:
    """The stages whose needs are all ``given``, in list order, less those ``without``."""
    return tuple(s for s in stages if s.needs <= set(given) and s.name not in without)


def error_finding(stage: str, error: CalicoRenderError) -> Finding:
    """A stage that failed with ``error`` (rule ``<stage>-error``), located where the
    error is: a template that does not parse, a file that does not render or decode."""
    return Finding(
        f"{stage}-error",
        ERROR,
        error.message,
        stage=stage,
        file=error.file or "",
        line=error.line or 0,
        column=(error.column or 0) if error.line else 0,
    )


def judged(findings: Iterable[Finding], passed: str, failed: str) -> str:
    """A stage's status from its findings: ``failed`` when one is an error."""
    return failed if any(f.severity == ERROR for f in findings) else passed


__all__ = ["Stage", "Step", "error_finding", "judged", "view"]
