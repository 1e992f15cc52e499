"""Reviewed exceptions: the one place a gate finding is skipped or downgraded.

A tree keeps them in ``ROOT/.calico-render.yaml`` (an explicit file overrides it),
validated by ``schemas/exceptions.schema.json``. Each names a rule id (one of the
catalogue's, and one that may be excepted), optionally the versions, objects
(``Kind namespace/name`` patterns) and field paths it holds for, so it waives what was
reviewed and not every future finding of the rule; the severity a finding is downgraded
to (absent: skipped) and a required reason. Matching is a pure function; every applied
exception is reported, one that matches nothing where its stage ran is a warning (a
stale entry does not linger unnoticed), and one whose stage did not run is "not
evaluated", never "remove it".

The same file declares the tree's deliberate deviations from upstream Calico
(``deviations:``): the objects and fields (optionally the versions) where the tree
renders something other than upstream on purpose, each with a reason. A fidelity
finding there is no defect and is skipped, so a new deviation stands out. A deviation
is applied as an exception of every fidelity rule, in the same one place, so every
view (check, capability) applies it alike.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from renderer.checks import catalogue
from renderer.checks.catalogue import EXCEPTABLE_STAGES
from renderer.data import schemas
from renderer.errors import InputError
from renderer.finding import CAPABILITY, CONTEXT, FIDELITY, RULES, SCALE, TEMPLATES, Finding
from renderer.k8s.yamlio import item_lines, load_all, locate
from renderer.manifests.tree import ADDON, split_label, unit_order
from renderer.store import contain
from renderer.store.read import read_text

FILE_NAME = ".calico-render.yaml"
SCHEMA = "exceptions.schema.json"


#: What an entry of the file is: a reviewed exception of one rule, or a deliberate
#: deviation from upstream (every fidelity rule, on the objects and fields it names).
EXCEPTION, DEVIATION = "exception", "deviation"


def _matches(value: str, pattern: str) -> bool:
    """``value`` is ``pattern`` itself, or matches it as a shell pattern (a field path's
    ``[name]`` is literal first, then a character class)."""
    return value == pattern or fnmatch.fnmatchcase(value, pattern)


@dataclass(frozen=True)
class RuleException:
    """One reviewed exception (or deviation), with the line it was declared on."""

    rule: str
    reason: str
    versions: tuple[str, ...] = ()
    #: The severity findings are downgraded to; None: they are skipped.
    severity: str | None = None
    line: int = 0
    #: ``Kind namespace/name`` patterns (``fnmatch``) of the objects it holds for.
    objects: tuple[str, ...] = ()
    #: Field path patterns (``fnmatch``) it holds for.
    fields: tuple[str, ...] = ()
    #: :data:`EXCEPTION`, or :data:`DEVIATION` (``rule`` is then the fidelity stage).
    kind: str = EXCEPTION
    #: The addons it holds for (empty: every addon; a deviation is Calico's).
    addons: tuple[str, ...] = ()

    def holds_for(
        self, rule: str, version: str, obj: str = "", fld: str = "", addon: str = ADDON
    ) -> bool:
        same = rule in catalogue.FIDELITY_RULES if self.kind == DEVIATION else rule == self.rule
        return (
            same
            and self.holds_on(addon, version)
            and (not self.objects or any(_matches(obj, p) for p in self.objects))
            and (not self.fields or any(_matches(fld, p) for p in self.fields))
        )

    def holds_on(self, addon: str, version: str) -> bool:
        """Whether it holds for ``version`` of ``addon``."""
        return (not self.addons or addon in self.addons) and (
            not self.versions or version in self.versions
        )

    @property
    def scope(self) -> str:
        """What the exception is limited to, for messages ("" when only the rule)."""
        parts = [
            f"for {', '.join(self.addons)}" if self.addons else "",
            f"on {', '.join(self.versions)}" if self.versions else "",
            f"objects {', '.join(self.objects)}" if self.objects else "",
            f"fields {', '.join(self.fields)}" if self.fields else "",
        ]
        return " ".join(p for p in parts if p)

    @property
    def action(self) -> str:
        return "skipped" if self.severity is None else f"downgraded to {self.severity}"

    @property
    def what(self) -> str:
        """How messages name it: ``exception for rule R`` or ``deviation``."""
        return "deviation" if self.kind == DEVIATION else f"exception for rule {self.rule}"


@dataclass(frozen=True)
class ExceptionSet:
    """The exceptions of one file (``file`` None: no file, nothing excepted)."""

    file: str | None = None
    items: tuple[RuleException, ...] = ()
    #: What a reader should know about the file itself (an empty file excepts nothing).
    notes: tuple[str, ...] = ()


@dataclass
class Applied:
    """How often an exception matched, per version (in the order versions are seen)."""

    exception: RuleException
    matches: dict[str, int] = field(default_factory=dict)

    def matched(self, grouped: bool) -> list[dict[str, Any]]:
        """Each version it matched and how many findings; ``grouped`` (a report of
        every addon): the version's addon named apart."""
        out: list[dict[str, Any]] = []
        for label, n in self.matches.items():
            addon, version = split_label(label)
            mine = {"addon": addon, "version": version} if grouped else {"version": label}
            out.append({**mine, "findings": n})
        return out

    def to_dict(self, grouped: bool = False) -> dict[str, Any]:
        """The entry as JSON; ``grouped``: as the check report of every addon has it
        (the addons it holds for, each match's addon); else as Calico's own reports
        have it (``addons`` only when the entry names some)."""
        e = self.exception
        if e.kind == DEVIATION:
            return {
                "versions": list(e.versions) or None,
                "objects": list(e.objects),
                "fields": list(e.fields) or None,
                "reason": e.reason,
                "line": e.line,
                "matched": self.matched(grouped),
            }
        addons = {"addons": list(e.addons) or None} if grouped or e.addons else {}
        return {
            "rule": e.rule,
            **addons,
            "versions": list(e.versions) or None,
            "objects": list(e.objects) or None,
            "fields": list(e.fields) or None,
            "severity": e.severity,
            "reason": e.reason,
            "line": e.line,
            "matched": self.matched(grouped),
        }


def find_file(root: Path | None, explicit: Path | None) -> Path | None:
    """``explicit`` when given, else ``ROOT/.calico-render.yaml`` if present
    (which, like every file of the tree, must stay inside ROOT)."""
    if explicit is not None:
        found = contain.kind(explicit)
        if found != contain.FILE:
            why = "no such file" if found is None else "not a regular file"
            raise InputError(why, file=str(explicit), key="exceptions", argument="exceptions")
        return explicit
    if root is None:
        return None
    path = root / FILE_NAME
    if not os.path.lexists(path):
        return None
    contain.regular_file(path, root, "the manifest tree")  # a FIFO or directory: exit 2
    return path


def parse(text: str, file: str) -> ExceptionSet:
    """Validate an exceptions file; bad input names its line and key (exit 2)."""
    docs = [d for d in load_all(text, file) if d is not None]
    if not docs:
        return ExceptionSet(file, notes=(f"{file}: empty: no exceptions",))
    if len(docs) != 1:
        raise InputError("expected one YAML document", file=file)
    data = docs[0]
    error = schemas.best_error(SCHEMA, data)
    if error is not None:
        key, message = schemas.describe(error)
        line = locate(text, 0, list(error.absolute_path))
        raise InputError(message, file=file, line=line, key=key or None)
    # Deviations first: a finding one covers is no defect, whatever an exception says.
    items = _deviations(text, data.get("deviations", ()))
    # One pass over the parser's events: locating each item re-parsed the file (10,000
    # exceptions took minutes).
    lines = item_lines(text, "exceptions", "rule")
    for i, item in enumerate(data.get("exceptions", ())):
        line, rule_line = lines[i] if i < len(lines) else (0, 0)
        _known(item["rule"], file, rule_line or line)
        items.append(
            RuleException(
                rule=item["rule"],
                reason=item["reason"].strip(),
                versions=tuple(item.get("versions", ())),
                addons=tuple(item.get("addons", ())),
                severity=item.get("severity"),
                line=line,
                objects=tuple(item.get("objects", ())),
                fields=tuple(item.get("fields", ())),
            )
        )
    notes = () if items else (f"{file}: no exceptions listed",)
    return ExceptionSet(file, tuple(items), notes)


def _deviations(text: str, entries: Sequence[Mapping[str, Any]]) -> list[RuleException]:
    """The deviations from upstream the file declares, each with its line."""
    if not entries:
        return []
    lines = item_lines(text, "deviations", "objects")
    return [
        RuleException(
            rule=FIDELITY,
            reason=item["reason"].strip(),
            versions=tuple(item.get("versions", ())),
            line=lines[i][0] if i < len(lines) else 0,
            objects=tuple(item["objects"]),
            fields=tuple(item.get("fields", ())),
            kind=DEVIATION,
        )
        for i, item in enumerate(entries)
    ]


def _known(rule: str, file: str, line: int) -> None:
    """Bad input for a rule id the catalogue does not know, or one that cannot be
    excepted (the contract, templates, goldens, scale advice)."""
    info = catalogue.catalogue().get(rule)
    if info is None:
        hint = catalogue.listed()
        raise InputError(
            f"unknown rule id {rule!r}{catalogue.did_you_mean(rule)}; {hint}",
            file=file,
            line=line,
            key="rule",
            argument="rules",
            value=rule,
            hint=hint,
        )
    if info.exceptable:
        return
    if info.stage == CAPABILITY:
        why = f"{rule} is a Typha contract rule, and contract rules cannot be excepted: "
        why += catalogue.CONTRACT_WHY
    elif info.stage == SCALE:
        why = f"{rule} is a scale advice rule; exceptions apply to the gate's findings only"
    else:
        why = f"{rule} belongs to the {info.stage} stage, which exceptions cannot touch: "
        why += "fix the templates, or regenerate the goldens after review"
    raise InputError(why, file=file, line=line, key="rule")


def load(path: Path | None) -> ExceptionSet:
    if path is None:
        return ExceptionSet()
    return parse(read_text(path), str(path))


def match(
    exceptions: Sequence[RuleException],
    rule: str,
    version: str,
    obj: str = "",
    fld: str = "",
    addon: str = ADDON,
) -> RuleException | None:
    """The first exception that holds for ``rule`` on ``version`` of ``addon`` (and the
    finding's object and field), or None."""
    return next((e for e in exceptions if e.holds_for(rule, version, obj, fld, addon)), None)


def apply(
    findings: Sequence[Finding],
    exceptions: Sequence[RuleException],
    version: str,
    addon: str = ADDON,
) -> tuple[list[Finding], dict[int, int]]:
    """``findings`` with the reviewed ``exceptions`` applied: those an exception names (in
    a stage of :data:`~renderer.checks.catalogue.EXCEPTABLE_STAGES`) are skipped, or
    downgraded with its reason. Returns the findings kept and how many each exception
    (by index) matched."""
    counts: dict[int, int] = {}
    kept: list[Finding] = []
    for f in findings:
        found = (
            match(exceptions, f.rule, version, str(f.object or ""), f.field, addon)
            if f.stage in EXCEPTABLE_STAGES
            else None
        )
        if found is None:
            kept.append(f)
            continue
        index = exceptions.index(found)
        counts[index] = counts.get(index, 0) + 1
        if found.severity is not None:
            kept.append(replace(f, severity=found.severity, exception=found.reason))
    return kept, counts


def applied_list(
    exceptions: ExceptionSet, per_version: Sequence[Sequence[tuple[int, str, int]]]
) -> list[Applied]:
    """Every exception with its matches: ``per_version`` holds (index, version's label
    (:func:`~renderer.manifests.tree.unit_label`), count)."""
    out = [Applied(e) for e in exceptions.items]
    for matches in per_version:
        for index, version, count in matches:
            out[index].matches[version] = out[index].matches.get(version, 0) + count
    for a in out:  # in version order, whichever version finished first
        a.matches = dict(sorted(a.matches.items(), key=lambda kv: unit_order(kv[0])))
    return out


def unmatched_message(
    applied: Applied,
    file: str | None,
    ran: Sequence[str] = (),
    not_evaluated: Mapping[str, str] | None = None,
) -> str:
    """The warning for an exception that matched no finding on the versions its stage
    ran on (``ran``); ``not_evaluated`` (version -> why) names the others."""
    e = applied.exception
    where = f"{file}:{e.line}" if file else "exceptions"
    scope = f" {e.scope}" if e.scope else ""
    on = f" on {', '.join(ran)}" if ran else ""
    skipped = f" (not evaluated on {_why(not_evaluated)})" if not_evaluated else ""
    return f"{where}: {e.what}{scope} matches nothing{on}{skipped}; remove it"


def not_evaluated_message(applied: Applied, file: str | None, why: Mapping[str, str]) -> str:
    """The note for an exception whose stage ran on none of the versions it holds for:
    it may still be needed, so it is never "remove it"."""
    e = applied.exception
    where = f"{file}:{e.line}" if file else "exceptions"
    scope = f" {e.scope}" if e.scope else ""
    return f"{where}: {e.what}{scope} not evaluated ({_why(why)})"


def _why(why: Mapping[str, str]) -> str:
    """``v1, v2: reason; v3: other`` with versions sharing a reason together."""
    by: dict[str, list[str]] = {}
    for version, reason in why.items():
        by.setdefault(reason, []).append(version)
    return "; ".join(f"{', '.join(vs)}: {r}" if vs != [""] else r for r, vs in by.items())


def evaluation(
    exception: RuleException,
    stages: Mapping[str, Mapping[str, str]],
    absent: str = "not in the tree",
) -> tuple[list[str], dict[str, str]]:
    """Where ``exception``'s rule was evaluated: ``stages`` maps each checked version
    (by its label, :func:`~renderer.manifests.tree.unit_label`) to its stage statuses
    (``skip``: did not run; ``legacy``: a version without Typha, whose release rules do
    not apply). Returns the versions it was evaluated on and, for the others it holds
    for, why it was not."""
    stage = FIDELITY if exception.kind == DEVIATION else catalogue.stage_of(exception.rule)
    status_of = _STATUS_OF.get(stage or "", stage or "")
    ran: list[str] = []
    why: dict[str, str] = {}
    held = [label for label in stages if exception.holds_on(*split_label(label))]
    wanted = held
    if exception.versions:  # in the order named; one no checked addon has, as named
        wanted = []
        for named in exception.versions:
            mine = [label for label in held if split_label(label)[1] == named]
            wanted += mine or [named]
    checked = {split_label(label)[0] for label in stages}
    wanted += [addon for addon in exception.addons if addon not in checked]  # as named
    for version in wanted:
        statuses = stages.get(version)
        if statuses is None:
            why[version] = absent
        elif stage is None:  # not a catalogued id (a library caller's own): judged as run
            ran.append(version)
        elif status_of not in statuses and stage == FIDELITY:
            why[version] = f"the {stage} stage runs only with an upstream directory"
        elif status_of not in statuses:
            why[version] = f"no {stage} stage for its addon"
        elif stage == RULES and statuses.get(CAPABILITY) == "legacy":
            why[version] = "legacy: release rules apply to Typha-capable versions"
        elif statuses[status_of] == "skip":
            why[version] = f"the {stage} stage did not run"
        else:
            ran.append(version)
    if not exception.versions and not ran and len(set(why.values())) == 1:
        return ran, {"": next(iter(why.values()))}  # every version, for one reason
    return ran, why


#: A stage without a status of its own, and the stage whose status says whether it ran
#: (the context keys are read from the parsed templates).
_STATUS_OF = {CONTEXT: TEMPLATES}


def verdicts(
    exceptions: ExceptionSet,
    applied: Sequence[Applied],
    stages: Mapping[str, Mapping[str, str]],
    absent: str = "not in the tree",
) -> tuple[list[str], list[str]]:
    """The warnings (matched nothing where its stage ran) and notes (not evaluated, an
    empty file) of a run's exceptions; ``stages``: each checked version's stage statuses."""
    warnings: list[str] = []
    notes = list(exceptions.notes)
    for a in applied:
        if a.matches:
            continue
        ran, why = evaluation(a.exception, stages, absent)
        if ran:
            warnings.append(unmatched_message(a, exceptions.file, ran, why))
        elif a.exception.kind != DEVIATION:  # deviations wait for --upstream unremarked
            notes.append(not_evaluated_message(a, exceptions.file, why))
    return warnings, notes
