"""Release rules for Calico images: one version, the directory's, from one registry,
``repo`` when it is set."""

from __future__ import annotations

import re
from collections.abc import Iterator

from renderer.calico import names
from renderer.calico.rules.registry import ERROR, RuleInput, Violation, rule
from renderer.k8s.parse import K8sObject

#: ``<prefix>calico/<name>:<tag>``: the prefix is empty or ends at a ``/`` (so
#: ``quay.io/notcalico/x`` is not Calico's); a digest may follow the tag.
CALICO_IMAGE = re.compile(
    r"^(?P<prefix>(?:.*/)?)(?P<path>calico/(?P<name>[^:/@]+))(?::(?P<tag>[^@]+))?"
)
COMPONENTS = names.IMAGE_COMPONENTS


def calico_images(data: RuleInput) -> Iterator[tuple[K8sObject, str, str, re.Match[str]]]:
    for obj, path, image in data.images:
        m = CALICO_IMAGE.match(image)
        if m:
            yield obj, path, image, m


@rule(
    id="calico-image-tag",
    severity=ERROR,
    message="every Calico image must be tagged with the version directory",
)
def image_tag(data: RuleInput) -> Iterator[Violation]:
    """Named without the registry, so one image line is one finding whatever registry
    each scenario renders it from."""
    for obj, path, _image, m in calico_images(data):
        if m.group("tag") != data.version:
            yield Violation(f"{_unprefixed(m)} is not tagged {data.version}", obj, path)


def _unprefixed(m: re.Match[str]) -> str:
    """``calico/node:v3.31.3``: the image without its registry prefix."""
    return m.group(0)[len(m.group("prefix")) :]


@rule(
    id="calico-one-registry",
    severity=ERROR,
    message="every Calico image of a render must come from one registry prefix, repo when set",
)
def one_registry(data: RuleInput) -> Iterator[Violation]:
    """A node pre-pulls every image from the registry the cluster was given: with ``repo``
    set each image must start with it; without it (the templates' default registry
    applies) they must still agree, so a typo in one default is caught without goldens."""
    repo = str(data.context.get("repo") or "")
    found = list(calico_images(data))
    if repo:
        expected = repo
    else:
        counts: dict[str, int] = {}
        for _obj, _path, _image, m in found:
            counts[m.group("prefix")] = counts.get(m.group("prefix"), 0) + 1
        if len(counts) < 2:
            return
        # the prefix most images use (the first seen on a tie) is the registry
        expected = max(counts, key=lambda p: counts[p])
    for obj, path, image, m in found:
        if m.group("prefix") != expected:
            why = f"not repo {repo!r}" if repo else f"the other Calico images use {expected!r}"
            yield Violation(f"{image} has prefix {m.group('prefix')!r}, {why}", obj, path)


@rule(
    id="calico-one-version",
    severity=ERROR,
    message="Typha, calico-node, cni and kube-controllers must run one Calico version",
)
def one_version(data: RuleInput) -> Iterator[Violation]:
    """Located at the first image line whose tag is not the version directory's (the
    line to fix); when none is, at the first of the tags fewer components use."""
    tags: dict[str, set[str]] = {}
    first: dict[str, tuple[K8sObject, str]] = {}
    for obj, path, _image, m in calico_images(data):
        name = m.group("name")
        if name in COMPONENTS:
            tags.setdefault(str(m.group("tag")), set()).add(name)
            first.setdefault(str(m.group("tag")), (obj, path))
    if len(tags) > 1:
        summary = "; ".join(f"{t}: {', '.join(sorted(n))}" for t, n in sorted(tags.items()))
        if data.version in tags:
            odd = [t for t in first if t != data.version]
        else:  # no tag is the version's: the most used tag is taken as meant
            most = max(sorted(tags), key=lambda t: len(tags[t]))
            odd = [t for t in first if t != most]
        obj, path = first[odd[0]]
        yield Violation(summary, obj, path)
