"""Splitting a rendered version into Typha, what Typha needs, calico-node and the rest.

Which object is Typha's or calico-node's is decided by :mod:`renderer.calico.names`;
what Typha needs (CRDs, its service account's RBAC) is read from the objects.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from renderer.calico import names
from renderer.calico.plan.model import Split, apply_order, ref_of
from renderer.k8s.objects import as_list, dig

RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
CRD = "CustomResourceDefinition"


def is_node_part(obj: Mapping[str, Any]) -> bool:
    """What moves calico-node: its DaemonSet and the calico-config it reads."""
    return names.is_calico_node(obj) or names.is_calico_config(obj)


def _typha_service_account(objects: Sequence[Mapping[str, Any]]) -> tuple[str, str] | None:
    for obj in objects:
        ref = ref_of(obj)
        if ref.kind == "Deployment" and names.is_typha(obj):
            sa = dig(obj, "spec", "template", "spec", "serviceAccountName") or dig(
                obj, "spec", "template", "spec", "serviceAccount"
            )
            return (ref.namespace, sa if isinstance(sa, str) and sa else "default")
    return None


def _binds(obj: Mapping[str, Any], namespace: str, name: str) -> bool:
    """A (Cluster)RoleBinding with the service account ``namespace/name`` as a subject."""
    own = ref_of(obj).namespace
    return any(
        isinstance(s, Mapping)
        and s.get("kind") == "ServiceAccount"
        and s.get("name") == name
        and (s.get("namespace") or own) == namespace
        for s in as_list(obj.get("subjects"))
    )


def _typha_dependencies(objects: Sequence[Mapping[str, Any]]) -> set[tuple[str, str, str]]:
    """CRDs and the RBAC Typha's service account is bound to.

    Typha of the target version lists the target's resources: it can only become Ready
    once the target's CRDs and its own permissions exist, so they go with it.
    """
    deps = {ref_of(o).key for o in objects if ref_of(o).kind == CRD}
    sa = _typha_service_account(objects)
    if sa is None:
        return deps
    namespace, name = sa
    deps.add(("ServiceAccount", namespace, name))
    for obj in objects:
        ref = ref_of(obj)
        if ref.kind not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        role = obj.get("roleRef")
        if _binds(obj, namespace, name) and isinstance(role, Mapping):
            deps.add(ref.key)
            role_kind = str(role.get("kind", ""))
            role_ns = ref.namespace if role_kind == "Role" else ""
            deps.add((role_kind, role_ns, str(role.get("name", ""))))
    return deps


def rbac_fingerprint(obj: Mapping[str, Any]) -> str:
    """What an RBAC object grants: rules, or subjects and roleRef (a ServiceAccount: that
    it exists). Labels and annotations do not change a permission."""
    fields = ("rules", "aggregationRule", "subjects", "roleRef")
    content = {k: obj.get(k) for k in fields if obj.get(k) is not None}
    return json.dumps(content, sort_keys=True, default=str)


def split_objects(objects: Sequence[Mapping[str, Any]]) -> Split:
    """Split rendered objects (plain dicts) into Typha, its dependencies, calico-node, rest."""
    deps = _typha_dependencies(objects)
    typha, typha_deps, node, rest = [], [], [], []
    for obj in objects:
        ref = ref_of(obj)
        if names.is_typha(obj):
            typha.append(ref)
        elif ref.key in deps:
            typha_deps.append(ref)
        elif is_node_part(obj):
            node.append(ref)
        else:
            rest.append(ref)
    rbac = {ref_of(o).key: rbac_fingerprint(o) for o in objects if ref_of(o).kind in RBAC_KINDS}
    return Split(
        apply_order(typha), apply_order(typha_deps), apply_order(node), apply_order(rest), rbac
    )


def node_template_changed(
    source: Sequence[Mapping[str, Any]], target: Sequence[Mapping[str, Any]], name: str
) -> bool:
    """Whether the pod template of DaemonSet ``name`` (calico-node) differs between two
    renders: then every node's pod is replaced."""

    def template(objects: Sequence[Mapping[str, Any]]) -> Any:
        for obj in objects:
            if obj.get("kind") == "DaemonSet" and dig(obj, "metadata", "name") == name:
                spec = obj.get("spec")
                return spec.get("template") if isinstance(spec, dict) else None
        return None

    return bool(template(source) != template(target))
