"""A version's renders as the gate's stages share them: each distinct context renders
once, each distinct rendered file parses once (:class:`Renders`), and the scenarios
rendered from them (:class:`ScenarioRender`); the Typha contract and fidelity judge
through these renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renderer.bke import TYPHA_KEYS
from renderer.bke import context as bke_context
from renderer.bke.values import build_context
from renderer.calico import capability, fidelity
from renderer.calico.scenarios import Scenario, decision_record, route_scenario, scenarios_for
from renderer.checks.coverage import scenario_context
from renderer.engine.render import render_version, version_keys
from renderer.engine.sourcemap import SourceMap
from renderer.finding import Finding
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.manifests.tree import VersionDir

Rendered = tuple[dict[str, Any], list[tuple[str, str]], list[K8sObject]]


@dataclass
class ScenarioRender:
    scenario: Scenario
    decision: dict[str, Any]
    files: list[tuple[str, str]]
    objects: list[K8sObject]
    context: Mapping[str, Any]


class ParsedFiles:
    """The rendered files of one version parsed so far, each distinct (name, text) once
    however many contexts render it alike (the CRDs), with its source map: what the
    goldens stage compares and locates with."""

    def __init__(self) -> None:
        self._parsed: dict[tuple[str, str], list[K8sObject]] = {}
        self._maps: dict[tuple[str, str], SourceMap] = {}

    @property
    def parsed(self) -> Mapping[tuple[str, str], list[K8sObject]]:
        """Every rendered file parsed so far, keyed by (file name, text)."""
        return self._parsed

    @property
    def maps(self) -> Mapping[tuple[str, str], SourceMap]:
        """The source map of every rendered file so far, keyed as :attr:`parsed`."""
        return self._maps

    def _parse(self, name: str, text: str, lines: SourceMap | None = None) -> list[K8sObject]:
        """Parse a rendered file once even when several contexts render it alike (CRDs)."""
        key = (name, text)
        if lines is not None:
            self._maps.setdefault(key, lines)
        if key not in self._parsed:
            self._parsed[key] = parse_stream(text, name, lines=lines)
        return self._parsed[key]


class Renders(ParsedFiles):
    """Renders of one version keyed by their Typha context: each distinct one renders once.

    The capability contract (off, on at 3 and at 4 replicas) and the scenarios ask for
    the same contexts, so the scenarios reuse the contract's renders; a file that
    renders alike in several contexts is parsed once. Objects name their file relative
    to the version directory (as goldens do), or with it when ``qualified``.
    """

    def __init__(self, version: VersionDir, *, qualified: bool = False) -> None:
        super().__init__()
        self.version = version
        self.qualified = qualified
        self._cache: dict[tuple[Any, ...], Rendered] = {}
        #: Values that changed the YAML a template wrote, over every render so far.
        self.injections: list[Finding] = []

    def get(
        self,
        typha: Mapping[str, str],
        values: Mapping[str, str] | None = None,
        repo: str = capability.CHECK_REPO,
        overrides: Sequence[tuple[str, str | None]] = (),
    ) -> Rendered:
        """The render with ``typha`` (and other context ``values``) on the defaults;
        ``overrides`` are a derived scenario's values, set last (None: unset)."""
        key: tuple[Any, ...] = tuple(sorted(typha.items()))
        if values or repo != capability.CHECK_REPO or overrides:
            key = (key, tuple(sorted((values or {}).items())), repo, tuple(overrides))
        if key not in self._cache:
            base = build_context(dict(values or {}), typha=typha, repo=repo)
            ctx = scenario_context(base, overrides)
            rendered = render_version(self.version, ctx)
            self.injections.extend(bke_context.injection_findings(rendered))
            files = [(f.name.split("/", 1)[1], f.text) for f in rendered]
            objects = [
                o
                for (name, text), f in zip(files, rendered, strict=True)
                for o in self._parse(f.name if self.qualified else name, text, f.lines)
            ]
            self._cache[key] = (ctx, files, objects)
        return self._cache[key]

    def render(
        self, version: VersionDir, typha: Mapping[str, str]
    ) -> tuple[dict[str, Any], list[K8sObject]]:
        """:data:`capability.Render` over these renders (``version`` must be theirs)."""
        if version != self.version:
            raise ValueError(f"renders of {self.version.name} asked for {version.name}")
        ctx, _, objects = self.get(typha)
        return ctx, objects


def fidelity_renderer(version: VersionDir) -> fidelity.RenderFn:
    """Renders of ``version`` on the context defaults with an empty repo; a file that
    renders alike in several scenarios (the CRDs) is parsed once."""
    parsed: dict[tuple[str, str], list[K8sObject]] = {}

    def render(values: Mapping[str, str]) -> list[K8sObject]:
        out: list[K8sObject] = []
        for f in render_version(version, build_context(dict(values), repo="")):
            if (f.name, f.text) not in parsed:
                parsed[f.name, f.text] = parse_stream(f.text, f.name, lines=f.lines)
            out.extend(parsed[f.name, f.text])
        return out

    return render


# --- the contract, the scenarios, fidelity ----------------------------------------


def assess(renders: Renders) -> capability.CapabilityReport:
    """The Typha contract judged on the shared renders (off, on at two replica counts)."""
    return capability.assess_capability(renders.version, render=renders.render)


def render_scenarios(
    shared: Renders,
    cap: capability.CapabilityReport,
    chosen: Sequence[Scenario] | None = None,
) -> list[ScenarioRender]:
    """The version's scenarios (``chosen``, by default routing's), each from the shared
    renders. Incomplete Typha templates render the capable scenarios: routing refuses
    their installs above 50 nodes (the decision says so), but their Typha-on renders are
    what needs checking."""
    out = []
    for scenario in scenarios_for(not cap.legacy) if chosen is None else chosen:
        route = route_scenario(scenario, cap.capable, shared.version.name, tuple(cap.missing))
        ctx, files, objects = shared.get(route.decision.context(), overrides=scenario.values)
        decision = decision_record(scenario, route)
        out.append(ScenarioRender(scenario, decision, files, objects, ctx))
    return out


def fidelity_render(shared: Renders) -> fidelity.RenderFn:
    """Fidelity's renders of a version (empty repo) through the shared renders, so a
    file that renders alike (the CRDs) is parsed once for every stage."""

    def render(values: Mapping[str, str]) -> list[K8sObject]:
        typha = {k: v for k, v in values.items() if k in TYPHA_KEYS}
        rest = {k: v for k, v in values.items() if k not in TYPHA_KEYS}
        return shared.get(typha, rest, repo="")[2]

    return render


def assess_fidelity(shared: Renders, upstream: Path, capable: bool) -> fidelity.FidelityResult:
    """The version against upstream's manifests of its tag."""
    return fidelity.assess_fidelity(
        shared.version.name,
        upstream,
        fidelity_render(shared),
        capable=capable,
        keys=version_keys(shared.version),
    )
