"""The HTML format: the check and capability reports as one self-contained page.

What a reviewer approving a bke-manifests change wants to see at a glance: which version
fails and why, the template lines around each finding, what the change does to the
rendered objects, and where the gate's scenarios sit on the Typha replica curve. The page
is built from the report objects (never from their JSON), carries its CSS and its SVG
inline, loads nothing and runs no script (a Content-Security-Policy forbids both, so a
template that smuggles markup past the escaping still cannot act), and is the same bytes
for the same report: no clock, no random ids, everything in report order.

Everything that comes from a tree (file names, template lines, object names, messages,
golden values, exception reasons) is untrusted and escaped with :func:`html.escape`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from renderer import __version__, output
from renderer.calico import policy
from renderer.calico.capability import CONTRACT_NODES
from renderer.checks.report import (
    FAIL,
    LEGACY,
    MISSING,
    NEW,
    NOT_APPLICABLE,
    PASS,
    SKIP,
    UPDATED,
    CheckReport,
    ReleaseReport,
    ScenarioResult,
    VersionResult,
)
from renderer.finding import CAPABILITY, COVERAGE, FIDELITY, GOLDENS, RULES, Finding
from renderer.manifests.tree import ADDON
from renderer.output.capability import CapabilityDocument
from renderer.output.check import CheckDocument
from renderer.output.inputerror import InputErrorDocument

if TYPE_CHECKING:
    from renderer.checks.report import ObjectChange

#: Template lines shown before and after a finding's line.
CONTEXT_LINES = 2
#: A template line longer than this is cut (a reviewer reads the start; the size stays bounded).
MAX_LINE = 240
#: The chart's node axis: 0 to this many nodes.
CHART_NODES = 5000
#: The chart's replica axis: 0 to this many replicas (the cap, with headroom for labels).
CHART_REPLICAS = 24
#: The plot area inside the SVG's view box (x from left to right, y from bottom to top).
PLOT_LEFT, PLOT_RIGHT, PLOT_BOTTOM, PLOT_TOP = 56.0, 700.0, 262.0, 22.0
CHART_WIDTH, CHART_HEIGHT = 720, 300

_STATUS_WORDS = {
    PASS: ("✓", "pass"),
    FAIL: ("✗", "FAIL"),
    LEGACY: ("◌", "legacy"),
    SKIP: ("–", "skipped"),
    MISSING: ("!", "MISSING"),
    UPDATED: ("↻", "updated"),
    NEW: ("+", "new"),
    NOT_APPLICABLE: ("·", "n/a"),
}
_SEVERITY_MARK = {"error": "✗", "warning": "!", "info": "i"}


def e(value: object) -> str:
    """Text or an attribute value from anywhere, escaped (quotes included)."""
    return escape(str(value), quote=True)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def slug(text: str) -> str:
    """An id fragment safe in ``id`` and ``href`` alike (names are untrusted)."""
    return text if text.isalnum() and text.isascii() else (_UNSAFE.sub("_", text) or "_")


def status_badge(status: str) -> str:
    """A stage status as a symbol and a word (readable without colour)."""
    mark, word = _STATUS_WORDS.get(status, ("?", status))
    return f'<span class="st st-{e(slug(status))}">{mark} {e(word)}</span>'


def severity_badge(severity: str) -> str:
    mark = _SEVERITY_MARK.get(severity, "·")
    return f'<span class="sev sev-{e(slug(severity))}">{mark} {e(severity)}</span>'


def verdict_badge(ok: bool, yes: str = "PASS", no: str = "FAIL") -> str:
    mark, word = ("✓", yes) if ok else ("✗", no)
    return f'<span class="st st-{"pass" if ok else "fail"}">{mark} {word}</span>'


def location(f: Finding) -> str:
    """``path:line:column`` with whatever parts the finding knows (the one location
    style of every report)."""
    return f.where


def path_html(path: str) -> str:
    """A path escaped, free to wrap after each ``/`` and nowhere else (not at a hyphen,
    not mid-name): ``kubernetes/calico/v3.31.3/calico.yaml:7481``."""
    *dirs, name = path.split("/")
    return "".join(f'<span class="seg">{e(d)}/</span><wbr>' for d in dirs) + (
        f'<span class="seg">{e(name)}</span>'
    )


def object_text(f: Finding) -> str:
    return str(f.object) if f.object else ""


# --- template excerpts -------------------------------------------------------------


def source_of(sources: Mapping[str, str], file: str) -> str | None:
    """The template ``file`` names, however a stage spelled it: its name in the version
    directory, ``<version>/<name>`` or a path relative to the tree root."""
    if not file:
        return None
    if file in sources:
        return sources[file]
    matches = [n for n in sources if file.endswith("/" + n)]
    return sources[max(matches, key=len)] if matches else None


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"


class Templates:
    """A version's template texts, each split into lines once (a page may show many
    excerpts of one file)."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = sources
        self._lines: dict[str, list[str]] = {}

    def lines(self, file: str) -> list[str] | None:
        """The lines of the template ``file`` names (None: not at hand)."""
        text = source_of(self.sources, file)
        if text is None:
            return None
        if file not in self._lines:
            self._lines[file] = text.splitlines()
        return self._lines[file]


def excerpt(templates: Templates, f: Finding) -> str:
    """The template lines around the finding's line, that line highlighted ("" when the
    finding has no line or the template is not at hand)."""
    lines = templates.lines(f.file) if f.line > 0 else None
    if lines is None or f.line > len(lines):
        return ""
    first = max(1, f.line - CONTEXT_LINES)
    last = min(len(lines), f.line + CONTEXT_LINES)
    rows = []
    for n in range(first, last + 1):
        here = n == f.line
        cls = ' class="hl"' if here else ""
        mark = "▶" if here else " "
        body = e(_cut(lines[n - 1])) or " "
        if here:
            body = f"<mark>{body}</mark>"
        rows.append(
            f'<tr{cls}><th scope="row" class="ln">{mark}{n}</th><td><code>{body}</code></td></tr>'
        )
    caption = f"{e(f.file)}, lines {first}–{last} (line {f.line} highlighted)"
    return (
        f'<table class="src"><caption class="sr">{caption}</caption><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )


# --- findings -----------------------------------------------------------------------


@dataclass
class Anchors:
    """Unique, stable ids: the same name twice gets ``-2``, ``-3`` in document order."""

    taken: set[str] = field(default_factory=set)

    def make(self, *parts: str) -> str:
        base = "-".join(slug(p) for p in parts)
        anchor, n = base, 1
        while anchor in self.taken:
            n += 1
            anchor = f"{base}-{n}"
        self.taken.add(anchor)
        return anchor


@dataclass(frozen=True)
class Entry:
    """A finding placed on the page: its anchor and the version it belongs to."""

    anchor: str
    version: str
    finding: Finding


def finding_article(entry: Entry, templates: Templates, level: int = 4) -> str:
    """One finding: rule, severity, object, field, where, what it holds for, the lines;
    its heading one level below the section it is in."""
    f = entry.finding
    rows = [
        ("Stage", f.stage),
        ("Object", object_text(f)),
        ("Field", f.field),
        ("Template", location(f)),
        ("Scenarios", ", ".join(f.scenarios)),
        ("Kubernetes", ", ".join(f.kube_versions)),
        ("Exception", f.exception),
    ]
    facts = "".join(
        f"<dt>{k}</dt><dd>{path_html(v) if k == 'Template' else e(v)}</dd>" for k, v in rows if v
    )
    return (
        f'<article class="finding sev-{e(slug(f.severity))}" id="{entry.anchor}" '
        f'data-rule="{e(f.rule)}" data-severity="{e(f.severity)}">'
        f"<h{level}>{severity_badge(f.severity)} <code>{e(f.rule)}</code> "
        f'<a class="self" href="#{entry.anchor}" aria-label="link to this finding">#</a>'
        f"</h{level}>"
        f'<p class="msg">{e(f.message)}</p>'
        f"<dl>{facts}</dl>{excerpt(templates, f)}</article>"
    )


def finding_index(entries: Sequence[Entry]) -> str:
    """Every finding of the page in one table, each linked to its details."""
    if not entries:
        return "<p>No findings.</p>"
    rows = "".join(
        f"<tr><td>{e(x.version)}</td><td>{severity_badge(x.finding.severity)}</td>"
        f'<td><a href="#{x.anchor}"><code>{e(x.finding.rule)}</code></a></td>'
        f"<td>{e(object_text(x.finding))}</td><td><code>{e(x.finding.field)}</code></td>"
        f'<td><code class="path">{path_html(location(x.finding))}</code></td></tr>'
        for x in entries
    )
    return table(
        ("Version", "Severity", "Rule", "Object", "Field", "Template"),
        rows,
        "index",
        ("version", "sev", "rule", "obj", "field", "where"),
    )


def table(headers: Iterable[str], rows: str, cls: str = "", cols: Sequence[str] = ()) -> str:
    """A table in a box that scrolls sideways on a narrow screen (the page never does);
    ``cols`` are column classes, which fix the layout (long values wrap)."""
    head = "".join(f'<th scope="col">{h}</th>' for h in headers)
    classes = " ".join(c for c in (cls, "fixed" if cols else "") if c)
    klass = f' class="{classes}"' if classes else ""
    group = "<colgroup>" + "".join(f'<col class="c-{c}">' for c in cols) + "</colgroup>"
    return (
        f'<div class="scroll"><table{klass}>{group if cols else ""}'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def counts(findings: Iterable[Finding]) -> tuple[int, int, int]:
    """(errors, warnings, other) among ``findings``."""
    errs = warns = other = 0
    for f in findings:
        if f.severity == "error":
            errs += 1
        elif f.severity == "warning":
            warns += 1
        else:
            other += 1
    return errs, warns, other


# --- the Typha chart ----------------------------------------------------------------


@dataclass(frozen=True)
class Axes:
    """One chart's ranges: 0 to ``nodes`` across, 0 to ``replicas`` up, ticks every
    ``step`` nodes and ``rstep`` replicas."""

    nodes: int
    replicas: int
    step: int
    rstep: int

    def x(self, nodes: float) -> float:
        """The x coordinate of a node count in the chart's view box."""
        return round(PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * nodes / self.nodes, 2)

    def y(self, replicas: float) -> float:
        """The y coordinate of a replica count in the chart's view box."""
        return round(PLOT_BOTTOM - (PLOT_BOTTOM - PLOT_TOP) * replicas / self.replicas, 2)


#: The whole policy (to 5,000 nodes, past the cap) and the threshold region close up.
FULL = Axes(CHART_NODES, CHART_REPLICAS, 1000, 5)
ZOOM = Axes(1000, 8, 200, 2)


def chart_x(nodes: float) -> float:
    """The x coordinate of a node count in the whole-policy chart."""
    return FULL.x(nodes)


def chart_y(replicas: float) -> float:
    """The y coordinate of a replica count in the whole-policy chart."""
    return FULL.y(replicas)


@functools.cache
def policy_steps() -> tuple[tuple[int, int], ...]:
    """The replica curve as (nodes, replicas) corners, from the policy itself: at the
    first node count a replica count holds for (6 replicas at 1,001 nodes), the count
    before and the new one (computed once)."""
    points = [(0, 0)]
    last = 0
    for n in range(1, CHART_NODES + 1):
        r = policy.decide_typha(n).replicas
        if r != last:
            points += [(n, last), (n, r)]
            last = r
    points.append((CHART_NODES, last))
    return tuple(points)


@dataclass(frozen=True)
class Mark:
    """A render the gate made, placed on the chart: who rendered it and what it decided."""

    label: str
    nodes: int
    replicas: int
    operation: str
    typha: bool
    versions: tuple[str, ...]
    note: str = ""


def typha_chart(marks: Sequence[Mark]) -> str:
    """Replicas against nodes, 0 to 5,000 and close up to 1,000: the policy's curve,
    the 50-node threshold, the 20-replica cap, and every scenario the gate rendered (the
    table below says the same in words)."""
    charts = _svg(marks, FULL, "chart-all", "0 to 5,000 nodes") + _svg(
        marks, ZOOM, "chart-zoom", "close up: 0 to 1,000 nodes"
    )
    rows = "".join(
        f"<tr><td>{i}</td><td>{e(m.label)}</td><td>{m.nodes:,}</td><td>{e(m.operation)}</td>"
        f"<td>{'on, ' + str(m.replicas) + ' replicas' if m.typha else 'off'}"
        f"{e(' (' + m.note + ')') if m.note else ''}</td><td>{e(', '.join(m.versions))}</td></tr>"
        for i, m in enumerate(marks, 1)
    )
    legend = (
        '<p class="legend"><span class="key key-curve"></span> policy '
        '<span class="key key-on"></span> rendered, Typha on '
        '<span class="key key-off"></span> rendered, Typha off '
        '<span class="key key-limit"></span> threshold and cap</p>'
    )
    listing = table(("#", "Scenario", "Nodes", "Operation", "Typha", "Rendered for"), rows)
    chart = f'<div class="scroll"><div class="charts">{charts}</div></div>'
    return '<figure class="typha">' + chart + legend + "</figure>" + listing


def _svg(marks: Sequence[Mark], ax: Axes, ident: str, span: str) -> str:
    """One chart over ``ax``: marks beyond its nodes are left to the other chart."""
    steps: list[tuple[int, int]] = []
    for n, r in policy_steps():
        if n > ax.nodes:
            steps.append((ax.nodes, steps[-1][1]))
            break
        steps.append((n, r))
    points = " ".join(f"{ax.x(n)},{ax.y(r)}" for n, r in steps)
    parts = [
        f'<svg class="chart" id="{ident}" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" '
        f'role="img" aria-labelledby="{ident}-title {ident}-desc" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ident}-title">Typha replicas against cluster nodes, {span}</title>',
        f'<desc id="{ident}-desc">Typha is off up to {policy.TYPHA_NODE_THRESHOLD} nodes, '
        f"then runs min({policy.MAX_REPLICAS}, max({policy.MIN_REPLICAS}, ceil(nodes/"
        f"{policy.NODES_PER_REPLICA}))) replicas; the rendered scenarios are marked.</desc>",
        f'<rect class="plot" x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{PLOT_RIGHT - PLOT_LEFT}" '
        f'height="{PLOT_BOTTOM - PLOT_TOP}"/>',
    ]
    for n in range(0, ax.nodes + 1, ax.step):
        x = ax.x(n)
        parts.append(
            f'<g class="tick xtick" data-value="{n}"><line x1="{x}" y1="{PLOT_BOTTOM}" '
            f'x2="{x}" y2="{PLOT_BOTTOM + 5}"/><text x="{x}" y="{PLOT_BOTTOM + 18}" '
            f'text-anchor="middle">{n:,}</text></g>'
        )
    for r in range(0, ax.replicas + 1, ax.rstep):
        y = ax.y(r)
        parts.append(
            f'<g class="tick ytick" data-value="{r}"><line x1="{PLOT_LEFT - 5}" y1="{y}" '
            f'x2="{PLOT_LEFT}" y2="{y}"/><text x="{PLOT_LEFT - 8}" y="{y + 4}" '
            f'text-anchor="end">{r}</text></g>'
        )
    tx = ax.x(policy.TYPHA_NODE_THRESHOLD)
    mid = (PLOT_TOP + PLOT_BOTTOM) / 2
    parts += [
        f'<text class="axis" x="{(PLOT_LEFT + PLOT_RIGHT) / 2}" y="{CHART_HEIGHT - 4}" '
        f'text-anchor="middle">nodes ({span})</text>',
        f'<text class="axis" x="14" y="{mid}" text-anchor="middle" '
        f'transform="rotate(-90 14 {mid})">Typha replicas</text>',
        f'<line class="threshold" x1="{tx}" y1="{PLOT_TOP}" x2="{tx}" y2="{PLOT_BOTTOM}"/>',
        f'<text class="note" x="{tx + 4}" y="{PLOT_TOP + 12}">Typha on above '
        f"{policy.TYPHA_NODE_THRESHOLD} nodes</text>",
    ]
    if ax.replicas >= policy.MAX_REPLICAS:
        cy = ax.y(policy.MAX_REPLICAS)
        parts += [
            f'<line class="cap" x1="{PLOT_LEFT}" y1="{cy}" x2="{PLOT_RIGHT}" y2="{cy}"/>',
            f'<text class="note" x="{PLOT_RIGHT - 4}" y="{cy - 5}" text-anchor="end">cap: '
            f"{policy.MAX_REPLICAS} replicas (above {policy.CAPACITY_ASSESSMENT_NODES:,} "
            "nodes: capacity assessment)</text>",
        ]
        if ax.nodes >= policy.CAPACITY_ASSESSMENT_NODES:
            axx = ax.x(policy.CAPACITY_ASSESSMENT_NODES)
            parts.append(
                f'<line class="assess" x1="{axx}" y1="{cy}" x2="{axx}" y2="{PLOT_BOTTOM}"/>'
            )
    parts.append(f'<polyline class="curve" points="{points}"/>')
    labels: list[tuple[float, float, list[str]]] = []  # marks within 4 px share a label
    for i, m in enumerate(marks, 1):
        if m.nodes > ax.nodes or m.replicas > ax.replicas:
            continue
        x, y = ax.x(m.nodes), ax.y(m.replicas)
        shape = "on" if m.typha else "off"
        title = f"{i}. {m.label}: {m.nodes} nodes, {m.operation}, " + (
            f"Typha on, {m.replicas} replicas" if m.typha else "Typha off"
        )
        parts.append(
            f'<g class="mark mark-{shape}" data-nodes="{m.nodes}" data-replicas="{m.replicas}" '
            f'data-label="{e(m.label)}"><title>{e(title)}</title>'
            f'<circle cx="{x}" cy="{y}" r="4.5"/></g>'
        )
        near = [lb for lb in labels if abs(lb[0] - x) < 4 and abs(lb[1] - y) < 4]
        if near:
            near[0][2].append(str(i))
        else:
            labels.append((x, y, [str(i)]))
    placed: list[tuple[float, float]] = []
    for x, y, numbers in labels:
        lx, ly = x + 8, y - 7
        while any(abs(lx - px) < 30 and abs(ly - py) < 12 for px, py in placed):
            ly -= 13
        placed.append((lx, ly))
        parts.append(f'<text class="mark-label" x="{lx}" y="{ly}">{", ".join(numbers)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def check_marks(versions: Sequence[VersionResult]) -> list[Mark]:
    """The scenarios the gate rendered, one mark per distinct decision, in node order."""
    found: dict[tuple[str, int, str, int, bool, str], list[str]] = {}
    for v in versions:
        for s in v.scenarios:
            found.setdefault(_scenario_key(s), []).append(v.version)
    return [
        Mark(name, nodes, replicas, op, typha, tuple(vs), note)
        for (name, nodes, op, replicas, typha, note), vs in sorted(
            found.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])
        )
    ]


def _scenario_key(s: ScenarioResult) -> tuple[str, int, str, int, bool, str]:
    d = s.decision
    typha = str(d.get("allowTypha", "")) == "true"
    try:
        replicas = int(d.get("typhaReplicas", 0)) if typha else 0
    except (TypeError, ValueError):
        replicas = 0
    note = "compatibility path" if d.get("compatibility") else ""
    if d.get("refused"):  # rendered all the same, so the gate judged it
        note = f"refused: {d['refused']}"
    return (s.name, s.nodes, s.operation, replicas, typha, note)


def release_marks(report: ReleaseReport) -> list[Mark]:
    """The contract's renders (Typha off, and on at each replica count it asked for)."""
    nodes_for = {policy.decide_typha(n).replicas: n for n in (1, *CONTRACT_NODES)}
    version = report.capability.version
    return [
        Mark(
            s.name,
            nodes_for.get(s.replicas, 0),
            s.replicas,
            "install",
            s.replicas > 0,
            (version,),
        )
        for s in report.capability.scenarios
    ]


# --- golden changes -----------------------------------------------------------------


_CHANGE_MARK = {"added": "+", "removed": "−", "changed": "~", "note": "?"}


def _change_kind(old: str | None, new: str | None, note: str) -> str:
    if note:
        return "note"
    if old is None:
        return "added"
    if new is None:
        return "removed"
    return "changed"


def golden_changes(v: VersionResult) -> str:
    """The golden comparison as object-level diffs: per object, every field added,
    removed or changed, golden and render side by side."""
    g = v.golden
    parts = [
        f"<p>Goldens {status_badge(g.status)} in <code>{e(g.directory or '(none)')}</code></p>"
    ]
    if g.status == MISSING and g.command:
        parts.append(f"<p>Create them with:</p><pre><code>{e(g.command)}</code></pre>")
    if g.files:
        listed = "".join(
            f'<tr class="chg-{_file_kind(fc.change)}"><td>{_marker(_file_kind(fc.change))}</td>'
            f"<td><code>{e(fc.path)}</code></td></tr>"
            for fc in g.files
        )
        parts.append("<h4>Golden files</h4>" + table(("Change", "File"), listed, "files"))
    by_object: dict[str, list[ObjectChange]] = {}
    for c in g.changes:
        by_object.setdefault(c.ref, []).append(c)
    for ref, changes in by_object.items():
        rows: list[str] = []
        for c in changes:
            kind = _change_kind(c.old, c.new, c.note)
            old = e(c.old) if c.old is not None else ""
            new = e(c.new) if c.new is not None else ""
            if kind == "note":
                old, new = e(c.note), ""
            where = f"<br><small>{path_html(c.where)}</small>" if c.where else ""
            scen = e(", ".join(c.scenarios)) or "–"
            rows.append(
                f'<tr class="chg-{kind}"><td>{_marker(kind)}</td>'
                f"<td><code>{e(c.path) or '(whole object)'}</code>{where}</td>"
                f'<td class="old"><code>{old}</code></td><td class="new"><code>{new}</code></td>'
                f"<td>{scen}</td></tr>"
            )
        parts.append(
            f"<h4>{e(ref)}</h4>"
            + table(
                ("Change", "Field", "Golden (before)", "Render (after)", "Scenarios"),
                "".join(rows),
                "diff",
                ("mark", "field", "side", "side", "scen"),
            )
        )
    return "".join(parts)


def _file_kind(change: str) -> str:
    return {"modified": "changed"}.get(change, change)


def _marker(kind: str) -> str:
    return f'<span class="cm">{_CHANGE_MARK.get(kind, "?")} {e(kind)}</span>'


# --- the page -----------------------------------------------------------------------

CSS = """
:root{--fg:#1b1f24;--muted:#59636e;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;
--ok:#1a7f37;--okbg:#dafbe1;--bad:#cf222e;--badbg:#ffebe9;--warn:#9a6700;--warnbg:#fff8c5;
--info:#0969da;--infobg:#ddf4ff}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:var(--bg);font:15px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans",sans-serif;overflow-wrap:break-word}
header,main,nav,footer{max-width:1200px;margin:0 auto;padding:0 16px}
header{padding-top:16px}
h1{font-size:1.6em;margin:.4em 0}h2{border-bottom:1px solid var(--line);padding-bottom:.2em;
margin-top:1.6em}h3{margin-top:1.3em}h4{margin:.2em 0}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
pre{background:var(--soft);padding:8px;white-space:pre-wrap}
a{color:var(--info)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5em 0;width:100%}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th{background:var(--soft);white-space:nowrap}
table.fixed{table-layout:fixed;min-width:760px}table.fixed td{overflow-wrap:anywhere}
.seg{white-space:nowrap}
col.c-mark{width:7.5em}col.c-version{width:6.5em}col.c-sev{width:7.5em}col.c-rule{width:17%}
col.c-field{width:24%}col.c-side{width:27%}col.c-where{width:18%}
.st,.sev{display:inline-block;padding:0 6px;border-radius:4px;font-weight:600;
white-space:nowrap;border:1px solid currentColor}
.st-pass,.st-updated{color:var(--ok);background:var(--okbg)}
.st-fail,.st-MISSING,.st-missing,.sev.sev-error{color:var(--bad);
background:var(--badbg)}
.st-legacy,.st-skip{color:var(--muted);background:var(--soft)}
.sev.sev-warning{color:var(--warn);background:var(--warnbg)}
.sev.sev-info{color:var(--info);background:var(--infobg)}
article.finding h3,article.finding h4{margin:.2em 0;font-size:1em}
article.finding{border:1px solid var(--line);border-left:6px solid var(--muted);
padding:8px 12px;margin:10px 0;break-inside:avoid}
article.sev-error{border-left-color:var(--bad)}
article.sev-warning{border-left-color:var(--warn);border-left-style:dashed}
article.finding dl{display:grid;grid-template-columns:max-content 1fr;gap:0 12px;margin:.3em 0}
article.finding dt{font-weight:600}article.finding dd{margin:0}
.msg{margin:.3em 0}
a.self{text-decoration:none;color:var(--muted)}
table.src{border:1px solid var(--line);background:var(--soft);width:100%}
table.src td,table.src th{border:0;padding:0 8px}
table.src code{white-space:pre-wrap}
table.src th.ln{color:var(--muted);text-align:right;width:4.5em;font-weight:400;
font-family:ui-monospace,monospace;white-space:nowrap}
table.src tr.hl{background:var(--warnbg);outline:2px solid var(--warn)}
table.src tr.hl th.ln{color:var(--fg);font-weight:700}
mark{background:transparent;color:inherit;font-weight:700}
tr.chg-added td.new,tr.chg-added .cm{background:var(--okbg)}
tr.chg-removed td.old,tr.chg-removed .cm{background:var(--badbg)}
tr.chg-removed td.old code{text-decoration:line-through}
tr.chg-changed td.old{background:var(--badbg)}tr.chg-changed td.new{background:var(--okbg)}
tr.chg-changed td.old code{text-decoration:line-through}
.cm{font-weight:700;white-space:nowrap;padding:0 4px}
figure.typha{margin:0}
.charts{display:flex;flex-wrap:wrap;gap:8px 24px}.charts svg{flex:1 1 480px;max-width:720px}
svg.chart{width:100%;min-width:480px;height:auto;display:block;font:12px system-ui,sans-serif}
svg .plot{fill:#fff;stroke:var(--line)}
svg .tick line{stroke:var(--muted)}svg .tick text,svg .note,svg .axis{fill:var(--fg)}
svg .curve{fill:none;stroke:var(--info);stroke-width:2.5}
svg .threshold,svg .cap,svg .assess{stroke:var(--bad);stroke-width:1.2;stroke-dasharray:5 4}
svg .assess{stroke:var(--muted)}
svg .mark circle{stroke:var(--fg);stroke-width:1.5}
svg .mark-on circle{fill:var(--fg)}svg .mark-off circle{fill:#fff}
svg .mark-label{font-weight:700;fill:var(--fg)}
.legend .key{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px;
vertical-align:middle}
.key-curve{border-top:3px solid var(--info)}.key-on{background:var(--fg);border-radius:50%}
.key-off{border:2px solid var(--fg);border-radius:50%}.key-limit{border-top:2px dashed var(--bad)}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:6px 16px;margin:.5em 0}
.sr{position:absolute;left:-9999px}
footer{color:var(--muted);margin-top:2em;padding-bottom:2em;font-size:.9em}
@media (max-width:600px){body{font-size:14px}h1{font-size:1.3em}
table.src th.ln{width:3.2em;padding:0 4px}
dl.facts,article.finding dl{grid-template-columns:1fr}dl dd{margin-bottom:4px}}
@media print{nav,a.self{display:none}body{font-size:11pt}a{color:inherit}
article.finding,figure,tr{break-inside:avoid}.scroll{overflow:visible}
table.fixed,svg.chart{min-width:0}thead th{white-space:normal}table{font-size:9pt}
td,th,code{overflow-wrap:anywhere}.seg{white-space:normal}
h2{break-after:avoid}}
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


#: Block-level end tags a line break follows, so the page reads (and diffs) line by line;
#: text from a tree never holds one (it is escaped).
_BREAK_AFTER = tuple(
    f"</{tag}>"
    for tag in [
        "tr",
        "thead",
        "tbody",
        "table",
        "div",
        "section",
        "article",
        "dl",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "p",
        "ul",
        "li",
        "g",
        "svg",
        "figure",
        "header",
        "nav",
        "main",
        "footer",
        "title",
        "style",
    ]
)


def page(title: str, header: str, nav: Sequence[tuple[str, str]], body: str) -> str:
    """The whole document: head, header, contents, sections, footer."""
    links = "".join(f'<li><a href="#{a}">{t}</a></li>' for a, t in nav)
    return _lines(
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="calico-render {e(__version__)}">'
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>"
        f"<header>{header}</header>"
        f'<nav aria-label="Contents"><ul>{links}</ul></nav>'
        f"<main>{body}</main>"
        f"<footer>calico-render {e(__version__)}</footer>"
        "</body></html>\n"
    )


def _lines(text: str) -> str:
    for tag in _BREAK_AFTER:
        text = text.replace(tag, tag + "\n")
    return text


def facts(rows: Iterable[tuple[str, str]]) -> str:
    """A definition list of (term, HTML) pairs, empty values left out."""
    return (
        '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows if v) + "</dl>"
    )


# --- check --------------------------------------------------------------------------


def render_check(report: CheckReport) -> str:
    """The check report as one page: a summary row per addon (when the tree has others
    than Calico) and per version, then every finding, Calico's Typha scale, and each
    version's section."""
    anchors = Anchors(
        {"summary", "addons", "findings", "typha", "exceptions", "deviations", "stale"}
    )
    version_ids = {v.label: anchors.make("v", v.label) for v in report.versions}
    entries = {
        v.label: [
            Entry(anchors.make("f", v.label, str(i)), v.label, f)
            for i, f in enumerate(v.findings, 1)
        ]
        for v in report.versions
    }
    every = [x for v in report.versions for x in entries[v.label]]
    stages = _stage_names(report.versions)
    errs, warns, _ = counts(x.finding for x in every)
    failed = [v.label for v in report.versions if not v.passed]
    verdict = verdict_badge(report.passed)
    header = f"<h1>calico-render check {verdict}</h1>" + facts(
        [
            ("Tree", f"<code>{e(report.manifests)}</code>"),
            (
                "Goldens",
                f"<code>{e(report.golden)}</code>" + (" (updated)" if report.update else ""),
            ),
            ("Upstream", f"<code>{e(report.upstream)}</code>" if report.upstream else ""),
            ("Kubernetes", e(", ".join(report.kube_versions))),
            (
                "Exceptions file",
                f"<code>{e(report.exceptions_file)}</code>" if report.exceptions_file else "",
            ),
            ("Addons", "" if report.only_calico else str(len(report.addons))),
            (
                "Versions",
                f"{len(report.versions)} checked, {len(failed)} failed"
                + (": " + e(", ".join(failed)) if failed else ""),
            ),
            ("New goldens", _new_goldens(report)),
            ("Findings", f"{errs} error(s), {warns} warning(s), {len(every)} in all"),
            ("Tool", f"calico-render {e(__version__)}"),
        ]
    )
    calico = [v for v in report.versions if v.addon == ADDON]
    nav = [("summary", "Summary")]
    nav += [] if report.only_calico else [("addons", "Addons")]
    nav += [("findings", "Findings")]
    nav += [("typha", "Typha scale")] if calico or report.only_calico else []
    nav += [
        (version_ids[v.label], f"{e(v.label)} {'✓' if v.passed else '✗'}") for v in report.versions
    ]
    body = [
        _summary_table(report, stages, version_ids, entries),
        "" if report.only_calico else _addons_table(report),
        _exceptions_section(
            report.exceptions_file,
            report.rule_exceptions,
            report.exception_warnings,
            report.exception_notes,
        ),
        _deviations_section(report.deviations),
    ]
    if report.stale:
        rows = "".join(
            f"<tr><td>{e(s.label)}</td><td>{status_badge(s.status)}</td>"
            f"<td><code>{e(s.directory)}</code></td><td>{e(', '.join(s.files))}</td>"
            f"<td><code>{e(s.command)}</code></td></tr>"
            for s in report.stale
        )
        body.append(
            '<section id="stale"><h2>Goldens of versions not in the tree</h2>'
            + table(("Version", "Status", "Directory", "Files", "Remove with"), rows)
            + "</section>"
        )
    body.append(
        f'<section id="findings"><h2>Findings ({len(every)})</h2>{finding_index(every)}</section>'
    )
    if calico or report.only_calico:
        body.append(
            '<section id="typha"><h2>Typha scale: the scenarios rendered</h2>'
            + typha_chart(check_marks(calico))
            + "</section>"
        )
    for v in report.versions:
        body.append(_version_section(v, stages, version_ids[v.label], entries[v.label]))
    title = f"calico-render check: {'PASS' if report.passed else 'FAIL'} ({report.manifests})"
    return page(title, header, nav, "".join(body))


def _stage_names(versions: Sequence[VersionResult]) -> tuple[str, ...]:
    names: list[str] = []
    for v in versions:
        names += [s for s in v.stage_names if s not in names]
    return tuple(names)


def _summary_table(
    report: CheckReport,
    stages: Sequence[str],
    ids: Mapping[str, str],
    entries: Mapping[str, Sequence[Entry]],
) -> str:
    rows = []
    grouped = not report.only_calico
    for v in report.versions:
        errs, warns, _ = counts(x.finding for x in entries[v.label])
        cells = "".join(
            f"<td>{status_badge(v.stages.get(s, SKIP) if s in v.stages else NOT_APPLICABLE)}</td>"
            for s in stages
        )
        excepted = sum(n for *_, n in v.exceptions)
        addon = f"<td>{e(v.addon)}</td>" if grouped else ""
        rows.append(
            f'<tr>{addon}<th scope="row"><a href="#{ids[v.label]}">{e(v.version)}</a></th>'
            f"<td>{e(v.dialect)}</td>{cells}<td>{errs}</td><td>{warns}</td><td>{excepted}</td>"
            f"<td>{verdict_badge(v.passed)}</td></tr>"
        )
    headers = (
        *(("Addon",) if grouped else ()),
        "Version",
        "Dialect",
        *(s.capitalize() for s in stages),
        "Errors",
        "Warnings",
        "Excepted",
        "Result",
    )
    return '<section id="summary"><h2>Summary</h2>' + table(headers, "".join(rows)) + "</section>"


def _new_goldens(report: CheckReport) -> str:
    """The line saying how to write the goldens of addons a tree adopted for Calico
    only has yet to write ("" when none)."""
    new = report.new_goldens
    if not new:
        return ""
    command = next(v.golden.command for v in report.versions if v.golden.status == NEW)
    return (
        f"none yet for {len(new)} addon(s) besides Calico ({e(', '.join(new))}); write "
        f"them, after review, with <code>{e(command)}</code>"
    )


def _addons_table(report: CheckReport) -> str:
    """One row per addon: its versions (passed of checked), the stages that ran for it,
    its findings, what the schema stage saw of its objects, its goldens."""
    rows = []
    for addon in report.addons:
        mine = report.of_addon(addon)
        passed = sum(1 for v in mine if v.passed)
        errs, warns, _ = counts(f for v in mine for f in v.findings)
        seen = [v.objects for v in mine if v.objects]
        objects = sum(o["objects"] for o in seen)
        validated = sum(o["validated"] for o in seen)
        unchecked = sum(o["not_checked"] for o in seen)
        unserved = sum(o.get("unserved", 0) for o in seen)
        goldens = " ".join(status_badge(st) for st in sorted({v.golden.status for v in mine}))
        first = next((v.label for v in mine), "")
        rows.append(
            f'<tr><th scope="row"><a href="#v-{e(slug(first))}">{e(addon)}</a></th>'
            f"<td>{passed}/{len(mine)}</td><td>{e(', '.join(mine[0].ran) if mine else '')}</td>"
            f"<td>{sum(len(v.scenarios) for v in mine)}</td><td>{errs}</td><td>{warns}</td>"
            f"<td>{objects}</td><td>{validated}</td><td>{unchecked}</td><td>{unserved}</td>"
            f"<td>{goldens}</td>"
            f"<td>{verdict_badge(passed == len(mine))}</td></tr>"
        )
    headers = (
        "Addon",
        "Versions passed",
        "Stages run",
        "Scenarios",
        "Errors",
        "Warnings",
        "Objects",
        "Schema-checked",
        "Not checked",
        "API not served",
        "Goldens",
        "Result",
    )
    return '<section id="addons"><h2>Addons</h2>' + table(headers, "".join(rows)) + "</section>"


def _exceptions_section(
    file: str | None, applied: Sequence[Any], warnings: Sequence[str], notes: Sequence[str] = ()
) -> str:
    if not file and not applied:
        return '<section id="exceptions"><h2>Exceptions</h2><p>No exceptions file.</p></section>'
    rows = "".join(
        f"<tr><td><code>{e(a.exception.rule)}</code></td><td>{e(a.exception.action)}</td>"
        f"<td>{e(', '.join(f'{k}: {n}' for k, n in sorted(a.matches.items())) or 'none')}</td>"
        f"<td>{e(a.exception.reason)}</td></tr>"
        for a in applied
    )
    warn = "".join(f"<li>{severity_badge('warning')} {e(w)}</li>" for w in warnings)
    warn += "".join(f"<li>{severity_badge('info')} {e(n)}</li>" for n in notes)
    return (
        f'<section id="exceptions"><h2>Exceptions</h2><p>From <code>{e(file or "")}</code></p>'
        + table(("Rule", "Action", "Findings matched", "Reason"), rows)
        + (f"<ul>{warn}</ul>" if warn else "")
        + "</section>"
    )


def _deviations_section(deviations: Sequence[Any]) -> str:
    """The declared deviations from upstream that covered fidelity findings ("" when
    none did: without ``--upstream`` the page says nothing of them)."""
    matched = [a for a in deviations if a.matches]
    if not matched:
        return ""
    rows = "".join(
        f"<tr><td>{e(', '.join(a.exception.objects))}</td>"
        f"<td><code>{e(', '.join(a.exception.fields) or '(every field)')}</code></td>"
        f"<td>{e(', '.join(f'{k}: {n}' for k, n in sorted(a.matches.items())))}</td>"
        f"<td>{e(a.exception.reason)}</td></tr>"
        for a in matched
    )
    return (
        '<section id="deviations"><h2>Deviations from upstream</h2>'
        + table(("Objects", "Fields", "Findings covered", "Reason"), rows)
        + "</section>"
    )


def _version_section(
    v: VersionResult, stages: Sequence[str], anchor: str, entries: Sequence[Entry]
) -> str:
    cap = (
        "yes"
        if v.capable
        else "legacy (no Typha templates)"
        if v.legacy
        else "no: Typha templates incomplete"
        if v.stages.get(CAPABILITY) == FAIL
        else "–"
    )
    stage_list = ", ".join(f"{s} {status_badge(v.stages[s])}" for s in stages if s in v.stages)
    excepted = "".join(
        f"<li><code>{e(rule)}</code>: {'skipped' if sev is None else 'downgraded to ' + e(sev)}"
        f" ({n} finding(s)): {e(why)}</li>"
        for rule, sev, why, n in v.exceptions
    )
    calico = v.addon == ADDON
    seen = v.objects or {}
    objects = (
        f"{seen['objects']} distinct, {seen['validated']} schema-checked, "
        f"{seen['not_checked']} not checked, {seen.get('unserved', 0)} of an API Kubernetes "
        "does not serve"
        + (f" ({e(', '.join(seen['not_checked_kinds']))})" if seen["not_checked_kinds"] else "")
        if seen
        else ""
    )
    parts = [
        f'<section id="{anchor}" class="version"><h2>{e(v.label)} {verdict_badge(v.passed)}</h2>',
        facts(
            [
                ("Addon", "" if calico else e(v.addon)),
                ("Dialect", e(v.dialect)),
                ("Templates", e(", ".join(v.files))),
                ("Typha-capable", cap if calico else ""),
                ("Stages", stage_list),
                ("Stages run", e(", ".join(v.ran)) if not calico else ""),
                ("Objects", objects if not calico else ""),
                ("Exceptions applied", f"<ul>{excepted}</ul>" if excepted else ""),
            ]
        ),
    ]
    if v.missing:
        items = "".join(f"<li>{e(m)}</li>" for m in v.missing)
        parts.append(f"<h3>Contract items missing</h3><ul>{items}</ul>")
    parts.append(f"<h3>Findings ({len(entries)})</h3>")
    templates = Templates(v.sources)
    parts.append(
        "".join(finding_article(x, templates) for x in entries) if entries else "<p>None.</p>"
    )
    if v.scenarios and not calico:
        rows = "".join(
            f"<tr><td>{e(s.name)}</td><td>{e(s.decision.get('cluster', ''))}</td>"
            f"<td>{e(_values_text(s.decision.get('values') or {}))}</td>"
            f"<td>{status_badge(s.golden)}</td></tr>"
            for s in v.scenarios
        )
        parts.append(
            "<h3>Scenarios</h3>" + table(("Scenario", "Cluster", "Values set", "Golden"), rows)
        )
    elif v.scenarios:
        rows = "".join(
            f"<tr><td>{e(s.name)}</td><td>{s.nodes:,}</td><td>{e(s.operation)}</td>"
            f"<td>{e(s.decision.get('allowTypha', ''))}</td>"
            f"<td>{e(s.decision.get('typhaReplicas', ''))}</td>"
            f"<td>{e(_scenario_key(s)[5])}</td>"
            f"<td>{status_badge(s.golden)}</td></tr>"
            for s in v.scenarios
        )
        parts.append(
            "<h3>Scenarios</h3>"
            + table(
                (
                    "Scenario",
                    "Nodes",
                    "Operation",
                    "allowTypha",
                    "typhaReplicas",
                    "Route",
                    "Golden",
                ),
                rows,
            )
        )
    if v.stages.get(GOLDENS, SKIP) != SKIP:
        parts.append("<h3>Golden changes</h3>" + golden_changes(v))
    if v.fidelity is not None:
        parts.append("<h3>Fidelity to upstream</h3>" + fidelity_summary(v.fidelity))
    coverage = getattr(v, "coverage", None)
    if isinstance(coverage, Mapping):
        parts.append("<h3>Branch coverage</h3>" + coverage_summary(coverage))
    parts.append("</section>")
    return "".join(parts)


def _values_text(values: Mapping[str, Any]) -> str:
    """A scenario's values as ``key=value`` (``key unset``), by key."""
    return (
        ", ".join(f"{k} unset" if v is None else f"{k}={v!r}" for k, v in sorted(values.items()))
        or "(the cluster's)"
    )


def fidelity_summary(fid: Mapping[str, Any]) -> str:
    """The fidelity stage's summary (upstream, status, scenarios, counts, note)."""
    scenarios = ", ".join(str(s.get("name", "")) for s in fid.get("scenarios") or [])
    return facts(
        [
            (
                "Upstream",
                f"<code>{e(fid.get('upstream') or '')}</code>" if fid.get("upstream") else "",
            ),
            ("Status", status_badge(str(fid.get("status", SKIP)))),
            ("Scenarios", e(scenarios)),
            ("Errors", str(fid.get("errors", 0))),
            ("Warnings", str(fid.get("warnings", 0))),
            ("Declared deviations", str(fid.get("deviations") or "")),
            ("Note", e(fid.get("note") or "")),
        ]
    )


# --- capability ---------------------------------------------------------------------


def _contract_findings(report: ReleaseReport) -> tuple[Finding, ...]:
    """The contract items an incomplete version misses, as findings (located where the
    report locates them)."""
    located = getattr(report, "contract", None)
    if located:
        return tuple(located)
    return tuple(f for f in getattr(report, "findings", ()) if f.stage == CAPABILITY)


def coverage_summary(data: Mapping[str, Any]) -> str:
    """The coverage stage's counts, as the report carries them."""
    return facts(
        (
            e(key.replace("_", " ").capitalize()),
            e(", ".join(map(str, value)) if isinstance(value, list | tuple) else value),
        )
        for key, value in data.items()
    )


def render_capability(report: ReleaseReport) -> str:
    """The release check of one version as one page."""
    cap = report.capability
    anchors = Anchors(
        {"summary", "contract", "findings", "typha", "exceptions", "fidelity", "coverage"}
    )
    groups = (
        ("capability", "Typha contract", _contract_findings(report)),
        ("rules", "Release rules", report.rules),
        ("context", "Context", report.context),
        ("schema", "Schema", report.schema),
        ("fidelity", "Fidelity", tuple(report.fidelity.findings) if report.fidelity else ()),
        ("coverage", "Coverage", tuple(getattr(report, "coverage", ()))),
    )
    entries = [
        Entry(anchors.make("f", cap.version, stage, str(i)), cap.version, f)
        for stage, _, found in groups
        for i, f in enumerate(found, 1)
    ]
    ready = report.release_ready
    templates = Templates(report.sources)
    errs, warns, _ = counts(x.finding for x in entries)
    typha = "yes" if cap.capable else f"no ({cap.verdict})"
    header = (
        f"<h1>calico-render capability {e(cap.version)} "
        f"{verdict_badge(ready, 'release-ready', 'not release-ready')}</h1>"
        + facts(
            [
                ("Dialect", e(cap.dialect)),
                ("Templates", e(", ".join(cap.files))),
                ("Typha-capable", e(typha)),
                ("Rules judged at", f"{report.nodes} nodes (Typha on)"),
                ("Kubernetes", e(", ".join(report.kube_versions))),
                (
                    "Exceptions file",
                    f"<code>{e(report.exceptions_file)}</code>" if report.exceptions_file else "",
                ),
                ("Findings", f"{errs} error(s), {warns} warning(s), {len(entries)} in all"),
                ("Tool", f"calico-render {e(__version__)}"),
            ]
        )
    )
    contract = "".join(
        f"<tr><td>{e(i.description)}</td><td>{verdict_badge(i.ok, 'ok', 'MISSING')}</td>"
        f"<td>{e(i.detail) if not i.ok else ''}</td></tr>"
        for i in cap.items
    )
    summary_rows = []
    for stage, title, found in groups:
        if stage == FIDELITY and report.fidelity is None:
            continue
        if stage == COVERAGE and not hasattr(report, "coverage"):
            continue
        ferrs, fwarns, other = counts(found)
        status = FAIL if ferrs else PASS
        if stage == RULES and cap.legacy:
            status = LEGACY
        summary_rows.append(
            f'<tr><th scope="row">{title}</th><td>{status_badge(status)}</td>'
            f"<td>{ferrs}</td><td>{fwarns}</td><td>{other}</td></tr>"
        )
    body = [
        '<section id="summary"><h2>Summary</h2>'
        + table(("Stage", "Status", "Errors", "Warnings", "Other"), "".join(summary_rows))
        + "</section>",
        '<section id="contract"><h2>Typha contract</h2>'
        + table(("Item", "Status", "Detail"), contract)
        + "</section>",
        _exceptions_section(
            report.exceptions_file,
            report.rule_exceptions,
            report.exception_warnings,
            report.exception_notes,
        ),
        _deviations_section(report.deviations),
        f'<section id="findings"><h2>Findings ({len(entries)})</h2>{finding_index(entries)}',
        "".join(finding_article(x, templates, 3) for x in entries),
        "</section>",
        '<section id="typha"><h2>Typha scale: the renders checked</h2>'
        + typha_chart(release_marks(report))
        + "</section>",
    ]
    counts_ = getattr(report, "coverage_counts", None)
    if isinstance(counts_, Mapping) and counts_:
        body.append(
            '<section id="coverage"><h2>Branch coverage</h2>'
            + coverage_summary(counts_)
            + "</section>"
        )
    if report.fidelity is not None:
        body.append(
            '<section id="fidelity"><h2>Fidelity to upstream</h2>'
            + fidelity_summary(report.fidelity.to_dict())
            + "</section>"
        )
    nav = [
        ("summary", "Summary"),
        ("contract", "Contract"),
        ("findings", "Findings"),
        ("typha", "Typha scale"),
    ]
    title = f"calico-render capability {cap.version}: " + (
        "release-ready" if ready else "not release-ready"
    )
    return page(title, header, nav, "".join(body))


def render_failure(command: str, findings: Sequence[Finding]) -> str:
    """A run that ended in bad input (exit 2), as a page: what was wrong and where, so a
    CI job that publishes the report always has one to show."""
    anchors = Anchors({"findings"})
    entries = [Entry(anchors.make("f", str(i)), "", f) for i, f in enumerate(findings, 1)]
    header = f"<h1>calico-render {e(command)} {verdict_badge(False, no='not run')}</h1>" + facts(
        [
            ("Result", "the run stopped on bad input (exit 2): nothing was checked"),
            ("Tool", f"calico-render {e(__version__)}"),
        ]
    )
    body = (
        f'<section id="findings"><h2>Findings ({len(entries)})</h2>'
        + "".join(finding_article(x, Templates({}), 3) for x in entries)
        + "</section>"
    )
    return page(f"calico-render {command}: not run", header, [("findings", "Findings")], body)


class HtmlFormat:
    name = "html"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, (CheckDocument, CapabilityDocument, InputErrorDocument))

    def render(self, document: output.Document) -> str:
        if isinstance(document, InputErrorDocument):
            return render_failure(document.command, [document.finding])
        if isinstance(document, CheckDocument):
            return render_check(document.report)
        if isinstance(document, CapabilityDocument):
            return render_capability(document.report)
        raise ValueError(f"output format 'html' cannot render {type(document).__name__}")


output.register(HtmlFormat())
