"""The one finding model every stage reports in: rules, schema, capability, fidelity,
context, goldens and the scale advice.

A finding names its rule, severity and stage, the object (:class:`ObjectRef`) and
field path it is about, where it is (file relative to ROOT, template line and column),
and the scenarios and Kubernetes versions it holds for (see :func:`merge_findings`).
What one stage alone needs (a context finding's key, a registry finding's image) is in
``details``, a :class:`Details` dataclass of that stage's own. Every report spells a
finding the same way (:mod:`renderer.output.findings`, ``schemas/finding.schema.json``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

ERROR = "error"
WARNING = "warning"
INFO = "info"

# The stages a finding comes from (``Finding.stage``), as every report names them
# (``schemas/finding.schema.json``); the modules that find them refer to these names.
#: What a command was given could not be used (the run ended in exit 2).
INPUT = "input"
TEMPLATES = "templates"
#: What the templates read that no BKE config can set, values that change the YAML.
CONTEXT = "context"
#: The Typha contract.
CAPABILITY = "capability"
#: The release rules.
RULES = "rules"
SCHEMA = "schema"
#: Template branches no scenario renders.
COVERAGE = "coverage"
GOLDENS = "goldens"
#: The comparison with upstream's manifests.
FIDELITY = "fidelity"
#: The scale advice.
SCALE = "scale"
#: Every rendered image in its registry.
REGISTRY = "registry"


@dataclass(frozen=True, order=True, slots=True)
class ObjectRef:
    """The Kubernetes object a finding is about; ``api_version`` "" when the stage
    that found it does not know it (a fidelity or scale finding names objects by text)."""

    kind: str
    name: str
    namespace: str = ""
    api_version: str = ""

    def __str__(self) -> str:
        """``Kind namespace/name`` (``Kind name`` when cluster-scoped)."""
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"

    @classmethod
    def parse(cls, text: str) -> ObjectRef | None:
        """An object named ``Kind namespace/name`` (or ``Kind name``); None for ""."""
        if not text:
            return None
        kind, _, rest = text.partition(" ")
        namespace, _, name = rest.rpartition("/")
        return cls(kind, name, namespace)


@dataclass(frozen=True, slots=True)
class Details:
    """What one stage alone says about a finding, typed: each stage that carries more
    than the common fields subclasses this as a frozen dataclass beside the code that
    finds it (``ContextDetails`` in :mod:`renderer.bke.context`, ``ImageDetails`` in
    :mod:`renderer.checks.registry`, ``ScaleDetails`` in
    :mod:`renderer.calico.scale.registry`). Its JSON is written in one place,
    :func:`renderer.output.findings.details_dict`: the fields in order, a field that is
    None left out, dataclass values as their fields, mappings and sequences as they are.
    """


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem (or note) a stage found; severity "error" fails what it is about."""

    rule: str
    severity: str
    message: str
    stage: str = ""
    object: ObjectRef | None = None
    field: str = ""
    #: The file: relative to ROOT for a file of the tree
    #: (``kubernetes/calico/v3.31.3/calico.yaml``), as given for any other input.
    file: str = ""
    #: The template line of the field (or object); 0 when unknown.
    line: int = 0
    #: The column on that line; 0 when unknown.
    column: int = 0
    #: The object's line in the rendered file (rules), as secondary context.
    rendered_line: int = 0
    scenarios: tuple[str, ...] = ()
    kube_versions: tuple[str, ...] = ()
    #: The reason of the reviewed exception that downgraded it (see renderer.checks.exceptions).
    exception: str = ""
    #: What one stage alone carries (:class:`Details`); None: nothing more.
    details: Details | None = dataclasses.field(default=None, compare=False)

    @property
    def where(self) -> str:
        """``path:line:column`` with whatever parts are known ("" without a file)."""
        if not self.file:
            return ""
        parts = [self.file]
        if self.line:
            parts.append(str(self.line))
            if self.column:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        """The one text form, as compilers and yamllint print a problem so editors and
        CI logs link it: ``path:line:column: severity: [rule] object field: message``,
        then the Kubernetes versions, scenarios and exception it holds for."""
        where = f"{self.where}: " if self.file else ""
        extra = [
            f"{k} {', '.join(v)}"
            for k, v in (("kube", self.kube_versions), ("scenarios", self.scenarios))
            if v
        ]
        if self.exception:
            extra.append(f"excepted: {self.exception}")
        tail = f" ({'; '.join(extra)})" if extra else ""
        return f"{where}{self.severity}: [{self.rule}] {self.headline}{tail}"

    @property
    def headline(self) -> str:
        """What it says, without where and for what: ``object field: message``."""
        at = f"{self.object} " if self.object else ""
        fld = f"{self.field}: " if self.field else ""
        return f"{at}{fld}{self.message}"


def locate(where: str) -> tuple[str, int]:
    """A ``file:line`` location as (file, line); line 0 when it has none."""
    file, line = split_location(where)
    return file or "", line or 0


def split_location(where: str) -> tuple[str | None, int | None]:
    """``file:line`` as a stage may carry it: the file and the line apart, None for
    what is unknown."""
    if not where:
        return None, None
    file, sep, line = where.rpartition(":")
    if sep and file and line.isdigit():
        return file, int(line)
    return where, None


def _union(a: tuple[str, ...], b: Iterable[str]) -> tuple[str, ...]:
    return a + tuple(x for x in b if x not in a)


def merge_key(f: Finding) -> tuple[object, ...]:
    """What makes two findings one defect: the same rule (stage, severity, exception) on
    the same object and field at the same template line, whatever the scenario,
    Kubernetes version or registry variant it was found in. A finding not located at
    a field is one defect with those equal in message, wherever each scenario placed
    it (an object upstream has that is missing, found against two upstream files)."""
    base = (f.stage, f.rule, f.severity, f.exception, f.object, f.field)
    if f.file and f.line and f.field:
        return (*base, f.file, f.line)
    return (*base, f.message)


def merge_findings(findings: Iterable[Finding], order: Sequence[str] = ()) -> list[Finding]:
    """Findings of one defect (:func:`merge_key`) become one listing every scenario (in
    ``order``, then first-seen) and Kubernetes version: a typo'd field is one error, not
    one per render. Messages that differ (a value each scenario renders its own way)
    are kept, each once, in first-seen order."""
    merged: dict[tuple[object, ...], Finding] = {}
    for f in findings:
        key = merge_key(f)
        m = merged.get(key)
        if m is None:
            merged[key] = f
            continue
        message = m.message
        if f.message != m.message and f.message not in m.message.split("; "):
            message = f"{m.message}; {f.message}"
        merged[key] = replace(
            m,
            message=message,
            scenarios=_union(m.scenarios, f.scenarios),
            kube_versions=_union(m.kube_versions, f.kube_versions),
        )
    if not order:
        return list(merged.values())
    rank = {name: i for i, name in enumerate(order)}
    return [
        replace(f, scenarios=tuple(sorted(f.scenarios, key=lambda s: rank.get(s, len(rank)))))
        for f in merged.values()
    ]


def merge_located(findings: Iterable[Finding]) -> list[Finding]:
    """:func:`merge_findings` for findings that are only identical at one place (the
    objects of several files given to ``validate``): merged per file and line, in
    first-seen order."""
    groups: dict[tuple[str, int], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.file, f.line), []).append(f)
    return [m for group in groups.values() for m in merge_findings(group)]


def notes(stage: str, rule: str, messages: Iterable[str], severity: str = WARNING) -> list[Finding]:
    """Findings of a command that only has words to say (a plan's or a context's
    warnings), one per distinct message, so they count and serialise like any other."""
    return [Finding(rule, severity, m, stage=stage) for m in dict.fromkeys(messages)]


def blocking(findings: Iterable[Finding]) -> list[Finding]:
    """The error findings (what blocks a release)."""
    return [f for f in findings if f.severity == ERROR]


__all__ = [
    "CAPABILITY",
    "CONTEXT",
    "COVERAGE",
    "ERROR",
    "FIDELITY",
    "GOLDENS",
    "INFO",
    "INPUT",
    "REGISTRY",
    "RULES",
    "SCALE",
    "SCHEMA",
    "TEMPLATES",
    "WARNING",
    "Details",
    "Finding",
    "ObjectRef",
    "blocking",
    "locate",
    "merge_findings",
    "merge_key",
    "merge_located",
    "notes",
    "split_location",
]
