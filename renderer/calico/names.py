"""Every Calico and Typha identity the tool relies on, and what makes an object Typha's.

BKE's manifests name their objects as upstream Calico does; the capability check, the
release rules, plans, image lists, scale advice and the importer all look for the same
objects, so their names, labels, keys and images are defined once, here. The two
predicates (:func:`is_typha`, :func:`is_calico_node`) are the one answer to "is this
object Typha?" and "is this calico-node?" on plain object dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from renderer.k8s.objects import dig, map_selector_matches, selector_matches

#: Where the manifests put Calico, and where Felix looks for Typha by default.
NAMESPACE = "kube-system"
#: The label key every Calico workload's pods and objects carry.
APP_LABEL = "k8s-app"

#: Typha's Service, Deployment, PodDisruptionBudget, container and ``k8s-app`` label.
TYPHA = "calico-typha"
TYPHA_SERVICE = TYPHA
TYPHA_DEPLOYMENT = TYPHA
TYPHA_PDB = TYPHA
TYPHA_CONTAINER = TYPHA
TYPHA_LABEL: Mapping[str, str] = MappingProxyType({APP_LABEL: TYPHA})
TYPHA_PORT = 5473
#: The kinds Typha itself is made of (its ``typha`` plan phase applies exactly these).
TYPHA_KINDS = ("Service", "Deployment", "PodDisruptionBudget")

#: calico-node's DaemonSet, container, ServiceAccount and ``k8s-app`` label.
NODE = "calico-node"
NODE_DAEMONSET = NODE
NODE_CONTAINER = NODE
#: The ConfigMap calico-node reads its Typha service name (and CNI config) from.
CONFIG_MAP = "calico-config"
#: calico-config's key naming the Typha Service (empty or ``none``: Typha off).
CONFIG_TYPHA_KEY = "typha_service_name"

#: calico-node's env naming the Typha Service (from calico-config's key).
FELIX_TYPHA_SERVICE_ENV = "FELIX_TYPHAK8SSERVICENAME"
#: calico-node's env naming Typha's namespace (default :data:`NAMESPACE`).
FELIX_TYPHA_NAMESPACE_ENV = "FELIX_TYPHAK8SNAMESPACE"
#: calico-node's env pointing at a fixed Typha address.
FELIX_TYPHA_ADDR_ENV = "FELIX_TYPHAADDR"

#: Calico images are ``<prefix>calico/<component>:<tag>``.
IMAGE_ORG = "calico"
CNI_COMPONENT = "cni"
NODE_COMPONENT = "node"
TYPHA_COMPONENT = "typha"
KUBE_CONTROLLERS_COMPONENT = "kube-controllers"
#: The components that must run one Calico version.
IMAGE_COMPONENTS = (TYPHA_COMPONENT, NODE_COMPONENT, CNI_COMPONENT, KUBE_CONTROLLERS_COMPONENT)
#: The components on every node (calico-node's DaemonSet), so worth pre-pulling.
PREPULLED_COMPONENTS = (CNI_COMPONENT, NODE_COMPONENT)


def image(component: str) -> str:
    """The repository path of a Calico component's image: ``calico/<component>``."""
    return f"{IMAGE_ORG}/{component}"


def _name(obj: Mapping[str, Any]) -> Any:
    return dig(obj, "metadata", "name")


def app_label(obj: Mapping[str, Any]) -> Any:
    """The object's own ``k8s-app`` label (None when absent)."""
    labels = dig(obj, "metadata", "labels")
    return labels.get(APP_LABEL) if isinstance(labels, Mapping) else None


def selects_typha(obj: Mapping[str, Any]) -> bool:
    """A Service, Deployment or PodDisruptionBudget whose selector picks Typha's pods."""
    selector = dig(obj, "spec", "selector")
    kind = obj.get("kind")
    if kind == "Service":
        return map_selector_matches(selector, TYPHA_LABEL)
    if kind in ("Deployment", "PodDisruptionBudget"):
        return selector_matches(selector, TYPHA_LABEL)
    return False


def is_typha(obj: Mapping[str, Any]) -> bool:
    """Part of Typha: named ``calico-typha``, labelled ``k8s-app: calico-typha``, or a
    Service, Deployment or PDB selecting Typha's pods. A name that merely contains
    "typha" does not count."""
    return _name(obj) == TYPHA or app_label(obj) == TYPHA or selects_typha(obj)


def is_calico_node(obj: Mapping[str, Any]) -> bool:
    """The calico-node DaemonSet: by its name or its ``k8s-app: calico-node`` label."""
    return obj.get("kind") == "DaemonSet" and (_name(obj) == NODE or app_label(obj) == NODE)


def is_calico_config(obj: Mapping[str, Any]) -> bool:
    """The calico-config ConfigMap calico-node reads."""
    return obj.get("kind") == "ConfigMap" and _name(obj) == CONFIG_MAP
