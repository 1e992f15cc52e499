"""How BKE's controller decides Typha, as its code does (cluster-api-provider-bke,
``pkg/kube/addon.go``).

Only for an addon whose name is ``calico`` in any case, and only above 50 BKENodes,
the controller asks whether the version's templates "support Typha" by a text search:
it joins the raw text of the files it renders (each followed by a line break) and
requires a set of fixed strings anywhere in it, comments included. A failed search
refuses a first install and leaves Typha off for an upgrade or a rollback; a passed
one sets ``allowTypha`` "true" and ``typhaReplicas`` by the policy. calico-render
judges capability from what the templates render instead; this module says what the
controller will do, so the two can be compared (``typha-controller-disagrees``).
"""

from __future__ import annotations

from dataclasses import dataclass

from renderer.manifests.tree import VersionDir

#: What the controller's search requires, each a group of strings that must all be
#: present, by what it stands for (its own grouping).
SEARCHED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the Typha switch", ("allowTypha",)),
    ("the replica parameter", ("typhaReplicas",)),
    ("the Typha Deployment", ("kind: Deployment", "name: calico-typha")),
    ("the Typha Service", ("kind: Service", "name: calico-typha")),
    ("the Typha PodDisruptionBudget", ("kind: PodDisruptionBudget", "name: calico-typha")),
    ("calico-node's Typha settings", ("typha_service_name", "FELIX_TYPHAK8SSERVICENAME")),
)


@dataclass(frozen=True, slots=True)
class Found:
    """Where the search first finds a string: the template file and line."""

    text: str
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class Search:
    """The controller's search over a version's templates: what it found and missed."""

    found: tuple[Found, ...]
    missing: tuple[str, ...]

    @property
    def capable(self) -> bool:
        return not self.missing

    def where(self) -> str:
        """``text (file:line)`` of every string found, for a finding's message."""
        return ", ".join(f"{f.text!r} ({f.file}:{f.line})" for f in self.found)


def search(version: VersionDir) -> Search:
    """The controller's text search over every template file of ``version`` (their raw
    text, as the controller reads them before rendering)."""
    texts = [(tf.name, tf.source) for tf in version.files if tf.dialect == "go"]
    found: list[Found] = []
    missing: list[str] = []
    for _, strings in SEARCHED:
        for text in strings:
            if any(f.text == text for f in found) or text in missing:
                continue
            at = next(((name, body.find(text)) for name, body in texts if text in body), None)
            if at is None:
                missing.append(text)
                continue
            name, offset = at
            source = dict(texts)[name]
            found.append(Found(text, name, source.count("\n", 0, offset) + 1))
    return Search(tuple(found), tuple(missing))
