"""Derive BKE's ``kubernetes/calico/<version>/`` templates from upstream Calico manifests.

Upstream ships one release as three files that differ in known places: ``calico.yaml``
(no Typha, IPIP), ``calico-typha.yaml`` (five Typha differences) and ``calico-vxlan.yaml``
(the VXLAN data plane). The importer line-diffs them document by document, recognises
every difference, and writes each as a Go-template conditional on its own lines around
the upstream text, so either branch renders byte for byte as upstream. Nothing is parsed
and re-serialised: comments, order and indentation stay. A difference or anchor it does
not recognise is an error naming file and line, never a guess.

Pure functions from texts to texts; :func:`renderer.api.import_version` does the I/O.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from renderer.calico import names
from renderer.errors import InputError

#: The documents the importer edits in calico.yaml, by (kind, name).
_NODE_DOC = ("DaemonSet", names.NODE_DAEMONSET)
_CONFIG_DOC = ("ConfigMap", names.CONFIG_MAP)
_TYPHA_KEY = re.escape(names.CONFIG_TYPHA_KEY)

BASE = "calico.yaml"
TYPHA = "calico-typha.yaml"
VXLAN = "calico-vxlan.yaml"
LAYOUTS = ("split", "single")
SPLIT_FILES = ("000-crds.yaml", "001-typha.yaml", "002-calico.yaml")
SINGLE_FILE = "calico.yaml"

TYPHA_ON = 'eq .allowTypha "true"'
MODE_VXLAN = 'eq .calicoMode "vxlan"'
MODE_BGP = 'eq .calicoMode "bgp"'
NOT_VXLAN = 'ne .calicoMode "vxlan"'

#: ``image: <registry/>calico/<component>:<tag>`` as upstream writes it.
IMAGE_LINE = re.compile(r"^(?P<lead>\s*(?:-\s+)?image:\s*)(?P<image>\S+)(?P<trail>\s*)$")
CALICO_IMAGE = re.compile(
    r"^(?P<registry>(?:[^\s/]+/)*)(?P<path>calico/(?:cni|node|kube-controllers|typha)):"
    r"(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]*)$"
)
_KIND = re.compile(r"^kind:\s*(\S+)\s*$")
_NAME = re.compile(r"^  name:\s*(\S+)\s*$")
_ENV_NAME = re.compile(r"^\s*- name:\s*(\S+)\s*$")
_BRACES = re.compile(r"\{\{|\}\}")


@dataclass(frozen=True)
class Source:
    """One upstream file: its name (``calico.yaml``...) and text."""

    name: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Options:
    """How to import: ``layout`` split or single; ``default_registry`` the image prefix
    when ``repo`` is empty (None: ``{{ .repo }}`` alone); ``typha`` False for a legacy
    directory from calico.yaml alone; ``version`` the tag the images must carry."""

    layout: str = "split"
    default_registry: str | None = None
    typha: bool = True
    version: str | None = None


@dataclass(frozen=True)
class Imported:
    """The derived version directory: its name and file name -> template text."""

    version: str
    files: Mapping[str, str]


# --- documents -----------------------------------------------------------------------


@dataclass
class Doc:
    """One YAML document of an upstream file as lines (with newlines), from its ``---``."""

    lines: list[str]
    start: int  # 1-based line number of the first line in its file

    @property
    def kind(self) -> str:
        for line in self.lines:
            m = _KIND.match(line)
            if m:
                return m.group(1)
        return ""

    @property
    def name(self) -> str:
        in_meta = False
        for line in self.lines:
            if line.startswith("metadata:"):
                in_meta = True
            elif in_meta:
                m = _NAME.match(line)
                if m:
                    return m.group(1)
                if line[:1] not in (" ", "#", "\n", ""):
                    in_meta = False
        return ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)


def split_docs(text: str) -> list[Doc]:
    """Split at ``---`` lines; each document keeps its separator, so joining restores
    the text exactly."""
    docs: list[Doc] = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.rstrip("\r\n") == "---" or not docs:
            docs.append(Doc([], number))
        docs[-1].lines.append(line)
    return docs


def _fail(
    message: str, source: str, line: int | None = None, anchor: str | None = None
) -> NoReturn:
    raise InputError(message, file=source, line=line, key=anchor)


def _find_doc(docs: Sequence[Doc], kind: str, name: str, source: str) -> int:
    found = [i for i, d in enumerate(docs) if d.key == (kind, name)]
    if len(found) != 1:
        _fail(f"expected exactly one {kind} {name}, found {len(found)}", source, None, name)
    return found[0]


def _anchor(doc: Doc, pattern: str, source: str, what: str) -> int:
    """The index in ``doc`` of the one line matching ``pattern``; else exit 2 naming it."""
    regex = re.compile(pattern)
    hits = [i for i, line in enumerate(doc.lines) if regex.match(line)]
    if len(hits) != 1:
        _fail(
            f"anchor must occur exactly once in {doc.kind} {doc.name}, found {len(hits)}",
            source,
            doc.start,
            what,
        )
    return hits[0]


# --- edits ---------------------------------------------------------------------------


@dataclass
class Edit:
    """Base lines ``[start, end)`` of a document replaced, under conditions, by other
    lines; base lines are the ``else`` branch. ``start == end`` inserts."""

    start: int
    end: int
    branches: list[tuple[str, list[str]]]
    origin: str
    line: int
    #: The ``else`` branch; None keeps the base lines.
    default: list[str] | None = None
    #: Branch lines are template text already (generated), not upstream text.
    raw: bool = False


@dataclass
class Plan:
    """Everything the templates are made of, before emission."""

    version: str
    docs: list[Doc]
    edits: dict[int, list[Edit]] = field(default_factory=dict)
    #: Typha-only documents inserted before base document index (len(docs) = at the end).
    typha_docs: list[tuple[int, Doc]] = field(default_factory=list)

    def add(self, doc: int, edit: Edit, source: str) -> None:
        for other in self.edits.get(doc, []):
            overlap = edit.start < other.end and other.start < edit.end
            same_insert = edit.start == edit.end == other.start == other.end
            if overlap or same_insert:
                _fail(
                    f"differences of {edit.origin} and {other.origin} overlap",
                    source,
                    edit.line,
                )
        self.edits.setdefault(doc, []).append(edit)


def _is_comment(line: str) -> bool:
    return line.strip().startswith("#") or not line.strip()


def _typha_hunk(base: Doc, other: Doc, tag: str, i1: int, i2: int, j1: int, j2: int) -> str:
    """Which known Typha difference a hunk inside a shared document is, or ""."""
    old, new = base.lines[i1:i2], other.lines[j1:j2]
    if base.key == _CONFIG_DOC and tag == "replace":
        olds = [x for x in old if not _is_comment(x)]
        news = [x for x in new if not _is_comment(x)]
        if (
            len(olds) == len(news) == 1
            and re.match(rf'^\s*{_TYPHA_KEY}:\s*"none"\s*$', olds[0])
            and re.match(rf'^\s*{_TYPHA_KEY}:\s*"{re.escape(names.TYPHA)}"\s*$', news[0])
        ):
            return names.CONFIG_TYPHA_KEY
    if base.key == _NODE_DOC and tag == "insert":
        envs = [m.group(1) for m in map(_ENV_NAME.match, new) if m]
        if envs == [names.FELIX_TYPHA_SERVICE_ENV] and any(
            f"key: {names.CONFIG_TYPHA_KEY}" in x for x in new
        ):
            return names.FELIX_TYPHA_SERVICE_ENV
    return ""


_VXLAN_VALUES = {
    "CALICO_IPV4POOL_IPIP": ("Always", "Never"),
    "CALICO_IPV4POOL_VXLAN": ("Never", "CrossSubnet"),
    "CALICO_IPV6POOL_VXLAN": ("Never", "CrossSubnet"),
}


def _vxlan_line(base: Doc, i: int, old: str, new: str) -> bool:
    """One replaced line of the VXLAN data plane."""
    if base.key == _CONFIG_DOC:
        return bool(
            re.match(r'^\s*calico_backend:\s*"bird"\s*$', old)
            and new == old.replace('"bird"', '"vxlan"')
        )
    if base.key != _NODE_DOC or i == 0:
        return False
    m = _ENV_NAME.match(base.lines[i - 1])
    if not m or m.group(1) not in _VXLAN_VALUES:
        return False
    was, now = _VXLAN_VALUES[m.group(1)]
    return f'value: "{was}"' in old and new == old.replace(f'"{was}"', f'"{now}"')


def _vxlan_hunk(base: Doc, other: Doc, tag: str, i1: int, i2: int, j1: int, j2: int) -> bool:
    old, new = base.lines[i1:i2], other.lines[j1:j2]
    if tag == "delete":
        return base.key == _NODE_DOC and all(
            re.match(r"^\s*-\s+-bird-(live|ready)\s*$", x) for x in old
        )
    if tag == "replace" and len(old) == len(new):
        return all(
            _vxlan_line(base, i1 + k, o, n) for k, (o, n) in enumerate(zip(old, new, strict=True))
        )
    return False


def _align(base: list[Doc], other: list[Doc]) -> list[tuple[str, int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, [d.key for d in base], [d.key for d in other], False)
    return [(str(tag), i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def _line_hunks(base: Doc, other: Doc) -> list[tuple[str, int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, base.lines, other.lines, False)
    return [(str(t), i1, i2, j1, j2) for t, i1, i2, j1, j2 in matcher.get_opcodes() if t != "equal"]


TYPHA_DOCS = (
    ("PodDisruptionBudget", names.TYPHA_PDB),
    ("Service", names.TYPHA_SERVICE),
    ("Deployment", names.TYPHA_DEPLOYMENT),
)
TYPHA_DIFFERENCES = (
    f"PodDisruptionBudget {names.TYPHA_PDB}",
    names.CONFIG_TYPHA_KEY,
    f"Service {names.TYPHA_SERVICE}",
    names.FELIX_TYPHA_SERVICE_ENV,
    f"Deployment {names.TYPHA_DEPLOYMENT}",
)


def _plan_typha(plan: Plan, typha: Source) -> None:
    """Record the five Typha differences of calico-typha.yaml against calico.yaml."""
    other = split_docs(typha.text)
    found: list[str] = []
    for tag, i1, i2, j1, j2 in _align(plan.docs, other):
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                for htag, a1, a2, b1, b2 in _line_hunks(plan.docs[i], other[j]):
                    what = _typha_hunk(plan.docs[i], other[j], htag, a1, a2, b1, b2)
                    if not what:
                        _fail(
                            "difference from calico.yaml is none of the known Typha ones",
                            typha.name,
                            other[j].start + b1,
                        )
                    found.append(what)
                    edit = Edit(
                        a1, a2, [(TYPHA_ON, other[j].lines[b1:b2])], what, other[j].start + b1
                    )
                    plan.add(i, edit, typha.name)
            continue
        if tag != "insert":
            _fail(
                "document differs from calico.yaml in a way no Typha difference explains",
                typha.name,
                other[j1].start if j1 < len(other) else None,
            )
        for j in range(j1, j2):
            if other[j].key not in TYPHA_DOCS:
                _fail(
                    f"extra document {other[j].kind} {other[j].name} is not Typha's",
                    typha.name,
                    other[j].start,
                )
            found.append(f"{other[j].kind} {other[j].name}")
            plan.typha_docs.append((i1, other[j]))
    for what in TYPHA_DIFFERENCES:
        if found.count(what) != 1:
            _fail(
                f"expected the Typha difference exactly once, found {found.count(what)}",
                typha.name,
                None,
                what,
            )


def _plan_vxlan(plan: Plan, vxlan: Source) -> None:
    """Record the VXLAN data plane differences of calico-vxlan.yaml under calicoMode."""
    other = split_docs(vxlan.text)
    if [d.key for d in other] != [d.key for d in plan.docs]:
        for tag, _i1, _i2, j1, _j2 in _align(plan.docs, other):
            if tag != "equal":
                line = other[j1].start if j1 < len(other) else None
                _fail("documents differ from calico.yaml", vxlan.name, line)
    for i, (mine, theirs) in enumerate(zip(plan.docs, other, strict=True)):
        for tag, a1, a2, b1, b2 in _line_hunks(mine, theirs):
            if not _vxlan_hunk(mine, theirs, tag, a1, a2, b1, b2):
                _fail(
                    "difference from calico.yaml is none of the known VXLAN ones",
                    vxlan.name,
                    theirs.start + b1,
                )
            if tag == "delete":  # kept unless vxlan, so no empty branch
                branches = [(NOT_VXLAN, mine.lines[a1:a2])]
                edit = Edit(a1, a2, branches, "VXLAN", theirs.start + b1, default=[])
            else:
                branches = [(MODE_VXLAN, theirs.lines[b1:b2])]
                edit = Edit(a1, a2, branches, "VXLAN", theirs.start + b1)
            plan.add(i, edit, vxlan.name)


def _env_value(doc: Doc, name: str, source: str) -> int:
    """The index of the ``value:`` line of env ``name`` in ``doc``."""
    i = _anchor(doc, rf"^\s*- name:\s*{re.escape(name)}\s*$", source, f"- name: {name}")
    if i + 1 >= len(doc.lines) or not re.match(r'^\s*value:\s*"', doc.lines[i + 1]):
        _fail("anchor is not followed by its value line", source, doc.start + i, name)
    return i + 1


def _plan_modes(plan: Plan, source: str) -> None:
    """calicoMode bgp: bird, IPIP Never, VXLAN Never (no encapsulation)."""
    n = _find_doc(plan.docs, "DaemonSet", names.NODE_DAEMONSET, source)
    doc = plan.docs[n]
    for name in ("CALICO_IPV4POOL_VXLAN", "CALICO_IPV6POOL_VXLAN"):
        v = _env_value(doc, name, source)
        if '"Never"' not in doc.lines[v]:
            _fail("expected value Never in calico.yaml", source, doc.start + v, name)
    v = _env_value(doc, "CALICO_IPV4POOL_IPIP", source)
    old = doc.lines[v]
    if '"Never"' in old:
        return
    bgp = (MODE_BGP, [re.sub(r'"[^"]*"', '"Never"', old, count=1)])
    for edit in plan.edits.get(n, []):
        if (edit.start, edit.end) == (v, v + 1):
            edit.branches.append(bgp)
            return
    plan.add(n, Edit(v, v + 1, [bgp], "calicoMode bgp", doc.start + v), source)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" "))]


def _env_entry(at: int, pad: str, env: str, key: str, line: int) -> Edit:
    """Insert env ``env`` from context ``key`` at ``at``, only when ``key`` is set."""
    entry = [f"{pad}- name: {env}\n", f'{pad}  value: "{{{{ .{key} }}}}"\n']
    return Edit(at, at, [(f"if .{key}", entry)], env, line, raw=True)


def _plan_node_env(plan: Plan, source: str) -> None:
    """IP_AUTODETECTION_METHOD and CALICO_IPV4POOL_CIDR on calico-node, when set; the
    commented upstream example stays."""
    n = _find_doc(plan.docs, "DaemonSet", names.NODE_DAEMONSET, source)
    doc = plan.docs[n]
    ip = _env_value(doc, "IP", source)
    edit = _env_entry(
        ip + 1,
        _indent(doc.lines[ip - 1]),
        "IP_AUTODETECTION_METHOD",
        "ipAutoDetectionMethod",
        doc.start + ip,
    )
    plan.add(n, edit, source)
    anchor = "# - name: CALICO_IPV4POOL_CIDR"
    c = _anchor(doc, r"^\s*#\s*- name:\s*CALICO_IPV4POOL_CIDR\s*$", source, anchor)
    if c + 1 >= len(doc.lines) or not re.match(r"^\s*#\s+value:", doc.lines[c + 1]):
        _fail("anchor is not followed by its commented value", source, doc.start + c, anchor)
    edit = _env_entry(
        c + 2, _indent(doc.lines[c]), "CALICO_IPV4POOL_CIDR", "podSubnet", doc.start + c
    )
    plan.add(n, edit, source)


def typha_deployment_lines(doc: Doc, source: str, registry: str | None = None) -> list[str]:
    """The Typha Deployment with ``replicas`` from typhaReplicas and a required hostname
    anti-affinity term (release rule ``typha-anti-affinity``); template-ready lines."""
    lines = [_template_line(x, registry) for x in doc.lines]
    r = _anchor(doc, r"^  replicas:\s*\d+\s*$", source, "replicas:")
    lines[r] = "  replicas: {{ .typhaReplicas }}\n"
    if any(re.match(r"^\s+affinity:", x) for x in doc.lines):
        _fail("Typha Deployment already has an affinity", source, doc.start, "affinity:")
    c = _anchor(doc, r"^      containers:\s*$", source, "containers:")
    pad = _indent(doc.lines[c])
    affinity = [
        "affinity:",
        "  podAntiAffinity:",
        "    requiredDuringSchedulingIgnoredDuringExecution:",
        "      - labelSelector:",
        "          matchLabels:",
        f"            {names.APP_LABEL}: {names.TYPHA}",
        "        topologyKey: kubernetes.io/hostname",
    ]
    lines[c:c] = [f"{pad}{x}\n" for x in affinity]
    return lines


# --- emission ------------------------------------------------------------------------


def _image_prefix(registry: str | None) -> str:
    """``{{ .repo }}``, or with a default registry BKE's ``if .repo`` form."""
    if registry is None:
        return "{{ .repo }}"
    return f"{{{{ if .repo }}}}{{{{ .repo }}}}{{{{ else }}}}{_escape(registry)}{{{{ end }}}}"


def _escape(text: str) -> str:
    return _BRACES.sub(lambda m: '{{ "{{" }}' if m.group(0) == "{{" else '{{ "}}" }}', text)


def _template_line(line: str, registry: str | None = None) -> str:
    """Escape template delimiters; put the registry prefix of a Calico image behind repo."""
    m = IMAGE_LINE.match(line.rstrip("\n"))
    if m and not line.lstrip().startswith("#"):
        image = CALICO_IMAGE.match(m.group("image"))
        if image:
            newline = "\n" if line.endswith("\n") else ""
            return (
                f"{m.group('lead')}{_image_prefix(registry)}{image.group('path')}:"
                f"{image.group('tag')}{m.group('trail')}{newline}"
            )
    return _escape(line)


class Writer:
    """Template text built line by line. Condition tags go on lines of their own with
    ``{{-`` (BKE's form): each removes the newline before it and brings its own, which
    is exact when every line a tag follows is non-blank without trailing spaces. A
    conditional where that does not hold has all its tags inline at line starts
    instead, so no upstream byte is ever trimmed."""

    def __init__(self, header: str) -> None:
        self.parts: list[str] = [header]

    def line(self, text: str) -> None:
        self.parts.append(text)

    @staticmethod
    def _trimmable(line: str) -> bool:
        content = line[:-1] if line.endswith("\n") else ""
        return bool(content) and content == content.rstrip()

    def conditional(
        self, branches: Sequence[tuple[str, Sequence[str]]], default: Sequence[str]
    ) -> None:
        bodies = [list(lines) for _, lines in branches] + ([list(default)] if default else [])
        own_line = self._trimmable(self.parts[-1]) and all(
            self._trimmable(body[-1]) for body in bodies if body
        )
        tags = [c if c.startswith("if ") else f"if {c}" for c, _ in branches]
        tags = [tags[0], *(f"else {t}" for t in tags[1:])]
        if default:
            tags.append("else")
        for tag, body in zip(tags, bodies, strict=True):
            self.parts.append(f"{{{{- {tag} }}}}\n" if own_line else f"{{{{ {tag} }}}}")
            self.parts.extend(body)
        self.parts.append("{{- end }}\n" if own_line else "{{ end }}")

    def whole(self, condition: str, lines: Sequence[str]) -> None:
        """The rest of the file under ``condition``, rendering nothing at all when it is
        false, not even a line break, and ``lines`` exactly when it is true: BKE's
        controller's decoder fails on a file that renders blank lines or comments only."""
        tag = condition if condition.startswith("if ") else f"if {condition}"
        self.parts.append(f"{{{{ {tag} -}}}}\n")
        self.parts.extend(lines)
        self.parts.append("{{ end -}}\n")

    def text(self) -> str:
        return "".join(self.parts)


def _emit_doc(w: Writer, doc: Doc, edits: Sequence[Edit], registry: str | None) -> None:
    def tl(lines: Sequence[str]) -> list[str]:
        return [_template_line(x, registry) for x in lines]

    pos = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        for x in tl(doc.lines[pos : edit.start]):
            w.line(x)
        branches = [(c, lines if edit.raw else tl(lines)) for c, lines in edit.branches]
        default = doc.lines[edit.start : edit.end] if edit.default is None else edit.default
        w.conditional(branches, tl(default))
        pos = edit.end
    for x in tl(doc.lines[pos:]):
        w.line(x)


def _emit_typha_doc(w: Writer, doc: Doc, source: str, registry: str | None) -> None:
    lines = typha_deployment_lines(doc, source, registry)
    w.conditional([(TYPHA_ON, lines)], [])


#: The choices an import made, recorded on the header's first line (a Go template
#: comment, like the whole header), so that ``import --check`` can read them back. An
#: older import wrote them as ``{{/* import choices: ... */}}`` after a YAML comment;
#: both read back.
_CHOICES = re.compile(r"import choices: (?P<body>[^*\n]*)")
_SHA = re.compile(r"^# (?P<name>[A-Za-z0-9._-]+) sha256:(?P<sha>[0-9a-f]{64})(?: \*/ -\}\})?$")
NO_REGISTRY = "none"


def choices_text(options: Options) -> str:
    """The header's words recording ``options`` (layout, Typha, default registry)."""
    registry = options.default_registry or NO_REGISTRY
    typha = "on" if options.typha else "off"
    return f"import choices: layout={options.layout} typha={typha} default-registry={registry}"


def header(sources: Sequence[Source], version: str, options: Options = Options()) -> str:
    """The first lines of every generated file: the tag, the import's choices and each
    source's sha256, in a Go template comment that renders nothing, not even its line
    break. A render then begins with its first document, as BKE's controller needs: its
    decoder fails on a first document of comments only (and a file rendering nothing
    else, such as ``001-typha.yaml`` with Typha off, must render nothing at all). No
    tag trims what precedes it, so files joined one after another render joined."""
    lines = [
        f"{{{{/* Generated by `calico-render import` from upstream Calico {version}: "
        f"do not edit. {choices_text(options)}"
    ]
    lines += [f"# {s.name} sha256:{s.sha256}" for s in sources]
    return "\n".join(lines) + " */ -}}\n"


@dataclass(frozen=True)
class Recorded:
    """What a generated version directory says of its import: the choices (None when
    its files record none, e.g. written by hand or by an older import) and the sha256
    of each upstream source file."""

    options: Options | None
    sources: Mapping[str, str]


def recorded(files: Mapping[str, str]) -> Recorded:
    """The import choices and source checksums recorded in ``files``' headers."""
    for text in files.values():
        first, _, rest = text.partition("\n")
        m = _CHOICES.search(first)
        if m is None:
            continue
        fields = dict(part.partition("=")[::2] for part in m.group("body").split())
        registry = fields.get("default-registry", NO_REGISTRY)
        options = Options(
            layout=fields.get("layout", "split"),
            default_registry=None if registry == NO_REGISTRY else registry,
            typha=fields.get("typha", "on") == "on",
        )
        sums = {}
        for line in rest.splitlines():
            sha = _SHA.match(line)
            if sha is None:
                break
            sums[sha.group("name")] = sha.group("sha")
        return Recorded(options, sums)
    return Recorded(None, {})


def choice_differences(given: Options, was: Options) -> list[str]:
    """The choices of ``given`` that differ from the recorded ``was``, as ``name=value``
    pairs (what was recorded, then what is asked)."""
    out = []
    pairs = (
        ("layout", was.layout, given.layout),
        ("typha", "on" if was.typha else "off", "on" if given.typha else "off"),
        (
            "default-registry",
            was.default_registry or NO_REGISTRY,
            given.default_registry or NO_REGISTRY,
        ),
    )
    for name, old, new in pairs:
        if old != new:
            out.append(f"{name} {old} (recorded) -> {new} (given)")
    return out


def tag(calico_yaml: str, wanted: str | None = None) -> str:
    """The version upstream's ``calico.yaml`` is of: the one tag its images carry."""
    return _version([Source(BASE, calico_yaml)], wanted)


def _version(sources: Sequence[Source], wanted: str | None) -> str:
    """The one tag every Calico image carries; any other image is an error."""
    tags: dict[str, tuple[str, int]] = {}
    for s in sources:
        for number, line in enumerate(s.text.splitlines(), start=1):
            m = IMAGE_LINE.match(line)
            if not m or line.lstrip().startswith("#"):
                continue
            image = CALICO_IMAGE.match(m.group("image"))
            if image is None:
                _fail(f"image {m.group('image')} is not a Calico image", s.name, number, "image")
            tags.setdefault(image.group("tag"), (s.name, number))
    if not tags:
        _fail("no calico/* image: not a Calico manifest", sources[0].name, None, "image")
    if len(tags) > 1:
        second = list(tags.items())[1]  # where a second tag first appears
        _fail(
            f"Calico images carry two tags: {', '.join(sorted(tags))}",
            second[1][0],
            second[1][1],
            "image",
        )
    version = next(iter(tags))
    if wanted is not None and wanted != version:
        _fail(
            f"{wanted} disagrees with the image tag {version}",
            sources[0].name,
            None,
            "version",
        )
    return version


def derive(sources: Mapping[str, str], options: Options = Options()) -> Imported:
    """Derive the version directory from upstream texts keyed by file name.

    ``calico.yaml`` is required, ``calico-typha.yaml`` too unless ``options.typha`` is
    False, ``calico-vxlan.yaml`` is optional (without it calicoMode vxlan is not
    templated).
    """
    if options.layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}")
    if BASE not in sources:
        _fail("missing", BASE)
    if options.typha and TYPHA not in sources:
        _fail("missing", TYPHA)
    used = [Source(BASE, sources[BASE])]
    if options.typha:
        used.append(Source(TYPHA, sources[TYPHA]))
    if VXLAN in sources:
        used.append(Source(VXLAN, sources[VXLAN]))
    version = _version(used, options.version)
    plan = Plan(version, split_docs(used[0].text))
    _find_doc(plan.docs, "DaemonSet", names.NODE_DAEMONSET, BASE)
    _find_doc(plan.docs, "ConfigMap", names.CONFIG_MAP, BASE)
    for s in used[1:]:
        if s.name == TYPHA:
            _plan_typha(plan, s)
        else:
            _plan_vxlan(plan, s)
    _plan_modes(plan, BASE)
    _plan_node_env(plan, BASE)
    head = header(used, version, options)
    files = _emit(plan, head, options)
    return Imported(version, files)


def _emit(plan: Plan, head: str, options: Options) -> dict[str, str]:
    registry = options.default_registry
    inserted: dict[int, list[Doc]] = {}
    for at, doc in plan.typha_docs:
        inserted.setdefault(at, []).append(doc)

    def is_crd(doc: Doc) -> bool:
        return doc.kind == "CustomResourceDefinition"

    def emit(w: Writer, i: int, keep: Callable[[Doc], bool], typha_deployment: bool) -> None:
        for extra in inserted.get(i, []):
            if extra.kind == "Deployment":
                if typha_deployment:
                    _emit_typha_doc(w, extra, TYPHA, registry)
            elif keep(extra):
                w.conditional([(TYPHA_ON, [_template_line(x, registry) for x in extra.lines])], [])
        if i < len(plan.docs) and keep(plan.docs[i]):
            _emit_doc(w, plan.docs[i], plan.edits.get(i, []), registry)

    indexes = range(len(plan.docs) + 1)
    if options.layout == "single":
        w = Writer(head)
        for i in indexes:
            emit(w, i, lambda d: True, True)
        return {SINGLE_FILE: w.text()}
    crds, typha, rest = Writer(head), Writer(head), Writer(head)
    for i in indexes:
        emit(crds, i, is_crd, False)
        emit(rest, i, lambda d: not is_crd(d), False)
        for extra in inserted.get(i, []):
            if extra.kind == "Deployment":
                typha.whole(TYPHA_ON, typha_deployment_lines(extra, TYPHA, registry))
    files = {SPLIT_FILES[0]: crds.text(), SPLIT_FILES[2]: rest.text()}
    if plan.typha_docs:
        files[SPLIT_FILES[1]] = typha.text()
    return dict(sorted(files.items()))


def compare(derived: Mapping[str, str], on_disk: Mapping[str, str], where: str) -> str:
    """A unified diff of what is on disk against what import derives; "" when equal."""
    out: list[str] = []
    for name in sorted(set(derived) | set(on_disk)):
        a = derived.get(name, "").splitlines(keepends=True)
        b = on_disk.get(name, "").splitlines(keepends=True)
        if a != b:
            out.extend(
                difflib.unified_diff(a, b, f"{where}/{name} (derived)", f"{where}/{name} (on disk)")
            )
    return "".join(x if x.endswith("\n") else x + "\n" for x in out)
