"""The command line is the library: each example command of README.md and docs/ gives
the same findings and the same exit class as the documented library calls that stand
for it (docs/library.md), so a Go service calling the library and a person at a
terminal get one answer."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from renderer import api
from renderer.errors import EXIT_CHECK_FAILED, EXIT_OK, CalicoRenderError
from renderer.finding import Finding
from renderer.output.findings import finding_dict
from tests.clihelp import run

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples"
UPSTREAM = PROJECT / "upstream" / "calico"
DOCS = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]

Answer = tuple[list[Any], int]


def _exit_class(code: int) -> str:
    return {0: "ok", 1: "check failed", 2: "bad input", 3: "refused"}.get(code, str(code))


def _findings(findings: list[Finding] | tuple[Finding, ...]) -> list[dict[str, Any]]:
    return sorted((finding_dict(f) for f in findings), key=json.dumps)


def _render(request: Callable[[], api.Request]) -> Callable[[], Answer]:
    def call() -> Answer:
        result = api.render(request())
        return _findings(result.findings), result.exit_code

    return call


def _advise(request: api.Request) -> Answer:
    report = api.advise(request)
    return _findings(report.findings), EXIT_OK if report.passed else EXIT_CHECK_FAILED


def _capability(version: str) -> Answer:
    report = api.capability(version)
    return _findings(report.findings), EXIT_OK if report.release_ready else EXIT_CHECK_FAILED


def _check(**options: Any) -> Answer:
    report = api.check(api.check_options(jobs=1, **options))
    found = [f for v in report.versions for f in v.findings]
    return _findings(found), EXIT_OK if report.passed else EXIT_CHECK_FAILED


def _explain(request: api.Request) -> Answer:
    """explain-context's warnings (its JSON prints them as warning findings)."""
    result = api.explain_context(request)
    return sorted(result.warnings), EXIT_OK


#: As the command lines name them (the tests run from the project's directory): a
#: finding says where a value came from by the path given.
CONFIG = (Path("examples/bkecluster-601.yaml"), Path("examples/bkenodes-601.yaml"))

#: Example command lines of README.md and docs/, and the library calls that stand for
#: them. A command line with ``--format`` is compared as printed; any other also with
#: ``--format json`` appended (the JSON holds the findings the text prints).
CASES: dict[str, Callable[[], Answer]] = {
    "calico-render --version v3.28 --nodes 601": _render(
        lambda: api.Request.of("v3.28", 601, kube=())
    ),
    "calico-render --config examples/bkecluster-601.yaml "
    "--nodes-file examples/bkenodes-601.yaml": _render(
        lambda: api.Request.from_config(CONFIG[0], nodes_file=CONFIG[1], kube=())
    ),
    "calico-render render --version v3.27 --nodes 601 --operation upgrade": _render(
        lambda: api.Request.of("v3.27", 601, operation="upgrade", kube=())
    ),
    "calico-render capability --version v3.31": lambda: _capability("v3.31"),
    "calico-render advise --version v3.31 --nodes 601": lambda: _advise(
        api.Request.of("v3.31", 601)
    ),
    "calico-render advise --version v3.31 --nodes 601 --set podSubnet=10.250.0.0/16 "
    "--set calicoMode=ipip": lambda: _advise(
        api.Request.of("v3.31", 601, sets=["podSubnet=10.250.0.0/16", "calicoMode=ipip"])
    ),
    "calico-render explain-context --config examples/bkecluster-601.yaml "
    "--nodes-file examples/bkenodes-601.yaml": lambda: _explain(
        api.Request.from_config(CONFIG[0], nodes_file=CONFIG[1])
    ),
    "calico-render check": lambda: _check(),
    "calico-render check --upstream upstream/calico": lambda: _check(upstream=UPSTREAM),
}


def _documented() -> set[str]:
    """Every runnable ``calico-render`` line of the docs' shell blocks (placeholders,
    other trees and flags of CI files left out)."""
    found = set()
    for doc in DOCS:
        for block in re.findall(r"```sh\n(.*?)```", doc.read_text(encoding="utf-8"), re.S):
            for raw in block.splitlines():
                line = re.sub(r"\s+", " ", raw.split("#", 1)[0].split(">", 1)[0]).strip()
                line = line.replace(" --format text", "")
                placeholder = re.search(r"[A-Z]{2,}|path/to|\.\.\.|\$|\\|cluster\.yaml", line)
                if line.startswith("calico-render ") and not placeholder:
                    found.add(line)
    return found


def _cli(capsys: pytest.CaptureFixture[str], line: str) -> Answer:
    argv = shlex.split(line)[1:]
    if "--format" not in argv:
        argv += ["--format", "json"]
    if argv[0] == "check":
        argv += ["--jobs", "1"]
    r = run(capsys, *argv)
    if r.code == 2:
        return [], r.code
    data = json.loads(r.out)

    def walk(node: Any) -> list[dict[str, Any]]:
        if isinstance(node, dict):
            if "rule" in node and "severity" in node and "message" in node:
                return [node]
            return [f for v in node.values() for f in walk(v)]
        if isinstance(node, list):
            return [f for v in node for f in walk(v)]
        return []

    if argv[0] == "explain-context":
        return sorted(f["message"] for f in walk(data.get("findings", []))), r.code
    found = walk(data.get("findings", [])) if argv[0] != "check" else walk(data.get("versions"))
    return sorted(found, key=json.dumps), r.code


@pytest.mark.parametrize("line", sorted(CASES))
def test_the_command_line_and_the_library_give_one_answer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    monkeypatch.chdir(PROJECT)
    try:
        library = CASES[line]()
    except CalicoRenderError as exc:
        library = ([], exc.exit_code)
    cli = _cli(capsys, line)
    assert _exit_class(cli[1]) == _exit_class(library[1])
    assert cli[0] == library[0]


def test_every_runnable_documented_command_has_its_library_call() -> None:
    """A new example in the docs needs its library call here."""
    runnable = {line for line in _documented() if not line.startswith(
        ("calico-render check --manifests", "calico-render capability --manifests",
         "calico-render import", "calico-render images",
         "calico-render --tool-version", "calico-render rules", "calico-render typha",
         "calico-render versions", "calico-render template", "calico-render validate")
    )}  # fmt: skip
    assert runnable <= set(CASES), sorted(runnable - set(CASES))
