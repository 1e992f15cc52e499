"""What the verbs over every addon a BKECluster lists return
(:func:`renderer.api.render_listed`, :func:`renderer.api.listed_images`): kept apart
from :mod:`renderer.api.results` so that a version's render loads none of it."""

from __future__ import annotations

from dataclasses import dataclass

from renderer.api.results import AddonImages, AddonResult, ListedAddon, RenderResult
from renderer.errors import EXIT_OK, EXIT_REFUSED
from renderer.finding import Finding


@dataclass(frozen=True)
class AddonRender:
    """One addon a BKECluster lists, as the controller installs it: its render (Calico's
    with everything :func:`renderer.api.render` decides and checks, any other's as
    :func:`renderer.api.render_addon` renders it), Calico's refusal (``refused``: a first
    install above 50 nodes on a version the controller finds no Typha in), or why
    nothing is rendered from bke-manifests (``listed.skipped``)."""

    listed: ListedAddon
    result: RenderResult | AddonResult | None = None
    refused: str = ""

    @property
    def name(self) -> str:
        return self.listed.name

    @property
    def version(self) -> str:
        return self.result.version.name if self.result is not None else self.listed.version

    @property
    def status(self) -> str:
        """``rendered``, ``failed`` (an error finding: nothing is written), ``refused``
        or ``skipped``."""
        if self.refused:
            return "refused"
        if self.result is None:
            return "skipped"
        return "failed" if self.result.exit_code else "rendered"

    @property
    def exit_code(self) -> int:
        if self.refused:
            return EXIT_REFUSED
        return self.result.exit_code if self.result is not None else EXIT_OK

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.result.findings if self.result is not None else ()

    def stream(self) -> str:
        return self.result.stream() if self.result is not None else ""


@dataclass(frozen=True)
class ListedRender:
    """Every addon a BKECluster lists (or those asked for), rendered in the order the
    controller installs them: the one answer of :func:`renderer.api.render_listed` for
    a create request."""

    config: str
    nodes: int
    addons: tuple[AddonRender, ...]
    kube_versions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for a in self.addons for f in a.findings)

    @property
    def exit_code(self) -> int:
        """3 when Calico's install is refused, else 1 when any addon has an error
        finding (nothing is written then), else 0."""
        codes = {a.exit_code for a in self.addons}
        return max(codes, key=lambda c: (c == EXIT_REFUSED, c)) if codes else EXIT_OK

    def stream(self) -> str:
        """Every addon's render as one stream, in the controller's order, each document
        headed ``# Source: <addon>/<version>/<file>``."""
        return "".join(a.stream() for a in self.addons)


@dataclass(frozen=True)
class ListedImages:
    """One addon a BKECluster lists and the images each node role pulls for it (None
    when nothing is rendered for it: ``listed.skipped`` or ``refused`` says why)."""

    listed: ListedAddon
    images: AddonImages | None = None
    refused: str = ""
