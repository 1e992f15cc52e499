"""No silent drops: user-given params a version's templates never read, or whose value
matches none of the branches the templates take on it.

A typo (``--set calicomode=ipip``) or a param a version does not read (``podSubnet`` on
BKE's real v3.31.3) renders as if it were never given, with exit 0. Only values the
user gave are judged (``--set``, ``--values``, a config's addon params), never the
controller's common params or bkeadm's defaults. Pure: reads compiled templates only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from renderer.bke import TYPHA_KEYS
from renderer.bke.context import ADDON_PARAM, USER, ContextInputs, Entry, Param, file_base
from renderer.engine.compile import compile_file
from renderer.engine.render import is_verbatim
from renderer.k8s.gcpause import gc_paused
from renderer.manifests.tree import TemplateFile, VersionDir

#: Sources of values the user gave (per-file entries keep the source of their param).
USER_SOURCES = frozenset({USER, ADDON_PARAM})
PARAM_UNREAD = "param-unread"
PARAM_VALUE_UNMATCHED = "param-value-unmatched"


@dataclass(frozen=True, slots=True)
class ParamWarning:
    """One user-given param that changes nothing, or takes no branch, in a version."""

    rule: str
    key: str
    value: str
    version: str
    message: str
    suggestion: str = ""

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, str]:
        return {
            "rule": self.rule,
            "key": self.key,
            "value": self.value,
            "version": self.version,
            "message": self.message,
            "suggestion": self.suggestion,
        }


def _keys(tf: TemplateFile) -> frozenset[str]:
    return compile_file(tf).keys


def _branches(tf: TemplateFile) -> Mapping[str, Any]:
    branches: Mapping[str, Any] = getattr(compile_file(tf), "branches", {})
    return branches


def _line(tf: TemplateFile, offset: int) -> int:
    """The line of ``tf`` at ``offset`` into its source."""
    return tf.source.count("\n", 0, offset) + 1


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """The closest key a template reads (case-insensitive), or ""."""
    import difflib  # only when a key is unread: a clean render never loads it

    lower = {k.lower(): k for k in sorted(known)}
    close = difflib.get_close_matches(key.lower(), list(lower), n=1, cutoff=0.75)
    return lower[close[0]] if close else ""


#: Unread keys of one render that get a "did you mean" (see :meth:`_Reads.hint`).
MAX_HINTS = 1000


class _Reads:
    """The keys each group of files reads, and a matcher for "did you mean", built once
    per group: a values file of 200,000 keys united the files' key sets and rebuilt
    difflib's tables once per key (0.5 ms each)."""

    def __init__(self) -> None:
        self._read: dict[tuple[str, ...], frozenset[str]] = {}
        self._near: dict[tuple[str, ...], _Near] = {}
        self._groups: dict[int, tuple[str, ...]] = {}
        self._alive: list[Sequence[TemplateFile]] = []
        self.hints = 0

    def read(self, targets: Sequence[TemplateFile]) -> tuple[tuple[str, ...], frozenset[str]]:
        # the group of a param is one of a few lists: named once per list, not per key
        group = self._groups.get(id(targets))
        if group is None:
            group = self._groups[id(targets)] = tuple(tf.name for tf in targets)
            self._alive.append(targets)  # keeps the id from naming another list
        if group not in self._read:
            self._read[group] = frozenset().union(*(_keys(tf) for tf in targets))
        return group, self._read[group]

    def hint(self, group: tuple[str, ...], key: str) -> str:
        """The near miss of ``key``; after :data:`MAX_HINTS` keys none is sought (a
        values file of thousands of unread keys is not a typo, and each costs ~0.2 ms)."""
        self.hints += 1
        if self.hints > MAX_HINTS:
            return ""
        if group not in self._near:
            self._near[group] = _Near(self._read[group])
        return self._near[group].closest(key)


class _Near:
    """:func:`did_you_mean` against a fixed set of keys, with the same answers:
    candidates whose length alone rules them out are skipped before difflib compares."""

    CUTOFF = 0.75

    def __init__(self, known: Iterable[str]) -> None:
        import difflib  # built only when a key is unread

        self.lower = {k.lower(): k for k in sorted(known)}
        self.matcher = difflib.SequenceMatcher()

    def closest(self, key: str) -> str:
        word = key.lower()
        m = self.matcher
        m.set_seq2(word)
        best: tuple[float, str] | None = None
        for candidate in self.lower:
            total = len(word) + len(candidate)
            if not total or 2.0 * min(len(word), len(candidate)) / total < self.CUTOFF:
                continue
            m.set_seq1(candidate)
            if m.quick_ratio() >= self.CUTOFF:
                score = m.ratio()
                if score >= self.CUTOFF and (best is None or (score, candidate) > best):
                    best = (score, candidate)
        return self.lower[best[1]] if best else ""


def check_params(
    version: VersionDir, params: Sequence[Param], nested: Mapping[str, Entry] | None = None
) -> list[ParamWarning]:
    """Warnings for the user-given ``params`` (and map values ``nested``) of a render of
    ``version``: a key no template it reaches reads (per-file ``F.K`` params count for
    file F only), with "did you mean" for a near miss; a value none of the literals the
    templates compare the key with, where an ``if eq`` without else then renders nothing.
    Keys the controller or the policy overrides (``repo``, the Typha keys) and dotted
    keys naming no file are warned about elsewhere."""
    with gc_paused():  # a warning per key of a big values file, no cycles
        return _check_params(version, params, nested)


def _check_params(
    version: VersionDir, params: Sequence[Param], nested: Mapping[str, Entry] | None
) -> list[ParamWarning]:
    files = [tf for tf in version.files if not is_verbatim(version, tf)]
    by_base: dict[str, list[TemplateFile]] = {}
    for tf in files:
        by_base.setdefault(file_base(tf.name), []).append(tf)
    out: dict[tuple[str, str, str], ParamWarning] = {}
    reads = _Reads()
    given = [p for p in params if p.source in USER_SOURCES]
    given += [Param(k, None, e.source, e.detail) for k, e in (nested or {}).items()]
    # what a key for every file meets; read only when a param was given (compiling the
    # templates for their keys loads the engine, which a warm render never needs)
    every = reads.read(files) if files and given else None
    name = version.name
    skip = frozenset({"", "repo", *TYPHA_KEYS})
    for p in given:
        pkey = p.key
        if every is not None and "." not in pkey:
            targets, key, scope = files, pkey, ""
            group, read = every
        else:
            parts = pkey.split(".")
            targets = files if len(parts) == 1 else by_base.get(parts[0], [])
            key = parts[0] if len(parts) == 1 else parts[1]
            if not targets:
                continue
            scope = "" if len(parts) == 1 else f" for {targets[0].name}"
            group, read = reads.read(targets)
        if key in skip:
            continue
        if key not in read:
            hint = reads.hint(group, key) if reads.hints < MAX_HINTS else ""
            slot = (PARAM_UNREAD, pkey, "")
            if slot in out:  # the first warning for a key stays (a warning per key is built)
                continue
            tail = f"; did you mean {hint!r}?" if hint else ""
            value = p.value
            out[slot] = ParamWarning(
                PARAM_UNREAD,
                pkey,
                value if value.__class__ is str else "" if value is None else str(value),
                name,
                f"param {pkey!r} ({p.detail}) is read by no template of "
                f"{name}{scope}: it changes nothing{tail}",
                hint,
            )
            continue
        if not isinstance(p.value, str):
            continue
        literals: set[str] = set()
        dead = False
        fallbacks: list[str] = []
        for tf in targets:
            b = _branches(tf).get(key)
            if b is not None:
                literals |= b.values
                dead = dead or b.dead_end
                fallbacks += [f"{tf.name}:{_line(tf, at)}" for at in sorted(b.fallbacks)]
        if literals and p.value not in literals:
            names = ", ".join(repr(v) for v in sorted(literals))
            if fallbacks:
                takes = f"the else branches render instead ({', '.join(fallbacks)})"
                if dead:
                    takes += ", and the branches without an else render nothing"
            else:
                takes = f"{p.value!r} takes none of those branches: they render nothing"
            out.setdefault(
                (PARAM_VALUE_UNMATCHED, p.key, p.value),
                ParamWarning(
                    PARAM_VALUE_UNMATCHED,
                    p.key,
                    p.value,
                    version.name,
                    f"param {p.key}={p.value!r} ({p.detail}) is none of the values the "
                    f"templates of {version.name} compare it with ({names}): {takes}",
                ),
            )
    return list(out.values())


def inputs_warnings(version: VersionDir, inputs: ContextInputs) -> list[ParamWarning]:
    """:func:`check_params` on a render's context inputs."""
    return check_params(version, inputs.params, inputs.nested)
