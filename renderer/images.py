"""Which Calico images a node pre-pulls before the addon is created.

Pure: an addon version, a role and an image prefix in, a list out. Only ``calico/cni``
and ``calico/node`` run on every node, so only they are worth pulling everywhere;
Typha and kube-controllers run a few replicas and are pulled where they are scheduled.
Kubernetes control-plane images on masters are the installer's concern, not this tool's.

So the list is the same for every role: the role is accepted (the installer asks per
node role) and echoed in the output, and the output says it does not change the list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import InputError

ROLES = ("master", "worker")
PREPULLED = ("cni", "node")
IMAGES_SCHEMA = "images.schema.json"
SAME_FOR_EVERY_ROLE = (
    "master and worker nodes pre-pull the same Calico images (calico/cni, calico/node); "
    "Typha and kube-controllers are pulled where they are scheduled"
)
_REPO = re.compile(r"^$|^[^\s]*/$")


@dataclass(frozen=True)
class ImageList:
    version: str | None
    role: str
    repo: str
    images: tuple[str, ...]
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version,
            "role": self.role,
            "repo": self.repo,
            "images": list(self.images),
        }
        if self.note:
            out["note"] = self.note
        return out


def check_repo(repo: str) -> str:
    """A registry prefix is empty or ends with ``/``, as the templates concatenate it."""
    if not _REPO.match(repo):
        raise InputError(
            f"{repo!r} is not an image prefix: use e.g. registry.example.com/openfuyao/ "
            "(trailing slash, no spaces) or an empty string",
            key="--repo",
        )
    return repo


def prepull_images(version: str | None, role: str, repo: str = "") -> ImageList:
    """Images a ``role`` node pulls for Calico ``version``; empty when there is no Calico."""
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}, got {role!r}", key="--role")
    check_repo(repo)
    if version is None:
        return ImageList(
            None, role, repo, (), "no addon named calico: no Calico images are pre-pulled"
        )
    if not version.strip():
        raise InputError("the Calico version is empty; no default is guessed", key="version")
    images = tuple(f"{repo}calico/{name}:{version}" for name in PREPULLED)
    notes = [SAME_FOR_EVERY_ROLE]
    if not repo:
        notes.append("no image prefix: images come from the manifests' default registry")
    return ImageList(version, role, repo, images, "; ".join(notes))
