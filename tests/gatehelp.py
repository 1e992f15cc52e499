"""Shared helpers for the capability, rules, schema and routing tests."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from renderer.bke.values import build_context
from renderer.data.bundled import bundled_manifests
from renderer.engine.render import render_version
from renderer.k8s.parse import K8sObject, parse_files
from renderer.manifests.tree import COMPONENT, resolve_version

FIXTURES = Path(__file__).parent / "fixtures"
TREE = FIXTURES / "tree"
BROKEN = FIXTURES / "broken"
REPO = "registry.example.com/openfuyao/"


def typha_on_objects(version: str = "v9.1.0", replicas: int = 3) -> list[K8sObject]:
    """The Typha-on objects of a fixture version, rendered by the real pipeline."""
    vdir = resolve_version(version, TREE)
    context = build_context(
        {}, typha={"allowTypha": "true", "typhaReplicas": str(replicas)}, repo=REPO
    )
    return parse_files((f.name, f.text) for f in render_version(vdir, context))


def broken_variants() -> list[dict[str, Any]]:
    """The fixture's Typha Deployment with one thing wrong: a string for an integer, a
    misspelled field, a required field missing, a removed API."""
    base = next(o.data for o in typha_on_objects() if o.kind == "Deployment")
    variants = []
    changes: tuple[Callable[[dict[str, Any]], object], ...] = (
        lambda d: d["spec"].__setitem__("replicas", "three"),
        lambda d: d["spec"]["template"]["spec"].__setitem__("hostNetwrok", True),
        lambda d: d["spec"].pop("selector"),
        lambda d: d.__setitem__("apiVersion", "extensions/v1beta1"),
    )
    for change in changes:
        data = copy.deepcopy(base)
        change(data)
        variants.append(data)
    return variants


def bke_tree(root: Path, versions: tuple[str, ...] = ("v3.28.2",)) -> Path:
    """A bke-manifests-like tree at ``root``: bundled version directories copied to
    ``root/kubernetes/calico/``."""
    for version in versions:
        shutil.copytree(bundled_manifests() / COMPONENT / version, root / COMPONENT / version)
    return root


def write_tree(root: Path, version: str, files: dict[str, str]) -> Path:
    """A tree at ``root`` holding one version directory with ``files`` (name -> text)."""
    folder = root / "kubernetes" / "calico" / version
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return root


#: A release whose ConfigMap label is ``yes``: a string to YAML 1.2, the boolean true to
#: BKE's controller (YAML 1.1), which the API server refuses as a label value.
YES_LABEL = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: calico-config
  namespace: kube-system
  labels:
    enabled: yes
data:
  veth_mtu: "1440"
"""


def yes_label_tree(root: Path) -> Path:
    """A tree at ``root`` whose one version, v1.0.0, is :data:`YES_LABEL`."""
    version = root / "kubernetes" / "calico" / "v1.0.0"
    version.mkdir(parents=True)
    (version / "calico.yaml").write_text(YES_LABEL, encoding="utf-8")
    return root


#: The addons' fixture tree (tests/fixtures/addons-tree/README.md).
ADDONS_TREE = FIXTURES / "addons-tree"
#: A tree of several addons (tests/fixtures/gate-tree/README.md): a small Calico
#: version, addons of the addons-tree and one of our own with a CRD.
GATE_TREE = FIXTURES / "gate-tree"


def addon_tree(root: Path, addons: tuple[str, ...] | None = None) -> Path:
    """A copy of :data:`GATE_TREE`'s templates at ``root`` (no goldens), with only
    ``addons`` (default: every one)."""
    for folder in sorted((GATE_TREE / "kubernetes").iterdir()):
        if addons is None or folder.name in addons:
            shutil.copytree(folder, root / "kubernetes" / folder.name)
    return root
