"""Golden stage: the golden layout, loading and writing goldens, and explaining differences.

Layout of ``<golden>/<version>/``::

    common/<file>              a rendered file that is byte-identical in every scenario
    <scenario>/decision.json   the scenario's Typha decision
    <scenario>/<file>          a rendered file only this scenario renders this way
    <s1>+<s2>/<file>           a rendered file that scenarios s1 and s2 share

Each rendered template is stored whole, so a golden file reads in a merge request like
the manifest change it comes from. Goldens are rendered in the gate's fixed context (the
schema defaults, the scenario's Typha decision and ``repo`` set to
``capability.CHECK_REPO``), not a cluster's; each distinct rendering is stored once
(the CRDs, a legacy version's single file, calico-node with Typha at 3 or 4 replicas).
A difference is explained twice: a unified diff of the text, and per object
``Kind namespace/name: path old -> new``.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renderer.checks.options import CheckOptions
from renderer.checks.report import (
    FAIL,
    MISSING,
    PASS,
    UPDATED,
    FileChange,
    ObjectChange,
    StaleGolden,
    VersionResult,
)
from renderer.errors import CalicoRenderError, InputError
from renderer.finding import ERROR, GOLDENS, Finding, locate
from renderer.k8s.diff import diff_values
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.manifests.tree import refuse_name, semver_key
from renderer.store import contain
from renderer.store.files import write_tree
from renderer.store.read import MAX_INPUT_BYTES, read_text

COMMON = "common"
SHARED = "+"
DECISION_FILE = "decision.json"
#: The longest ``s1+s2`` directory name; beyond it each scenario holds its own copy
#: (file systems refuse names over 255 bytes, and derived scenario names are long).
MAX_SHARED_NAME = 200


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
    """The golden tree of one version as {relative path: text}, sorted by path."""
    files: dict[str, str] = {}
    names: list[str] = []
    for out in outputs:
        for name, _ in out.files:
            if name not in names:
                names.append(name)
    texts = [dict(out.files) for out in outputs]
    for name in names:
        groups: dict[str, list[str]] = {}
        for out, rendered in zip(outputs, texts, strict=True):
            if name in rendered:
                groups.setdefault(rendered[name], []).append(out.name)
        for text, members in groups.items():
            if len(members) == len(outputs):
                files[f"{COMMON}/{name}"] = text
            elif len(SHARED.join(members)) <= MAX_SHARED_NAME:
                files[f"{SHARED.join(members)}/{name}"] = text
            else:  # a directory name the file system may refuse: a copy per scenario
                for member in members:
                    files[f"{member}/{name}"] = text
    for out in outputs:
        files[f"{out.name}/{DECISION_FILE}"] = dump_decision(out.decision)
    return dict(sorted(files.items()))


def load_golden(directory: Path, root: Path | None = None) -> dict[str, str] | None:
    """The golden tree under ``directory``, or None when there is none (no directory);
    ``directory`` and everything in it must stay inside ``root`` (default: itself)."""
    if not _golden_dir(directory, root):
        return None
    files: dict[str, str] = {}
    for path in _golden_paths(directory, root):
        files[path.relative_to(directory).as_posix()] = read_text(path)
    return files


def _golden_dir(directory: Path, root: Path | None) -> bool:
    """Whether the golden directory ``directory`` exists: inside ``root`` (a version's
    golden directory linked out of the golden root is bad input), a directory."""
    found = contain.entry(directory, root or directory, "the golden directory")
    if found == contain.FILE:
        raise InputError("not a directory", file=str(directory))
    return found == contain.DIRECTORY


def _golden_paths(directory: Path, root: Path | None = None) -> list[Path]:
    """The golden files under ``directory`` (dot-files aside). Goldens come with the
    merge request too: a link out of the golden root, a FIFO or device, or a name with
    control characters is bad input, as in the manifest tree."""
    out = []
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if any(part.startswith(".") for part in rel.parts):
            continue
        refuse_name(path)
        if contain.entry(path, root or directory, "the golden directory") == contain.FILE:
            out.append(path)
    return out


def read_golden(
    directory: Path, root: Path | None = None
) -> tuple[dict[str, str], dict[str, str]] | None:
    """Like :func:`load_golden`, but a golden file that cannot be read as UTF-8 text does
    not stop the comparison: it is read leniently (undecodable bytes become U+FFFD) and
    listed in the second mapping, path -> why, so the gate counts it as changed."""
    if not _golden_dir(directory, root):
        return None
    files: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for path in _golden_paths(directory, root):
        name = path.relative_to(directory).as_posix()
        try:
            files[name] = read_text(path)
        except InputError as exc:
            at = f" at line {exc.line}" if exc.line is not None else ""
            unreadable[name] = f"unreadable: {exc.message}{at}"
            try:
                with open(path, "rb") as fh:
                    files[name] = fh.read(MAX_INPUT_BYTES).decode("utf-8", "replace")
            except OSError:
                files[name] = ""
    return files, unreadable


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


def write_golden(
    directory: Path,
    new: Mapping[str, str],
    changes: Sequence[FileChange] | None = None,
    root: Path | None = None,
) -> list[FileChange]:
    """Make ``directory`` hold exactly ``new``; unchanged files are not touched.

    ``changes`` are :func:`file_changes` of the goldens now in ``directory`` against
    ``new`` when the caller has them (the gate compared them already); otherwise the
    goldens are loaded to find them. Every changed file is staged beside its target and
    renamed into place, so an interrupt leaves each golden file whole (old or new);
    stale files go last. Nothing is written or removed outside ``root`` (default:
    ``directory``): a version directory or a subdirectory linked elsewhere is refused.
    """
    if changes is None:
        changes = file_changes(load_golden(directory, root) or {}, new)
    changes = list(changes)
    base = root or directory
    contain.directory(directory, base, "the golden directory", missing_ok=True)
    contain.not_a_link(directory)
    for c in changes:
        contain.inside((directory / c.path).parent, base, "the golden directory")
        if c.change == "removed" and os.path.lexists(directory / c.path):
            contain.not_a_link(directory / c.path)
    write_tree(directory, {c.path: new[c.path] for c in changes if c.change != "removed"})
    for c in changes:
        if c.change == "removed":
            (directory / c.path).unlink(missing_ok=True)
    for parent in sorted({(directory / c.path).parent for c in changes}, reverse=True):
        if parent != directory and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
    return changes


def file_diffs(
    old: Mapping[str, str], new: Mapping[str, str], label: str, unreadable: Collection[str] = ()
) -> dict[str, str]:
    """A unified diff per differing golden file, ``a/<label>/`` the golden and
    ``b/<label>/`` the render; ``label`` is the golden directory as it is shown."""
    import difflib  # only when goldens differ

    out: dict[str, str] = {}
    for change in file_changes(old, new, unreadable):
        before = old.get(change.path, "")
        after = new.get(change.path, "")
        path = f"{label}/{change.path}"
        out[change.path] = "".join(
            difflib.unified_diff(
                _lines(before),
                _lines(after),
                fromfile=f"a/{path}" if change.change != "added" else "/dev/null",
                tofile=f"b/{path}" if change.change != "removed" else "/dev/null",
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


# --- object-level differences -------------------------------------------------------


def _ref(obj: K8sObject) -> str:
    """``Kind namespace/name``; a document without a kind or a name is named by position."""
    if obj.kind and obj.name:
        return obj.ref
    missing = " or ".join(w for w, v in (("kind", obj.kind), ("name", obj.name)) if not v)
    return f"{obj.file} object {obj.index + 1} (no {missing})"


def _objects(objects: Iterable[K8sObject]) -> dict[str, Any]:
    """Objects of a rendered file keyed by ``Kind namespace/name`` (repeats numbered)."""
    return {ref: obj.data for ref, obj in _numbered(objects).items()}


def _numbered(objects: Iterable[K8sObject]) -> dict[str, K8sObject]:
    out: dict[str, K8sObject] = {}
    for obj in objects:
        ref = base = _ref(obj)
        n = 2
        while ref in out:
            ref = f"{base} #{n}"
            n += 1
        out[ref] = obj
    return out


def owners(path: str, scenarios: Sequence[str]) -> list[str]:
    """The scenarios whose output golden file ``path`` holds: ``common/`` belongs to every
    scenario, ``a+b/`` to a and b, ``a/`` to a; anything else to none."""
    top, _, name = path.partition("/")
    if not name:
        return []
    if top == COMMON:
        return list(scenarios)
    return [s for s in scenarios if s in top.split(SHARED)]


def _scenario_view(files: Mapping[str, str], scenario: str) -> dict[str, str]:
    """The rendered files of ``scenario`` as seen through the golden layout."""
    view: dict[str, str] = {}
    for path, text in files.items():
        name = path.partition("/")[2]
        if owners(path, [scenario]) and name != DECISION_FILE:
            view[name] = text
    return view


def _explained(path: str, scenarios: Sequence[str]) -> bool:
    """Whether a scenario's view or decision covers golden file ``path``."""
    top, _, name = path.partition("/")
    if name == DECISION_FILE:
        return top in scenarios
    return bool(owners(path, scenarios))


#: (ref, path, old, new, note) of an :class:`ObjectChange`.
Change = tuple[str, str, str | None, str | None, str]


def object_changes(
    old: Mapping[str, str],
    new: Mapping[str, str],
    scenarios: Iterable[str],
    known: Mapping[tuple[str, str], Sequence[K8sObject]] | None = None,
    unreadable: Mapping[str, str] | None = None,
) -> list[ObjectChange]:
    """Changes per object, decision or whole file, merged across the scenarios they
    appear in; changed golden files no scenario renders come last, with no scenario.

    ``known`` holds files already parsed, keyed by (file name, text), such as the
    renders the gate parsed; any other file is parsed here, once. ``unreadable`` maps
    golden paths that could not be read to why: they are reported, not parsed.
    """
    scenarios = list(scenarios)
    merged: dict[Change, ObjectChange] = {}
    parsed: dict[tuple[str, str], dict[str, Any] | str] = {}
    known = known or {}
    unreadable = unreadable or {}
    # where the renders (parsed with source maps) put each object: its template line
    located: dict[str, str] = {}

    def locate(text: str | None, file: str) -> None:
        found = known.get((file, text)) if text is not None else None
        for ref, obj in _numbered(found or ()).items():
            if obj.source_line:
                located.setdefault(ref, obj.where)

    def objects(text: str, file: str) -> dict[str, Any] | str:
        key = (file, text)
        if key not in parsed:
            try:
                found = known.get(key)
                parsed[key] = _objects(found if found is not None else parse_stream(text, file))
            except CalicoRenderError as exc:
                parsed[key] = str(exc)
        return parsed[key]

    for scenario in scenarios:
        before = _scenario_view(old, scenario)
        after = _scenario_view(new, scenario)
        bad = {p.partition("/")[2]: why for p, why in unreadable.items() if owners(p, [scenario])}
        changes: list[Change] = []
        prefix = f"{scenario}/{DECISION_FILE}"
        if prefix in unreadable:
            changes.append((DECISION_FILE, "", None, None, f"golden {unreadable[prefix]}"))
        elif old.get(prefix) != new.get(prefix):
            changes.extend(_decision_changes(old.get(prefix), new.get(prefix)))
        for name in sorted(set(before) | set(after)):
            if name in bad:
                changes.append((name, "", None, None, f"golden {bad[name]}"))
                continue
            if before.get(name) == after.get(name):
                continue
            if name not in after or name not in before:
                present = (None, "present") if name not in before else ("present", None)
                changes.append((name, "", *present, ""))
                continue
            a = objects(before[name], name)
            b = objects(after[name], name)
            locate(after.get(name), name)
            if isinstance(a, str) or isinstance(b, str):
                side, problem = ("golden", a) if isinstance(a, str) else ("render", str(b))
                changes.append((name, "", None, None, f"{side} cannot be parsed: {problem}"))
                continue
            changes.extend(_changed_objects(a, b))
        for key in changes:
            if key not in merged:
                merged[key] = ObjectChange(*key[:4], note=key[4], file=located.get(key[0], ""))
            merged[key].scenarios.append(scenario)
    return list(merged.values()) + _unexplained_changes(old, new, scenarios, unreadable)


def _changed_objects(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    """Objects (by numbered ref) added, removed or changed field by field in one file."""
    changes: list[Change] = []
    for ref in sorted(set(a) | set(b)):
        if ref not in b:
            changes.append((ref, "", "present", None, ""))
        elif ref not in a:
            changes.append((ref, "", None, "present", ""))
        else:
            changes.extend((ref, p, o, n, "") for p, o, n in diff_values(a[ref], b[ref]))
    return changes


def _unexplained_changes(
    old: Mapping[str, str],
    new: Mapping[str, str],
    scenarios: Sequence[str],
    unreadable: Mapping[str, str],
) -> list[ObjectChange]:
    """Changed golden files no scenario's view or decision covers, whole, by path."""
    out: list[ObjectChange] = []
    for path in sorted(set(old) | set(new)):
        if _explained(path, scenarios):
            continue
        if path in unreadable:
            out.append(ObjectChange(path, "", None, None, note=f"golden {unreadable[path]}"))
        elif path not in new:
            out.append(ObjectChange(path, "", "present", None))
        elif path not in old:
            out.append(ObjectChange(path, "", None, "present"))
        elif old[path] != new[path]:
            out.append(ObjectChange(path, "", None, None, note="modified"))
    return out


def _decision_changes(old: str | None, new: str | None) -> list[Change]:
    """``decision.json: key old -> new`` per key, or the whole file added or removed."""
    if old is None or new is None:
        return [
            (
                DECISION_FILE,
                "",
                None if old is None else "present",
                None if new is None else "present",
                "",
            )
        ]
    try:
        a = json.loads(old)
    except ValueError:
        return [(DECISION_FILE, "", None, None, "golden is not valid JSON")]
    try:
        b = json.loads(new)
    except ValueError:
        return [(DECISION_FILE, "", None, None, "render is not valid JSON")]
    return [(DECISION_FILE, p, o, n, "") for p, o, n in diff_values(a, b)]


# --- the goldens stage of a check -----------------------------------------------------


def update_command(options: CheckOptions) -> str:
    """The command that (re)creates goldens for the checked tree."""
    parts = ["calico-render", "check"]
    if options.manifests_arg is not None:
        parts += ["--manifests", options.manifests_arg]
    if options.golden_arg is not None:
        parts += ["--golden", options.golden_arg]
    if options.kube_args:
        for k in options.kube_versions:
            parts += ["--kube-version", k]
    return shlex.join([*parts, "--update-golden"])


def golden_label(options: CheckOptions) -> str:
    """How the report names the golden directory."""
    if options.golden_arg is not None:
        return options.golden_arg
    return "(bundled goldens)" if options.root is None else str(options.golden)


def _failed(result: VersionResult, error: CalicoRenderError) -> list[Finding]:
    file, line = locate(error.location())
    result.golden.status = result.stages[GOLDENS] = FAIL
    return [Finding("goldens-error", ERROR, error.message, stage=GOLDENS, file=file, line=line)]


def _set_all(result: VersionResult, status: str) -> list[Finding]:
    result.golden.status = result.stages[GOLDENS] = status
    for s in result.scenarios:
        s.golden = status
    return []


def compare_stage(
    result: VersionResult,
    outputs: Sequence[ScenarioOutput],
    parsed: Mapping[tuple[str, str], Sequence[K8sObject]],
    options: CheckOptions,
) -> list[Finding]:
    """The goldens stage: the version's scenario renders against its golden directory;
    records the comparison and the stage's status in ``result``, returns its findings."""
    new = golden_files(outputs)
    result.rendered = new
    directory = options.golden / result.version
    g = result.golden
    g.directory = str(directory)
    g.command = update_command(options)
    try:
        loaded = read_golden(directory, options.golden)
    except CalicoRenderError as exc:
        return _failed(result, exc)
    except OSError as exc:
        return _failed(
            result, InputError(f"cannot read: {exc.strerror or exc}", file=str(directory))
        )
    if loaded is None:
        return _set_all(result, MISSING)
    old, unreadable = loaded
    found = [
        Finding(
            "golden-unreadable",
            ERROR,
            f"golden file {why}; it counts as changed",
            stage=GOLDENS,
            file=str(directory / path),
        )
        for path, why in unreadable.items()
    ]
    g.files = file_changes(old, new, unreadable)
    if not g.files:
        _set_all(result, PASS)
        return found
    g.status = result.stages[GOLDENS] = FAIL
    names = [o.name for o in outputs]
    g.file_diffs = file_diffs(old, new, diff_label(directory), unreadable)
    g.diff = "".join(g.file_diffs.values())
    g.changes = object_changes(old, new, names, parsed, unreadable)
    for s in result.scenarios:
        mine = [c.describe() for c in g.changes if s.name in c.scenarios]
        owned = any(s.name in owners(f.path, names) for f in g.files)
        s.changes = mine
        s.golden = FAIL if mine or owned else PASS
    return found


def apply_update(result: VersionResult, options: CheckOptions) -> None:
    """Write the version's rendered goldens and record what changed."""
    if result.rendered is None or result.golden.status not in (FAIL, MISSING):
        return
    directory = options.golden / result.version
    if result.golden.status == FAIL:
        changes = result.golden.files  # what the comparison found
    else:  # MISSING: there are no goldens, every file is new
        changes = file_changes({}, result.rendered)
    result.golden.files = write_golden(directory, result.rendered, changes, options.golden)
    result.golden.status = result.stages[GOLDENS] = UPDATED
    for s in result.scenarios:
        s.golden = UPDATED if s.golden in (FAIL, MISSING) else s.golden


def find_stale(options: CheckOptions, versions: Collection[str]) -> list[StaleGolden]:
    """Golden directories named like a version that is not in the tree, in version order.

    Only directories whose name is a version (``v3.28.2``) count, so a golden root
    pointing at the wrong place never makes unrelated directories "stale".
    """
    root = options.golden
    if not root.is_dir():
        return []
    dirs = [
        p
        for p in root.iterdir()
        if p.is_dir()
        and not p.name.startswith(".")
        and p.name not in versions
        and semver_key(p.name)[0] == 0
    ]
    out = []
    for d in sorted(dirs, key=lambda p: semver_key(p.name)):
        try:
            files = sorted(
                f.relative_to(d).as_posix()
                for f in d.rglob("*")
                if f.is_file() and not any(x.startswith(".") for x in f.relative_to(d).parts)
            )
        except FileNotFoundError:  # removed while listed (a concurrent update)
            continue
        out.append(StaleGolden(d.name, str(d), files, update_command(options)))
    return out


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
        if aside.is_symlink():
            aside.unlink()
        else:
            shutil.rmtree(aside)
    except OSError as exc:
        raise InputError(f"cannot remove: {exc.strerror or exc}", file=str(directory)) from None
    stale.status = UPDATED
