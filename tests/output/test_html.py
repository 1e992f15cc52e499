"""The HTML format (output/html.py): the check and capability reports as one page.

Structure is asserted on the page a real browser rendered (headless Chromium from
Debian, driven over its DevTools pipe by :mod:`tests.chromium`), for a copy of the
fixture tree with planted defects: a rule error, an incomplete Typha contract, a schema
error under a key that is markup, golden changes (a field added, one removed, one
changed, a value that is markup), and an exception whose reason is markup. Screenshots
are kept as artifacts (paths printed; ``CALICO_RENDER_TEST_ARTIFACTS`` also collects
them). Without Chromium the browser tests skip and say why.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from renderer import api, output
from renderer.calico import policy
from renderer.checks.report import CheckReport
from renderer.finding import Finding
from renderer.output import html
from renderer.output.capability import CapabilityDocument
from renderer.output.check import CheckDocument
from renderer.output.inputerror import InputErrorDocument
from tests.chromium import Browser, find_chromium
from tests.gatehelp import TREE
from tests.output.cases import DOCUMENTS

#: Markup planted in the tree; it must reach the page as text, never as elements.
SCRIPT = '<script>document.title="owned"</script>'
IMG = "<img src=x onerror=alert(1)>"
REASON = "CRDs are <b>not</b> in kubernetes-validate"


def _plant(root: Path) -> None:
    """Change v9.1.0 after its goldens were written: a field changed (Typha's image),
    one removed (DATASTORE_TYPE), one added (a ConfigMap key holding markup), and a
    Deployment key that is markup (a schema error)."""
    vdir = root / "kubernetes" / "calico" / "v9.1.0"
    typha = vdir / "001-typha.yaml"
    typha.write_text(typha.read_text().replace("calico/typha:v9.1.0", "calico/typha:v9.1.1"))
    calico = vdir / "002-calico.yaml"
    text = calico.read_text()
    text = text.replace(
        '            - name: DATASTORE_TYPE\n              value: "kubernetes"\n', ""
    )
    text = text.replace("  replicas: 1\n", f"  replicas: 1\n  {IMG!r}: true\n".replace("'", '"'), 1)
    text = text.replace("\ndata:\n", f"\ndata:\n  banner: '{SCRIPT}'\n", 1)
    calico.write_text(text)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[CheckReport, Path]:
    """The check report of the planted tree (goldens written before the plant)."""
    base = tmp_path_factory.mktemp("html-tree")
    root = base / "tree"
    shutil.copytree(TREE, root)
    golden = base / "golden"
    (root / ".calico-render.yaml").write_text(
        "exceptions:\n"
        "  - rule: schema-not-checked\n"
        "    versions: [v9.4.0]\n"
        f"    reason: '{REASON}'\n"
    )
    opts: dict[str, Any] = {"root": root, "golden": golden, "kube_versions": ("1.30",), "jobs": 1}
    api.check(api.check_options(update=True, **opts))
    _plant(root)
    return api.check(api.check_options(**opts)), base


@pytest.fixture(scope="module")
def page(planted: tuple[CheckReport, Path]) -> Path:
    report, base = planted
    path = base / "report.html"
    path.write_text(output.render("html", CheckDocument(report)), encoding="utf-8")
    return path


# --- without a browser: bytes and structure ----------------------------------------


class Elements(HTMLParser):
    """Every start tag of a page with its attributes, and the ids it defines."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def elements(text: str) -> list[tuple[str, dict[str, str]]]:
    parser = Elements()
    parser.feed(text)
    return parser.tags


def test_same_report_same_bytes(planted: tuple[CheckReport, Path]) -> None:
    report, _ = planted
    first = output.render("html", CheckDocument(report))
    assert first == output.render("html", CheckDocument(report))
    assert re.search(r"20\d\d-\d\d-\d\d", first) is None  # no date, no clock


def test_planted_markup_stays_text(page: Path) -> None:
    text = page.read_text()
    tags = elements(text)
    assert [t for t, _ in tags].count("script") == 0
    assert not [a for _, a in tags if any(k.startswith("on") for k in a)]
    assert [t for t, _ in tags].count("img") == 0
    assert [t for t, _ in tags].count("b") == 0
    # and the planted text is on the page, escaped
    assert "&lt;script&gt;document.title=" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "&lt;b&gt;not&lt;/b&gt;" in text


def test_self_contained(page: Path) -> None:
    tags = elements(page.read_text())
    linked = [a for t, a in tags if t in ("link", "script", "img", "iframe", "object")]
    assert linked == []
    csp = [a["content"] for t, a in tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]
    hrefs = [a["href"] for _, a in tags if "href" in a]
    assert hrefs and all(h.startswith("#") for h in hrefs)


def test_every_finding_has_an_anchor_and_a_link(planted: tuple[CheckReport, Path]) -> None:
    report, _ = planted
    tags = elements(output.render("html", CheckDocument(report)))
    ids = [a["id"] for _, a in tags if "id" in a]
    assert len(ids) == len(set(ids))
    articles = [a for t, a in tags if t == "article"]
    expected = [(f.rule, f.severity) for v in report.versions for f in v.findings]
    assert [(a["data-rule"], a["data-severity"]) for a in articles] == expected
    links = {a["href"][1:] for t, a in tags if t == "a"}
    assert {a["id"] for a in articles} <= links
    assert {f"v-{v.version}" for v in report.versions} <= links


def test_chart_coordinates_follow_the_axes() -> None:
    assert (html.chart_x(0), html.chart_x(html.CHART_NODES)) == (html.PLOT_LEFT, html.PLOT_RIGHT)
    assert html.chart_y(0) == html.PLOT_BOTTOM
    assert html.chart_y(html.CHART_REPLICAS) == html.PLOT_TOP
    steps = list(html.policy_steps())
    # each count starts where the policy starts it: 3 at 51 nodes, 4 at 601, 6 at 1,001
    assert steps[:4] == [(0, 0), (51, 0), (51, 3), (601, 3)]
    assert (1001, 5) in steps and (1001, 6) in steps
    for (n0, r0), (n1, r1) in itertools.pairwise(steps):
        if n0 == n1 and n0:  # a step: the count before holds one node earlier
            assert (policy.decide_typha(n0 - 1).replicas, policy.decide_typha(n0).replicas) == (
                r0,
                r1,
            )
    assert steps[-1] == (5000, 20) and max(r for _, r in steps) == policy.MAX_REPLICAS


def test_bundled_report_under_two_megabytes() -> None:
    report = api.check(api.check_options(jobs=1))
    text = output.render("html", CheckDocument(report))
    assert len(text.encode()) < 2 * 1024 * 1024
    assert report.passed and "✓ PASS" in text


def test_capability_page_lists_contract_and_findings() -> None:
    report = api.capability("v9.4.0", root=TREE, kube_versions=("1.30",))
    tags = elements(output.render("html", CapabilityDocument(report)))
    rules = [a["data-rule"] for t, a in tags if t == "article"]
    assert "typha-anti-affinity" in rules
    marks = [(a["data-nodes"], a["data-replicas"]) for _, a in tags if "data-nodes" in a]
    assert marks == [("1", "0"), ("51", "3"), ("601", "4")] * 2  # both charts


# --- in the browser -----------------------------------------------------------------

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium not found: install Debian's chromium package to run the browser tests",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as b:
        yield b


def _artifact(path: Path, record: Callable[[str, object], None]) -> None:
    """Keep an artifact (screenshot, page): recorded on the test's report, so the run
    lists it at its end (tests/output/conftest.py, parallel workers too), and copied
    where CI collects artifacts if asked (pytest keeps only its last few temporary
    directories)."""
    record("artifact", str(path))
    where = os.environ.get("CALICO_RENDER_TEST_ARTIFACTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, Path(where) / path.name)


FINDINGS_JS = """
[...document.querySelectorAll('article.finding')].map(a => ({
  id: a.id, rule: a.dataset.rule, severity: a.dataset.severity,
  visible: a.getBoundingClientRect().height > 0,
  text: a.innerText,
  links: document.querySelectorAll(`a[href="#${CSS.escape(a.id)}"]`).length,
  highlighted: a.querySelector('tr.hl mark') ? a.querySelector('tr.hl th').innerText : null,
}))
"""

MARKS_JS = """
[...document.querySelectorAll('svg.chart')].map(svg => {
  const curve = svg.querySelector('polyline.curve');
  const centre = el => { const r = el.getBoundingClientRect();
                         return [r.left + r.width / 2, r.top + r.height / 2]; };
  const ticks = sel => [...svg.querySelectorAll(sel)].map(g =>
      [Number(g.dataset.value), centre(g.querySelector('line'))]);
  return {
    x: ticks('g.xtick'), y: ticks('g.ytick'),
    marks: [...svg.querySelectorAll('g.mark')].map(g => {
      const c = g.querySelector('circle');
      const p = svg.createSVGPoint();
      p.x = c.cx.baseVal.value; p.y = c.cy.baseVal.value;
      return {nodes: Number(g.dataset.nodes), replicas: Number(g.dataset.replicas),
              at: centre(c), onCurve: curve.isPointInStroke(p)};
    }),
  };
})
"""


def _fit(points: list[list[Any]], index: int) -> tuple[float, float]:
    """The linear map value -> page coordinate through the first and last tick."""
    (v0, p0), (v1, p1) = points[0], points[-1]
    scale = (p1[index] - p0[index]) / (v1 - v0)
    return scale, p0[index] - scale * v0


@needs_chromium
def test_browser_every_finding_present_linked_and_located(
    browser: Browser, page: Path, planted: tuple[CheckReport, Path]
) -> None:
    report, _ = planted
    browser.open(page.as_uri(), 1280)
    found = browser.evaluate(FINDINGS_JS)
    expected = [f for v in report.versions for f in v.findings]
    assert [(x["rule"], x["severity"]) for x in found] == [(f.rule, f.severity) for f in expected]
    for x, f in zip(found, expected, strict=True):
        assert x["visible"] and x["links"] >= 2  # the index row and the finding's own link
        assert f.message in x["text"]
        if f.object:
            assert str(f.object) in x["text"]
        if f.line and f.file:
            assert x["highlighted"] == f"▶{f.line}"  # the template line, highlighted
    assert any(x["rule"] == "typha-anti-affinity" and x["highlighted"] for x in found)
    assert browser.evaluate("document.title").startswith("calico-render check: FAIL")
    assert browser.evaluate("document.querySelectorAll('script, img').length") == 0
    assert browser.console_errors() == []


@needs_chromium
def test_browser_chart_points_where_the_axes_say(browser: Browser, page: Path) -> None:
    browser.open(page.as_uri(), 1280)
    charts = browser.evaluate(MARKS_JS)
    ranges = [(c["x"][-1][0], c["y"][-1][0]) for c in charts]
    assert ranges == [(5000, 20), (1000, 8)]  # the whole policy, and close up
    for chart in charts:
        xs, ys = _fit(chart["x"], 0), _fit(chart["y"], 1)
        got = {(m["nodes"], m["replicas"]) for m in chart["marks"]}
        assert got == {(50, 0), (51, 3), (51, 0), (601, 4)}  # capable and legacy scenarios
        for m in chart["marks"]:
            assert m["at"][0] == pytest.approx(xs[0] * m["nodes"] + xs[1], abs=1)
            assert m["at"][1] == pytest.approx(ys[0] * m["replicas"] + ys[1], abs=1)
            # a Typha-on scenario sits on the policy's curve
            if m["replicas"]:
                assert m["onCurve"] and m["replicas"] == policy.decide_typha(m["nodes"]).replicas


@needs_chromium
@pytest.mark.parametrize(("width", "mobile"), [(1280, False), (390, True)])
def test_browser_no_horizontal_overflow(
    browser: Browser,
    page: Path,
    width: int,
    mobile: bool,
    record_property: Callable[[str, object], None],
) -> None:
    browser.open(page.as_uri(), width, mobile=mobile)
    sizes = browser.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert sizes[0] <= sizes[1]
    _artifact(browser.screenshot(page.parent / f"report-{width}.png"), record_property)
    _artifact(page, record_property)
    assert browser.console_errors() == []


#: The lines each template path of the findings table is broken into, as laid out.
PATH_LINES_JS = """
[...document.querySelectorAll('table.index code.path')].map(code => {
  const lines = []; let line = ''; let top = null;
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect) continue;
      if (top !== null && Math.abs(rect.top - top) > 2) { lines.push(line); line = ''; }
      top = rect.top; line += node.data[i];
    }
  }
  lines.push(line);
  return lines;
})
"""


@needs_chromium
@pytest.mark.parametrize("width", [1280, 390])
def test_browser_template_paths_wrap_at_slashes(browser: Browser, page: Path, width: int) -> None:
    browser.open(page.as_uri(), width, mobile=width < 600)
    paths = browser.evaluate(PATH_LINES_JS)
    assert paths and any(len(lines) > 1 for lines in paths)  # narrow enough to wrap
    for lines in paths:
        assert all(line.endswith("/") for line in lines[:-1]), lines


@needs_chromium
def test_browser_capability_page(
    browser: Browser, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    report = api.capability("v9.3.0", root=TREE, kube_versions=("1.30",))
    path = tmp_path / "capability.html"
    path.write_text(output.render("html", CapabilityDocument(report)), encoding="utf-8")
    browser.open(path.as_uri(), 1280)
    heading = browser.evaluate("document.querySelector('h1').innerText")
    assert "v9.3.0" in heading and "not release-ready" in heading
    assert browser.evaluate("document.querySelectorAll('#contract tbody tr').length") == len(
        report.capability.items
    )
    assert browser.console_errors() == []
    _artifact(browser.screenshot(tmp_path / "capability-1280.png"), record_property)


@needs_chromium
def test_browser_prints(
    browser: Browser, page: Path, record_property: Callable[[str, object], None]
) -> None:
    """On paper: no navigation, nothing wider than an A4 page, every finding there."""
    browser.open(page.as_uri(), 794)  # A4's width in CSS pixels
    browser.emulate_print()
    try:
        assert browser.evaluate("getComputedStyle(document.querySelector('nav')).display") == (
            "none"
        )
        sizes = browser.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert sizes[0] <= sizes[1]
        pdf = browser.pdf()
        assert pdf.startswith(b"%PDF")
        (page.parent / "report.pdf").write_bytes(pdf)
        _artifact(page.parent / "report.pdf", record_property)
    finally:
        browser.emulate_print(False)
    assert browser.console_errors() == []


# --- whole pages and the pieces they are built from ------------------------------

HTML_DOCUMENTS = [n for n, case in DOCUMENTS.items() if "html" in output.names(case.kind)]


def test_html_offered_for_check_and_capability_and_their_bad_input_run_only() -> None:
    kinds = {DOCUMENTS[n].kind for n in HTML_DOCUMENTS}
    assert kinds == {CheckDocument, CapabilityDocument, InputErrorDocument}


@pytest.mark.parametrize("name", HTML_DOCUMENTS)
def test_html(name: str, file_regression: FileRegressionFixture) -> None:
    text = output.render("html", DOCUMENTS[name]())
    assert text.startswith("<!DOCTYPE html>\n") and text.endswith("</html>\n")
    file_regression.check(text, basename=f"html-{name}", extension=".html")


def test_two_runs_of_one_tree_give_the_same_bytes(planted: tuple[CheckReport, Path]) -> None:
    report, base = planted
    opts = api.check_options(
        root=base / "tree", golden=base / "golden", kube_versions=("1.30",), jobs=2
    )
    again = api.check(opts)
    assert output.render("html", CheckDocument(again)) == output.render(
        "html", CheckDocument(report)
    )


@pytest.mark.parametrize(
    ("file", "found"),
    [
        ("002-calico.yaml", True),
        ("v9.4.0/002-calico.yaml", True),
        ("kubernetes/calico/v9.4.0/002-calico.yaml", True),
        ("x002-calico.yaml", False),
        ("", False),
    ],
)
def test_a_finding_finds_its_template_however_its_file_is_spelled(file: str, found: bool) -> None:
    sources = {"002-calico.yaml": "a\n", "001-typha.yaml": "b\n"}
    assert (html.source_of(sources, file) == "a\n") is found


def test_excerpt_lines_around_the_finding_with_it_highlighted() -> None:
    sources = {"t.yaml": "".join(f"line {n}\n" for n in range(1, 11)) + "x" * 1000 + "\n"}
    templates = html.Templates(sources)
    rows = elements(html.excerpt(templates, Finding("r", "error", "m", file="t.yaml", line=5)))
    numbered = [a for t, a in rows if t == "tr"]
    assert len(numbered) == 5 and [a.get("class") for a in numbered].count("hl") == 1
    long = html.excerpt(templates, Finding("r", "error", "m", file="t.yaml", line=11))
    assert "x" * html.MAX_LINE not in long and "…" in long
    for line in (0, 12):  # unknown, or past the end (the template changed since)
        assert html.excerpt(templates, Finding("r", "error", "m", file="t.yaml", line=line)) == ""


def test_a_run_stopped_on_bad_input_is_a_page_naming_what_was_wrong() -> None:
    bad = Finding("input-error", "error", "unknown key <b>", stage="input", file="x.yaml", line=3)
    tags = elements(html.render_failure("check", [bad]))
    assert [(a["data-rule"], a["data-severity"]) for t, a in tags if t == "article"] == [
        ("input-error", "error")
    ]
    assert [t for t, _ in tags].count("b") == 0
