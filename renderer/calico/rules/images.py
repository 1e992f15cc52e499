"""Release rules for Calico images: one version, the directory's, behind ``repo``."""

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
    message="every Calico image must be tagged with the version directory and honour repo",
)
def image_tag(data: RuleInput) -> Iterator[Violation]:
    repo = str(data.context.get("repo") or "")
    for obj, path, image, m in calico_images(data):
        if m.group("tag") != data.version:
            yield Violation(f"{image} is not tagged {data.version}", obj, path)
        if repo and m.group("prefix") != repo:
            yield Violation(f"{image} does not start with repo {repo!r}", obj, path)


@rule(
    id="calico-one-version",
    severity=ERROR,
    message="Typha, calico-node, cni and kube-controllers must run one Calico version",
)
def one_version(data: RuleInput) -> Iterator[Violation]:
    tags: dict[str, set[str]] = {}
    first: dict[str, tuple[K8sObject, str]] = {}
    for obj, path, _image, m in calico_images(data):
        name = m.group("name")
        if name in COMPONENTS:
            tags.setdefault(str(m.group("tag")), set()).add(name)
            first.setdefault(str(m.group("tag")), (obj, path))
    if len(tags) > 1:
        summary = "; ".join(f"{t}: {', '.join(sorted(n))}" for t, n in sorted(tags.items()))
        for tag in sorted(tags)[1:]:
            obj, path = first[tag]
            yield Violation(summary, obj, path)
