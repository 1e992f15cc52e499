"""Golden stage: the golden layout, reading and writing goldens, and what changed.

Layout of ``<golden>/<version>/``, one directory per scenario, named by the scenario
and nothing else::

    <scenario>/decision.json   the scenario's Typha decision
    <scenario>/<file>          each rendered template, whole

A file that several scenarios render alike is stored in each of them: git stores
identical files once, and a directory name that depended on which scenarios happen to
render alike turned a one-field change into whole-file moves. Goldens are rendered in
the gate's fixed context (the schema defaults, the scenario's Typha decision and
``repo`` set to ``capability.CHECK_REPO``), not a cluster's.

A difference is reported as what changed, one finding per field of an object
(``golden-changed`` at the template line that renders the field), per object added
or removed, per decision key; a golden whose objects are equal but whose text is not
(comments, blank lines, key order) is one ``golden-text-changed`` warning. The merged
layout earlier releases wrote (``common/``, ``<s1>+<s2>/``) is read as the scenarios'
files it stands for; ``--update-golden`` rewrites it.
"""

from __future__ import annotations

import difflib
import json
import os
import secrets
import shlex
import shutil
import stat
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renderer.checks.options import CheckOptions
from renderer.checks.report import (
    FAIL,
    GOLDEN_CHANGED,
    GOLDEN_LAYOUT,
    GOLDEN_MISSING,
    GOLDEN_TEXT_CHANGED,
    GOLDENS_ERROR,
    MISSING,
    NEW,
    PASS,
    UPDATED,
    FileChange,
    ObjectChange,
    StaleGolden,
    VersionResult,
)
from renderer.engine.sourcemap import SourceMap
from renderer.errors import CalicoRenderError, InputError
from renderer.finding import ERROR, GOLDENS, WARNING, Finding, ObjectRef
from renderer.k8s.diff import Leaf, Parts, leaf_changes
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.manifests.tree import ADDON, refuse_name, semver_key, tree_path
from renderer.store import contain
from renderer.store.files import write_tree
from renderer.store.read import MAX_INPUT_BYTES, read_text

DECISION_FILE = "decision.json"
#: The merged layout of earlier releases: a file every scenario rendered alike, and
#: one that scenarios ``s1`` and ``s2`` rendered alike (``s1+s2/``).
COMMON = "common"
SHARED = "+"


@dataclass(frozen=True)
class ScenarioOutput:
    """What one scenario produced: its decision and its rendered files (name, text)."""

    name: str
    decision: Mapping[str, Any]
    files: tuple[tuple[str, str], ...]


def dump_decision(decision: Mapping[str, Any]) -> str:
    """Stable JSON: sorted keys, two-space indent, final newline."""
    return json.dumps(dict(decision), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def golden_files(outputs: Sequence[ScenarioOutput]) -> dict[str, str]:
    """The golden tree of one version as {relative path: text}, sorted by path: every
    scenario's rendered files and decision under its own name."""
    files: dict[str, str] = {}
    for out in outputs:
        for name, text in out.files:
            files[f"{out.name}/{name}"] = text
        files[f"{out.name}/{DECISION_FILE}"] = dump_decision(out.decision)
    return dict(sorted(files.items()))


# --- reading, containment -------------------------------------------------------------


class GoldenError(InputError):
    """The goldens are unusable (a link, a file where a scenario's directory belongs, a
    golden that is not YAML): exit 2. A type of its own, so the check of a version lets
    it through instead of recording it as a failure of the version's templates."""


@dataclass(frozen=True)
class Goldens:
    """A version's golden directory as read: its files as they are on disk, the same
    as each scenario sees them (the merged layout expanded), the directories of the
    merged layout found, and the files that could not be read as text (kept leniently
    decoded, so an update replaces them)."""

    disk: dict[str, str]
    files: dict[str, str]
    merged: tuple[str, ...] = ()
    unreadable: dict[str, str] = field(default_factory=dict)


_LINK = "is a symbolic link; goldens are regular files and directories"


def _entry(path: Path, base: Path) -> str | None:
    """What ``path`` is (None: nothing): a link (wherever it points), a FIFO or device,
    or a path outside ``base`` is bad input naming it."""
    if os.path.islink(path):
        raise GoldenError(_LINK, file=str(path))
    return contain.entry(path, base, "the golden directory")


def refuse_links(path: Path, base: Path) -> None:
    """Bad input when ``path`` or a directory between it and ``base`` is a symbolic
    link: what the goldens read, write and delete must be ROOT's own, not what a link
    makes of it (``ROOT/golden/calico`` linked elsewhere, an update would write there)."""
    here = Path(os.path.abspath(path))
    stop = Path(os.path.abspath(base))
    while here != stop and stop in here.parents:
        if os.path.islink(here):
            shown = os.path.relpath(here)
            raise GoldenError(_LINK, file=str(here) if shown.startswith("..") else shown)
        here = here.parent


def _under_root(options: CheckOptions, addon: str = ADDON) -> bool:
    """Whether the goldens of ``addon`` are ROOT's own (``ROOT/golden/<addon>``)."""
    if options.root is None:
        return False
    root = Path(os.path.abspath(options.root))
    return root in Path(os.path.abspath(options.golden_dir(addon))).parents


def golden_base(options: CheckOptions, addon: str = ADDON) -> Path:
    """The directory the goldens of ``addon`` must stay inside: ROOT for goldens inside
    the tree (``ROOT/golden/<addon>``), else the golden directory itself."""
    if options.root is not None and _under_root(options, addon):
        return options.root
    return options.golden_dir(addon)


def guard(options: CheckOptions, addons: Iterable[str] = (ADDON,)) -> None:
    """Refuse a golden directory that is, or lies below, a symbolic link inside ROOT."""
    for addon in addons:
        refuse_links(options.golden_dir(addon), golden_base(options, addon))


def lock_dirs(options: CheckOptions, addons: Iterable[str]) -> list[Path]:
    """The directories an update of the goldens of ``addons`` locks: Calico's golden
    directory, and ``ROOT/golden`` that holds every other addon's."""
    return sorted({options.golden if a == ADDON else options.goldens_root for a in addons})


def adopted_for_calico_only(options: CheckOptions, addons: Iterable[str]) -> bool:
    """Whether the tree's goldens are Calico's alone (a tree that adopted the gate when
    it checked Calico only): Calico's golden directory holds a version, no other addon
    of ``addons`` has a golden directory. Such a tree's other addons start with goldens
    :data:`~renderer.checks.report.NEW`, not failing; one line says how to write them."""
    if options.root is None or not _has_entries(options.golden_dir(ADDON)):
        return False
    return not any(_has_entries(options.golden_dir(a)) for a in addons if a != ADDON)


def _has_entries(directory: Path) -> bool:
    try:
        return any(not e.name.startswith(".") for e in os.scandir(directory))
    except OSError:
        return False


def _walk(directory: Path, base: Path) -> Iterable[Path]:
    """The regular files below ``directory`` in name order (dot-files aside); a link, a
    FIFO or device, or a name with control characters is bad input naming it."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        raise GoldenError(f"cannot read: {exc.strerror or exc}", file=str(directory)) from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        refuse_name(path)
        found = _entry(path, base)
        if found == contain.DIRECTORY:
            yield from _walk(path, base)
        elif found == contain.FILE:
            yield path


def _read(path: Path, name: str, lenient: bool, unreadable: dict[str, str]) -> str:
    """A golden file's text. Text that is not UTF-8 is bad input, or with ``lenient``
    (an update, which replaces it) read with undecodable bytes as U+FFFD."""
    try:
        return read_text(path)
    except InputError as exc:
        if not lenient:
            raise
        at = f" at line {exc.line}" if exc.line is not None else ""
        unreadable[name] = f"{exc.message}{at}"
        try:
            with open(path, "rb") as fh:
                return fh.read(MAX_INPUT_BYTES).decode("utf-8", "replace")
        except OSError:
            return ""


def read_goldens(directory: Path, base: Path, *, lenient: bool = False) -> Goldens | None:
    """The goldens of one version (None: no directory). Every entry directly in it is a
    scenario's directory: a file there is bad input, as is a link anywhere below it or
    a file that is not UTF-8 (unless ``lenient``)."""
    refuse_links(directory, base)
    found = _entry(directory, base)
    if found is None:
        return None
    if found != contain.DIRECTORY:
        raise GoldenError(
            "not a directory: a version's goldens are a directory", file=str(directory)
        )
    disk: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for top in sorted(p for p in directory.iterdir() if not p.name.startswith(".")):
        refuse_name(top)
        if _entry(top, base) != contain.DIRECTORY:
            raise GoldenError(
                "not a directory: each scenario's goldens are a directory <version>/<scenario>/",
                file=str(top),
            )
        for path in _walk(top, base):
            name = path.relative_to(directory).as_posix()
            disk[name] = _read(path, name, lenient, unreadable)
    files, merged = expand(disk)
    return Goldens(disk, files, merged, unreadable)


def load_golden(directory: Path, root: Path | None = None) -> dict[str, str] | None:
    """The golden files under ``directory`` as on disk, or None when there is none;
    everything must stay inside ``root`` (default: ``directory``)."""
    found = read_goldens(directory, root or directory)
    return None if found is None else found.disk


def expand(disk: Mapping[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The files of each scenario from goldens in either layout, and the directories
    of the merged layout found (``common/`` is every scenario's, ``a+b/`` a's and b's)."""
    tops = {p.partition("/")[0] for p in disk}
    merged = tuple(sorted(t for t in tops if t == COMMON or SHARED in t))
    if not merged:
        return dict(disk), ()
    scenarios = sorted({s for t in tops if t != COMMON for s in t.split(SHARED)})
    out: dict[str, str] = {}
    for path, text in disk.items():
        top, _, rest = path.partition("/")
        for s in scenarios if top == COMMON else top.split(SHARED):
            out.setdefault(f"{s}/{rest}", text)
    return dict(sorted(out.items())), merged


# --- what changed ---------------------------------------------------------------------


def file_changes(
    old: Mapping[str, str], new: Mapping[str, str], unreadable: Collection[str] = ()
) -> list[FileChange]:
    """Golden files that differ between ``old`` and ``new``, sorted by path; an
    ``unreadable`` golden file always differs."""
    out = []
    for path in sorted(set(old) | set(new)):
        if path not in old:
            out.append(FileChange(path, "added"))
        elif path not in new:
            out.append(FileChange(path, "removed"))
        elif old[path] != new[path] or path in unreadable:
            out.append(FileChange(path, "modified"))
    return out


def file_diffs(old: Mapping[str, str], new: Mapping[str, str], label: str) -> dict[str, str]:
    """A unified diff per golden file both sides have and that differs (``a/<label>/``
    the golden, ``b/<label>/`` the render): its size follows what changed, never the
    size of a file (a file only one side has is named, not shown)."""
    out: dict[str, str] = {}
    for path in sorted(set(old) & set(new)):
        if old[path] == new[path]:
            continue
        out[path] = "".join(
            difflib.unified_diff(
                _lines(old[path]),
                _lines(new[path]),
                fromfile=f"a/{label}/{path}",
                tofile=f"b/{label}/{path}",
                n=3,
            )
        )
    return out


def diff_label(directory: Path) -> str:
    """How a golden directory is named in diff headers: relative to the current directory
    when it is under it, else absolute (without its leading ``/``, as ``git diff`` does)."""
    path = Path(os.path.abspath(directory))
    try:
        return path.relative_to(os.path.abspath(os.getcwd())).as_posix()
    except ValueError:
        return path.as_posix().lstrip("/")


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _ref(obj: K8sObject) -> str:
    """``Kind namespace/name``; a document without a kind or a name is named by position."""
    if obj.kind and obj.name:
        return obj.ref
    missing = " or ".join(w for w, v in (("kind", obj.kind), ("name", obj.name)) if not v)
    return f"{obj.file} object {obj.index + 1} (no {missing})"


def _numbered(objects: Iterable[K8sObject]) -> dict[str, K8sObject]:
    """Objects of a rendered file keyed by ``Kind namespace/name`` (repeats numbered)."""
    out: dict[str, K8sObject] = {}
    for obj in objects:
        ref = base = _ref(obj)
        n = 2
        while ref in out:
            ref = f"{base} #{n}"
            n += 1
        out[ref] = obj
    return out


@dataclass(frozen=True)
class Where:
    """A template line: the file relative to the version directory and the line."""

    file: str
    line: int


@dataclass(frozen=True)
class _Tree:
    """Where a version's templates are: names a template relative to ROOT."""

    addon: str
    version: str
    files: tuple[str, ...]

    def path(self, file: str) -> str:
        return tree_path(self.version, self.files, file, self.addon)


@dataclass(frozen=True)
class _Found:
    """One change as a scenario sees it, before the scenarios are merged."""

    ref: str
    obj: ObjectRef | None
    path: str
    old: str | None
    new: str | None
    where: Where


def _object_ref(obj: K8sObject) -> ObjectRef | None:
    if not (obj.kind and obj.name):
        return None
    return ObjectRef(obj.kind, obj.name, obj.namespace, obj.api_version)


def _line_of(obj: K8sObject, at: Parts) -> int:
    """The template line of the deepest part of ``at`` in ``obj`` (the object's line
    when it cannot be told)."""
    found = obj.locator.field_line(obj.line, list(at)) if at and obj.locator else None
    return found or obj.source_line or obj.line


def _removed_at(
    ref: str, before: Mapping[str, K8sObject], after: Mapping[str, K8sObject], fallback: Where
) -> Where:
    """Where a removed object was: just above the object that followed it in the golden
    and is still rendered (else below the one before it), else ``fallback``."""
    refs = list(before)
    i = refs.index(ref)
    for other in [*refs[i + 1 :], *reversed(refs[:i])]:
        if other in after:
            obj = after[other]
            return Where(obj.file, obj.source_line or obj.line)
    return fallback


class _Compare:
    """The comparison of one version's goldens with its renders, scenario by scenario."""

    def __init__(
        self,
        templates: Sequence[str],
        known: Mapping[tuple[str, str], Sequence[K8sObject]],
        maps: Mapping[tuple[str, str], SourceMap],
        decision_at: Where | None,
        lenient: bool,
        shown: str,
    ) -> None:
        self.templates = list(templates)
        self.known = known
        self.maps = maps
        self.decision_at = decision_at
        self.lenient = lenient
        self.shown = shown
        self.first = Where(self.templates[0] if self.templates else "", 1)
        self.found: list[tuple[str, _Found]] = []
        self.text: list[tuple[str, str, int, int]] = []
        self._parsed: dict[tuple[str, str], dict[str, K8sObject]] = {}

    def template(self, name: str) -> Where:
        """Line 1 of template ``name``, or of the version's first one when it has none."""
        return Where(name, 1) if name in self.templates else self.first

    def objects(self, name: str, text: str, golden_path: str | None) -> dict[str, K8sObject]:
        """The objects of a rendered file (the render's already parsed; a golden's
        parsed here, bad input naming it when it is not YAML)."""
        key = (name, text)
        if key not in self._parsed:
            found = self.known.get(key)
            if found is None:
                try:
                    found = parse_stream(text, golden_path or name)
                except CalicoRenderError as exc:
                    if not self.lenient or golden_path is None:
                        raise GoldenError(
                            exc.message,
                            file=golden_path or name,
                            line=exc.line,
                        ) from None
                    found = []
            self._parsed[key] = _numbered(found)
        return self._parsed[key]

    def add(self, scenario: str, found: _Found) -> None:
        self.found.append((scenario, found))

    def scenario(self, scenario: str, old: Mapping[str, str], new: Mapping[str, str]) -> None:
        """Every change of one scenario present on both sides."""
        names = sorted((set(old) | set(new)) - {DECISION_FILE})
        first_change = len(self.found)
        for name in names:
            if old.get(name) == new.get(name):
                continue
            if name not in old:
                self.add(scenario, _Found(name, None, "", None, "present", self.template(name)))
                continue
            if name not in new:
                self.add(scenario, _Found(name, None, "", "present", None, self.template(name)))
                continue
            self.file(scenario, name, old[name], new[name])
        if old.get(DECISION_FILE) != new.get(DECISION_FILE):
            located = [f.where for _, f in self.found[first_change:]]
            at = self.decision_at or (located[0] if located else self.first)
            golden = f"{self.shown}/{scenario}/{DECISION_FILE}"
            try:
                leaves = _decision_leaves(old.get(DECISION_FILE), new.get(DECISION_FILE), golden)
            except InputError:
                if not self.lenient:
                    raise
                leaves = [Leaf("", "(not JSON)", "present")]  # the update replaces it
            for leaf in leaves:
                self.add(
                    scenario,
                    _Found(
                        f"{DECISION_FILE} {leaf.path}".rstrip(),
                        None,
                        "",
                        leaf.old,
                        leaf.new,
                        at,
                    ),
                )

    def file(self, scenario: str, name: str, old: str, new: str) -> None:
        """One rendered file of a scenario that differs from its golden."""
        before = self.objects(name, old, f"{self.shown}/{scenario}/{name}")
        after = self.objects(name, new, None)
        changed = False
        for ref in [*before, *(r for r in after if r not in before)]:
            if ref not in after:
                where = _removed_at(ref, before, after, self.template(name))
                obj = _object_ref(before[ref])
                self.add(scenario, _Found(ref, obj, "", "present", None, where))
                changed = True
            elif ref not in before:
                o = after[ref]
                where = Where(o.file, o.source_line or o.line)
                self.add(scenario, _Found(ref, _object_ref(o), "", None, "present", where))
                changed = True
            else:
                o = after[ref]
                for leaf in leaf_changes(before[ref].data, o.data):
                    where = Where(o.file, _line_of(o, leaf.at))
                    self.add(
                        scenario,
                        _Found(ref, _object_ref(o), leaf.path, leaf.old, leaf.new, where),
                    )
                    changed = True
        if not changed:  # equal objects, other text: comments, blank lines, key order
            first, last = self.text_lines(name, old, new)
            self.text.append((scenario, name, first, last))

    def text_lines(self, name: str, old: str, new: str) -> tuple[int, int]:
        """The template lines (first, last) of what differs in the text of a render."""
        lines = self.maps.get((name, new))
        a, b = old.splitlines(), new.splitlines()
        rows: list[int] = []
        for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, False).get_opcodes():
            if tag != "equal":
                rows.extend(range(j1 + 1, max(j1 + 1, j2) + 1))
        mapped = [m for r in rows if (m := lines.line(r) if lines else r)]
        return (min(mapped), max(mapped)) if mapped else (1, 1)


def _decision_leaves(old: str | None, new: str | None, golden: str) -> list[Leaf]:
    """``decision.json``'s keys that differ (the whole file when one side has none);
    a golden that is not JSON is bad input naming it."""
    if old is None or new is None:
        return [Leaf("", None if old is None else "present", None if new is None else "present")]
    try:
        before = json.loads(old)
    except ValueError as exc:
        raise GoldenError(
            f"the golden is not JSON: {getattr(exc, 'msg', exc)}",
            file=golden,
            line=getattr(exc, "lineno", None),
        ) from None
    return leaf_changes(before, json.loads(new))


def _arrow(old: str | None, new: str | None) -> str:
    return f"{'(none)' if old is None else old} → {'(none)' if new is None else new}"


def change_message(
    ref: str, path: str, values: Sequence[tuple[str | None, str | None, list[str]]]
) -> str:
    """What a finding says of a change: ``4 → 3``; an object or file ``added`` or
    ``removed``; values that differ per scenario each with their scenarios."""
    decision = ref.startswith(DECISION_FILE)
    if not path and len(values) == 1 and not decision:
        old, new, _ = values[0]
        if old is None:
            return "added: rendered, not in the golden"
        if new is None:
            return "removed: in the golden, not rendered"
    if len(values) == 1:
        return _arrow(values[0][0], values[0][1])
    return "; ".join(f"{_arrow(o, n)} ({', '.join(s)})" for o, n, s in values)


def _merge(
    compare: _Compare, tree: _Tree, order: Sequence[str]
) -> tuple[list[ObjectChange], list[Finding]]:
    """The changes merged across scenarios: one :class:`ObjectChange` per value change,
    one finding per object, field and template line (listing every scenario)."""
    rank = {s: i for i, s in enumerate(order)}
    changes: dict[tuple[Any, ...], tuple[_Found, list[str]]] = {}
    for scenario, f in compare.found:
        key = (f.ref, f.path, f.old, f.new, f.where)
        changes.setdefault(key, (f, []))[1].append(scenario)
    grouped: dict[tuple[Any, ...], list[tuple[_Found, list[str]]]] = {}
    for f, scenarios in changes.values():
        grouped.setdefault((f.ref, f.path, f.where), []).append((f, scenarios))
    records: list[ObjectChange] = []
    findings: list[Finding] = []
    for (ref, path, where), items in grouped.items():
        file = tree.path(where.file) if where.file else ""
        scenarios = sorted({s for _, ss in items for s in ss}, key=lambda s: rank.get(s, len(rank)))
        values = [(f.old, f.new, ss) for f, ss in items]
        for f, ss in items:
            records.append(
                ObjectChange(ref, path, f.old, f.new, tuple(ss), file=file, line=where.line)
            )
        obj = items[0][0].obj
        label = "" if obj is not None else f"{ref}: "
        findings.append(
            Finding(
                GOLDEN_CHANGED,
                ERROR,
                label + change_message(ref, path, values),
                stage=GOLDENS,
                object=obj,
                field=path,
                file=file,
                line=where.line,
                scenarios=tuple(scenarios),
            )
        )
    return records, sorted(findings, key=_order)


def _order(f: Finding) -> tuple[Any, ...]:
    """Template order; at one line, objects' fields before what they changed besides
    (a decision)."""
    return (f.file, f.line, f.object is None, str(f.object or ""), f.field, f.message)


def _text_findings(
    compare: _Compare, tree: _Tree, order: Sequence[str], strict: bool
) -> list[Finding]:
    """One warning per template and line range whose render differs from its goldens
    only in text (an error with ``strict``)."""
    rank = {s: i for i, s in enumerate(order)}
    by: dict[tuple[str, int, int], list[str]] = {}
    for scenario, name, first, last in compare.text:
        by.setdefault((name, first, last), []).append(scenario)
    out = []
    for (name, first, last), scenarios in by.items():
        span = f"line {first}" if first == last else f"lines {first}–{last}"
        out.append(
            Finding(
                GOLDEN_TEXT_CHANGED,
                ERROR if strict else WARNING,
                f"the golden's text differs at template {span}, its objects do not "
                "(comments, blank lines or key order)",
                stage=GOLDENS,
                file=tree.path(name),
                line=first,
                scenarios=tuple(sorted(scenarios, key=lambda s: rank.get(s, len(rank)))),
            )
        )
    return out


def _scenario_findings(
    compare: _Compare, tree: _Tree, added: Sequence[str], removed: Sequence[str]
) -> list[Finding]:
    """A scenario rendered with no goldens, or goldens of a scenario no longer rendered."""
    first = compare.first
    at = tree.path(first.file) if first.file else ""
    out = []
    for names, what in (
        (added, "a scenario rendered with no goldens yet"),
        (removed, "goldens of a scenario no longer rendered"),
    ):
        if names:
            out.append(
                Finding(
                    GOLDEN_CHANGED,
                    ERROR,
                    what,
                    stage=GOLDENS,
                    file=at,
                    line=1 if at else 0,
                    scenarios=tuple(names),
                )
            )
    return out


def _by_scenario(files: Mapping[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for path, text in files.items():
        top, _, name = path.partition("/")
        out.setdefault(top, {})[name] = text
    return out


# --- the goldens stage of a check -----------------------------------------------------


def update_command(options: CheckOptions) -> str:
    """The command that (re)creates goldens for the checked tree (the addons asked for
    with ``--addon``, the BKECluster named with ``--config``)."""
    parts = ["calico-render", "check"]
    if options.manifests_arg is not None:
        parts += ["--manifests", options.manifests_arg]
    if options.golden_arg is not None:
        parts += ["--golden", options.golden_arg]
    for addon in options.addons:
        parts += ["--addon", addon]
    if options.config_arg is not None:
        parts += ["--config", options.config_arg]
    if options.kube_args:
        for k in options.kube_versions:
            parts += ["--kube-version", k]
    return shlex.join([*parts, "--update-golden"])


def golden_label(options: CheckOptions, addons: Collection[str] = (ADDON,)) -> str:
    """How the report names the golden directories: Calico's, then ``ROOT/golden/
    <addon>/`` when other addons are checked."""
    if options.golden_arg is not None:
        calico = options.golden_arg
    else:
        calico = "(bundled goldens)" if options.root is None else str(options.golden)
    if all(a == ADDON for a in addons):
        return calico
    others = f"{options.goldens_root}/<addon>"
    return others if ADDON not in addons else f"{calico} and {others}"


def golden_path(options: CheckOptions, version: str, addon: str = ADDON) -> str:
    """How findings name a version's golden directory: relative to ROOT for a tree's
    own goldens (``golden/calico/v3.31.3``, the path CI annotates), else as given."""
    directory = options.golden_dir(addon) / version
    named = options.golden_arg is not None and addon == ADDON
    if not named and _under_root(options, addon):
        return Path(os.path.relpath(directory, options.root or ".")).as_posix()
    if options.root is None and not named:  # bundled, a checkout's golden/
        return f"{options.golden.name}/{version}"
    return directory.as_posix()


@dataclass(frozen=True)
class GoldenInput:
    """What the goldens stage compares: each scenario's output, the render's parsed
    files and source maps (by file name and text), the template names, and where a
    changed decision is located (the contract failure that changed it), if known."""

    outputs: Sequence[ScenarioOutput]
    parsed: Mapping[tuple[str, str], Sequence[K8sObject]]
    maps: Mapping[tuple[str, str], SourceMap]
    templates: Sequence[str]
    decision_at: tuple[str, int] | None = None
    #: The addon of the version (its templates are ``kubernetes/<addon>/<version>/``).
    addon: str = ADDON


@dataclass(frozen=True)
class Comparison:
    """What differs between a version's goldens and its renders: each value change (for
    the reports' side-by-side views) and the findings, one per defect."""

    changes: list[ObjectChange]
    findings: list[Finding]


def compare(
    old: Mapping[str, str],
    given: GoldenInput,
    version: str,
    shown: str,
    *,
    strict: bool = False,
    lenient: bool = False,
) -> Comparison:
    """The goldens ``old`` (one directory per scenario) against the scenarios' renders.

    Field changes are located at the template line that renders the field, added
    objects at theirs, a removed object where it was (above the object that followed
    it), a changed decision at ``given.decision_at`` or else the scenario's first other
    change, else the version's first template. A golden that is not YAML is bad input
    naming it (``shown`` is the golden directory as findings name it), unless
    ``lenient`` (an update replaces it). ``strict``: text-only changes are errors.
    """
    names = [o.name for o in given.outputs]
    files = list(given.templates)
    decision_at = Where(*given.decision_at) if given.decision_at else None
    found = _Compare(files, given.parsed, given.maps, decision_at, lenient, shown)
    old_by, new_by = _by_scenario(old), _by_scenario(golden_files(given.outputs))
    for scenario in names:
        if scenario in old_by:
            found.scenario(scenario, old_by[scenario], new_by.get(scenario, {}))
    added = [s for s in names if s not in old_by]
    removed = sorted(s for s in old_by if s not in names)
    tree = _Tree(given.addon, version, tuple(files))
    changes, changed = _merge(found, tree, names)
    changed += _scenario_findings(found, tree, added, removed)
    text = _text_findings(found, tree, names, strict)
    return Comparison(changes, [*changed, *text])


def compare_stage(
    result: VersionResult, given: GoldenInput, options: CheckOptions
) -> list[Finding]:
    """The goldens stage: the version's scenario renders against its golden directory;
    records the comparison and the stage's status in ``result``, returns its findings."""
    new = golden_files(given.outputs)
    result.rendered = new
    addon = result.addon
    directory = options.golden_dir(addon) / result.version
    g = result.golden
    shown = golden_path(options, result.version, addon)
    g.directory = shown
    g.command = update_command(options)
    try:
        loaded = read_goldens(directory, golden_base(options, addon), lenient=options.update)
    except GoldenError:
        raise
    except InputError as exc:  # a FIFO, a name with control characters, not UTF-8
        raise GoldenError(exc.message, file=exc.file, line=exc.line, key=exc.key) from None
    files = list(given.templates)
    first = tree_path(result.version, files, files[0], addon) if files else ""
    if loaded is None and addon != ADDON and options.calico_only_goldens:
        _set_all(result, NEW)  # the report says once how to write them
        return []
    if loaded is None:
        _set_all(result, MISSING)
        return [
            Finding(
                GOLDEN_MISSING,
                ERROR,
                f"no goldens in {shown}; create them, after review, with: {g.command}",
                stage=GOLDENS,
                file=first,
                line=1 if first else 0,
            )
        ]
    g.merged = list(loaded.merged)
    g.files = file_changes(loaded.disk, new, loaded.unreadable)
    found: list[Finding] = []
    if loaded.merged:
        inside = next(p for p in loaded.disk if p.startswith(loaded.merged[0] + "/"))
        found.append(
            Finding(
                GOLDEN_LAYOUT,
                ERROR if options.strict else WARNING,
                f"{shown} holds the merged layout of earlier releases "
                f"({', '.join(d + '/' for d in loaded.merged)}); --update-golden rewrites "
                "it one directory per scenario",
                stage=GOLDENS,
                file=f"{shown}/{inside}",
                line=1,
            )
        )
    for path, why in loaded.unreadable.items():
        found.append(
            Finding(
                GOLDEN_CHANGED,
                ERROR,
                f"golden file is not UTF-8 ({why}); the update replaces it",
                stage=GOLDENS,
                file=f"{shown}/{path}",
                line=1,
            )
        )
    done = compare(
        loaded.files, given, result.version, shown, strict=options.strict, lenient=options.update
    )
    g.changes = done.changes
    found = [*done.findings, *found]
    g.file_diffs = file_diffs(loaded.files, new, diff_label(directory))
    g.diff = "".join(g.file_diffs.values())
    failing = any(f.severity == ERROR for f in found)
    g.status = result.stages[GOLDENS] = FAIL if failing else PASS
    for s in result.scenarios:
        mine = [str(f) for f in found if s.name in f.scenarios]
        s.changes = mine
        s.golden = (
            FAIL if any(s.name in f.scenarios and f.severity == ERROR for f in found) else PASS
        )
    return found


def _set_all(result: VersionResult, status: str) -> None:
    result.golden.status = result.stages[GOLDENS] = status
    for s in result.scenarios:
        s.golden = status


def apply_update(result: VersionResult, options: CheckOptions) -> list[Finding]:
    """Write the version's rendered goldens and record what changed; a write that
    fails leaves the stage failed with a finding saying why (the goldens still differ)."""
    g = result.golden
    if result.rendered is None or g.status not in (PASS, FAIL, MISSING, NEW):
        return []
    directory = options.golden_dir(result.addon) / result.version
    fresh = g.status in (MISSING, NEW)
    changes = g.files if not fresh else file_changes({}, result.rendered)
    if not changes:
        return []
    try:
        g.files = write_golden(
            directory, result.rendered, changes, golden_base(options, result.addon)
        )
    except GoldenError:
        raise  # a link or a path out of the goldens: bad input, nothing written
    except InputError as exc:
        if exc.file is None:
            raise
        first = next(c.path for c in changes if c.change != "removed") if changes else ""
        shown = golden_path(options, result.version, result.addon)
        finding = Finding(  # nothing written (all or nothing): at the first golden to write
            GOLDENS_ERROR,
            ERROR,
            f"goldens not written: {exc.message} ({exc.file})",
            stage=GOLDENS,
            file=f"{shown}/{first}" if first else shown,
            line=1 if first else 0,
        )
        result.findings.append(finding)
        g.status = result.stages[GOLDENS] = FAIL
        return [finding]
    was = g.status
    g.status = result.stages[GOLDENS] = UPDATED
    result.findings = [f for f in result.findings if f.stage != GOLDENS]
    for s in result.scenarios:
        s.golden = (
            UPDATED if s.golden in (FAIL, MISSING, NEW) or was in (MISSING, NEW) else s.golden
        )
    return []


def write_golden(
    directory: Path,
    new: Mapping[str, str],
    changes: Sequence[FileChange] | None = None,
    root: Path | None = None,
) -> list[FileChange]:
    """Make ``directory`` hold exactly ``new``; unchanged files are not touched.

    ``changes`` are :func:`file_changes` of the goldens now in ``directory`` against
    ``new`` when the caller has them (the gate compared them already); otherwise the
    goldens are read to find them. Every changed file is staged beside its target and
    renamed into place, so an interrupt leaves each golden file whole (old or new);
    stale files go last. Nothing is written or removed outside ``root`` (default:
    ``directory``), and nothing through a symbolic link.
    """
    base = root or directory
    if changes is None:
        found = read_goldens(directory, base, lenient=True)
        changes = file_changes(found.disk if found else {}, new)
    changes = list(changes)
    refuse_links(directory, base)
    contain.directory(directory, base, "the golden directory", missing_ok=True)
    for c in changes:
        target = directory / c.path
        refuse_links(target, base)
        contain.inside(target.parent, base, "the golden directory")
    write_tree(directory, {c.path: new[c.path] for c in changes if c.change != "removed"})
    for c in changes:
        if c.change == "removed":
            _remove(directory / c.path, Path.unlink)
    for parent in sorted({(directory / c.path).parent for c in changes}, reverse=True):
        while parent != directory and directory in parent.parents and _empty_dir(parent):
            _remove(parent, Path.rmdir)
            parent = parent.parent
    return changes


def _remove(path: Path, how: Callable[[Path], None]) -> None:
    """Remove a golden file or an emptied directory; gone already is done."""
    try:
        how(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"cannot remove: {exc.strerror or exc}", file=str(path)) from None


def _empty_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode) and not any(path.iterdir())
    except OSError:
        return False


def find_stale(
    options: CheckOptions, versions: Collection[str], addon: str = ADDON
) -> list[StaleGolden]:
    """Golden directories of ``addon`` for a version that is not in the tree, in
    version order.

    In Calico's golden directory only directories whose name is a version
    (``v3.28.2``) count, so a golden directory named at the wrong place never makes
    unrelated directories "stale"; ``ROOT/golden/<addon>`` of another addon holds
    nothing but its versions' goldens, whatever their names (``latest``, ``5.7``).
    """
    root = options.golden_dir(addon)
    if not root.is_dir() or os.path.islink(root):
        return []
    base = golden_base(options, addon)
    dirs = [
        p
        for p in root.iterdir()
        if not p.name.startswith(".")
        and p.name not in versions
        and (addon != ADDON or semver_key(p.name)[0] == 0)
        and (os.path.islink(p) or p.is_dir())
    ]
    out = []
    for d in sorted(dirs, key=lambda p: semver_key(p.name)):
        refuse_links(d, base)
        try:
            files = sorted(f.relative_to(d).as_posix() for f in _walk(d, base))
        except FileNotFoundError:  # removed while listed (a concurrent update)
            continue
        shown = golden_path(options, d.name, addon)
        command = update_command(options)
        out.append(StaleGolden(d.name, str(d), files, command, shown=shown, addon=addon))
    return out


def stale_addons(options: CheckOptions, addons: Collection[str]) -> list[str]:
    """Addons with a golden directory (``ROOT/golden/<addon>``) but no directory in the
    tree: every version's goldens there are stale (Calico's goldens are named apart)."""
    if options.root is None:
        return []
    top = options.goldens_root
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return []
    return [
        e.name
        for e in entries
        if not e.name.startswith(".")
        and e.name != ADDON
        and e.name not in addons
        and (e.is_symlink() or e.is_dir())
    ]


def remove_stale(stale: StaleGolden) -> None:
    """Remove a stale golden directory: renamed aside first (one atomic step, so it is
    gone or whole), then deleted."""
    directory = Path(stale.directory)
    aside = directory.with_name(f".{directory.name}.removed-{secrets.token_hex(6)}")
    try:
        try:
            os.replace(directory, aside)
        except FileNotFoundError:  # removed meanwhile by someone else: gone is the goal
            stale.status = UPDATED
            return
        shutil.rmtree(aside)
    except OSError as exc:
        raise GoldenError(f"cannot remove: {exc.strerror or exc}", file=str(directory)) from None
    stale.status = UPDATED
