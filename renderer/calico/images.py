"""Which Calico images a node pre-pulls before the addon is created.

Pure: the objects a version renders in, a list out. Only ``calico/cni`` and
``calico/node`` run on every node, so only they are worth pulling everywhere; Typha
and kube-controllers run a few replicas and are pulled where they are scheduled.
Kubernetes control-plane images on masters are the installer's concern, not this tool's.

The list is read from the calico-node DaemonSet as the manifests render it, never built
from a pattern: BKE's templates choose the registry themselves (``{{ if .repo }}{{ .repo
}}{{ else }}<default-registry>/{{ end }}calico/cni:...``), and the node must pull exactly
what the DaemonSet will run. Rendering is the caller's job (:func:`renderer.api.prepull_images`).

So the list is the same for every role whose node runs a kubelet (``master``,
``worker``, and the BKENode roles ``node``, ``master/node`` and seed 001's ``apiserver``,
``controller-manager``, ``scheduler``: BKE runs the control plane as static pods, so those
nodes join with a kubelet and calico-node runs there). A dedicated etcd node (``etcd``,
``etcd-event``, ``etcd-pod`` alone) may run no kubelet, hence no calico-node: its list is
empty, with a note. A node with several roles pulls what its kubelet role needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from renderer.calico import names
from renderer.errors import InputError
from renderer.k8s.objects import as_list, dig

#: Roles that run a kubelet (so calico-node) and those that may not (etcd only): BKE
#: runs the control plane as static pods, so a split apiserver/controller-manager/
#: scheduler node runs a kubelet; etcd alone may run outside Kubernetes.
KUBELET_ROLES = (
    "master",
    "worker",
    "node",
    "master/node",
    "apiserver",
    "controller-manager",
    "scheduler",
)
ETCD_ONLY_ROLES = ("etcd", "etcd-event", "etcd-pod")
ROLES = (*KUBELET_ROLES, *ETCD_ONLY_ROLES)
PREPULLED = names.PREPULLED_COMPONENTS
SAME_FOR_EVERY_ROLE = (
    "every node with a kubelet (master, worker, split control-plane) pre-pulls the same "
    "Calico images (calico/cni, calico/node); Typha and kube-controllers are pulled where "
    "they are scheduled"
)
NO_KUBELET = (
    "a dedicated etcd node ({role}) may run no kubelet, hence no calico-node: no Calico "
    "images are pre-pulled; a node that also has a kubelet role pulls that role's list"
)
NODE_DAEMONSET = names.NODE_DAEMONSET
_REPO = re.compile(r"^$|^[^\s]*/$")
#: What ``images.schema.json`` accepts as a pre-pulled image.
_IMAGE = re.compile(r"^(?:[^\s]*/)?calico/(?:cni|node)(?::[^\s/:@]+)?(?:@[^\s/:@]+:[^\s/:@]+)?$")


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


def images_by_role(objects: Iterable[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """What a node of each role pre-pulls from these rendered objects: the calico-node
    images for every role with a kubelet, nothing for a dedicated etcd node."""
    found = node_images(objects)
    return {role: found if role in KUBELET_ROLES else () for role in ROLES}


def check_repo(repo: str) -> str:
    """A registry prefix is empty or ends with ``/``, as the templates concatenate it."""
    if not _REPO.match(repo):
        raise InputError(
            f"{repo!r} is not an image prefix: use e.g. registry.example.com/openfuyao/ "
            "(trailing slash, no spaces) or an empty string",
            key="image_prefix",
            argument="image_prefix",
        )
    return repo


def repository(image: str) -> str:
    """``image`` without tag and digest: ``r:5000/calico/cni:v1`` -> ``r:5000/calico/cni``."""
    name = image.split("@", 1)[0]
    colon = name.rfind(":")
    return name[:colon] if colon > name.rfind("/") else name


def prepulled_kind(image: str) -> str | None:
    """``cni`` or ``node`` when the image's repository path ends in ``calico/<that>``."""
    path = repository(image)
    for name in PREPULLED:
        wanted = names.image(name)
        if path == wanted or path.endswith(f"/{wanted}"):
            return name
    return None


def node_images(objects: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """calico/cni then calico/node images of the calico-node DaemonSet's containers and
    initContainers, deduplicated (each group sorted)."""
    found: set[str] = set()
    for obj in objects:
        if not names.is_calico_node(obj):
            continue
        pod = dig(obj, "spec", "template", "spec")
        for group in ("initContainers", "containers"):
            for container in as_list(dig(pod, group)):
                image = dig(container, "image")
                if isinstance(image, str) and prepulled_kind(image.strip()):
                    found.add(image.strip())
    return tuple(sorted(found, key=lambda i: (PREPULLED.index(prepulled_kind(i) or "node"), i)))


def no_calico(role: str, repo: str = "") -> ImageList:
    """The list for a configuration without a calico addon: empty, with a note."""
    check_role(role)
    check_repo(repo)
    return ImageList(None, role, repo, (), "no addon named calico: no Calico images are pre-pulled")


def check_role(role: str) -> str:
    if role not in ROLES:
        raise InputError(
            f"role must be one of {', '.join(ROLES)}, got {role!r}", key="role", argument="role"
        )
    return role


def prepull_images(
    version: str | None,
    role: str,
    repo: str = "",
    objects: Iterable[Mapping[str, Any]] = (),
) -> ImageList:
    """Images a ``role`` node pulls for Calico ``version``, read from its rendered
    ``objects``; empty with a note when there is no Calico (``version`` None).

    A version whose calico-node DaemonSet renders no calico/cni or calico/node image is
    an InputError (exit 2) naming the version: a node cannot be told what to pull.
    """
    if version is None:
        return no_calico(role, repo)
    check_role(role)
    check_repo(repo)
    if role in ETCD_ONLY_ROLES:
        return ImageList(version, role, repo, (), NO_KUBELET.format(role=role))
    if not version.strip():
        raise InputError(
            "the Calico version is empty; no default is guessed", key="version", argument="version"
        )
    images = node_images(objects)
    bad = [i for i in images if not _IMAGE.match(i)]
    if bad:
        raise InputError(
            f"Calico {version} renders {bad[0]!r} in the calico-node DaemonSet, "
            "which is not an image reference"
        )
    if not images:
        raise InputError(
            f"Calico {version} renders no calico/cni or calico/node image in the calico-node "
            "DaemonSet (containers and initContainers); there is nothing to tell nodes to "
            "pre-pull"
        )
    notes = [SAME_FOR_EVERY_ROLE]
    if not repo:
        notes.append("no image prefix: images come from the manifests' default registry")
    return ImageList(version, role, repo, images, "; ".join(notes))


def tag_mismatches(version: str, images: Iterable[str]) -> list[str]:
    """Warnings for images whose tag is not ``version``: BKE pre-pulls
    ``calico/cni:<addon version>`` and ``calico/node:<addon version>``, so a node would
    pull one image and the DaemonSet ask for another."""
    out = []
    for image in images:
        name = image.split("@", 1)[0]
        last = name.rsplit("/", 1)[-1]
        tag = last.split(":", 1)[1] if ":" in last else "latest"
        if tag != version:
            base = last.split(":", 1)[0]
            out.append(
                f"{image} is tagged {tag!r}, not the version {version!r}: BKE pre-pulls "
                f"calico/{base}:{version}, so the DaemonSet asks for an image nodes did not "
                "pre-pull"
            )
    return out
