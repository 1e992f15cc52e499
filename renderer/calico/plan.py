"""Phased upgrade, rollback and scale plans that introduce or remove Typha safely.

Pure: object references, capability flags, node counts and context keys in, a
:class:`Plan` out. Rendering both versions is the caller's job (:func:`renderer.api.plan`).

The order matters because calico-node must never point at a Typha that is not serving:
Typha is introduced before calico-node switches to it, and calico-node is moved back to
the API server before Typha is removed. Each phase ends in a gate (a condition and the
kubectl command that checks it); a failed gate stops the plan where it is safe.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.calico import policy
from renderer.k8s.objects import as_list, dig
from renderer.manifests.tree import semver_key

PLAN_SCHEMA = "plan.schema.json"

#: Apply order by kind: what others depend on first. Unknown kinds go last, by name.
KIND_ORDER = (
    "Namespace",
    "CustomResourceDefinition",
    "PriorityClass",
    "ServiceAccount",
    "Secret",
    "ConfigMap",
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "Service",
    "PodDisruptionBudget",
    "DaemonSet",
    "Deployment",
    "StatefulSet",
    "Job",
    "CronJob",
)
#: Deleting these loses cluster data or other workloads: never planned, only warned about.
NEVER_DELETE = ("CustomResourceDefinition", "Namespace")
TYPHA_APP = "calico-typha"
NODE_APP = "calico-node"
NODE_CONFIG = "calico-config"
MIN_READY_TYPHA = 3
TYPHA_TIMEOUT = "10m"
NODE_TIMEOUT = "30m"
CRD_TIMEOUT = "2m"
CRD = "CustomResourceDefinition"
#: What the ``typha`` phase applies, and nothing else.
TYPHA_CORE = ("Service", "Deployment", "PodDisruptionBudget")
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
PREREQUISITES = "prerequisites"

SHAPES = ("introduce-typha", "remove-typha", "typha-upgrade", "direct", "compatibility")


@dataclass(frozen=True, order=True)
class ObjectRef:
    """A Kubernetes object by identity; ``api_version`` is carried for delete stubs only."""

    kind: str
    namespace: str
    name: str
    api_version: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name}

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)

    @property
    def kubectl(self) -> str:
        """``kind/name`` as kubectl takes it."""
        return f"{self.kind.lower()}/{self.name}"

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"


def ref_of(obj: Mapping[str, Any]) -> ObjectRef:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return ObjectRef(
        str(obj.get("kind", "")),
        str(meta.get("namespace", "") or ""),
        str(meta.get("name", "")),
        str(obj.get("apiVersion", "")),
    )


def _rank(ref: ObjectRef) -> tuple[int, str, str, str]:
    rank = KIND_ORDER.index(ref.kind) if ref.kind in KIND_ORDER else len(KIND_ORDER)
    return (rank, ref.kind, ref.namespace, ref.name)


def apply_order(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    """Deduplicated, in dependency order, then by kind, namespace and name."""
    unique = {r.key: r for r in refs}
    return tuple(sorted(unique.values(), key=_rank))


def delete_order(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    """The reverse of :func:`apply_order`: workloads before what they use."""
    return tuple(reversed(apply_order(refs)))


# --- splitting a rendered version ------------------------------------------------------


def _labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    labels = dig(obj, "metadata", "labels")
    return labels if isinstance(labels, Mapping) else {}


def _is_typha(obj: Mapping[str, Any]) -> bool:
    ref = ref_of(obj)
    return "typha" in ref.name.lower() or _labels(obj).get("k8s-app") == TYPHA_APP


def _is_node(obj: Mapping[str, Any]) -> bool:
    ref = ref_of(obj)
    if ref.kind == "DaemonSet":
        return ref.name == NODE_APP or _labels(obj).get("k8s-app") == NODE_APP
    return ref.kind == "ConfigMap" and ref.name == NODE_CONFIG


def _typha_service_account(objects: Sequence[Mapping[str, Any]]) -> tuple[str, str] | None:
    for obj in objects:
        ref = ref_of(obj)
        if ref.kind == "Deployment" and _is_typha(obj):
            sa = dig(obj, "spec", "template", "spec", "serviceAccountName") or dig(
                obj, "spec", "template", "spec", "serviceAccount"
            )
            return (ref.namespace, sa if isinstance(sa, str) and sa else "default")
    return None


def _typha_dependencies(objects: Sequence[Mapping[str, Any]]) -> set[tuple[str, str, str]]:
    """CRDs and the RBAC Typha's service account is bound to.

    Typha of the target version lists the target's resources: it can only become Ready
    once the target's CRDs and its own permissions exist, so they go with it.
    """
    deps = {ref_of(o).key for o in objects if ref_of(o).kind == "CustomResourceDefinition"}
    sa = _typha_service_account(objects)
    if sa is None:
        return deps
    namespace, name = sa
    deps.add(("ServiceAccount", namespace, name))
    for obj in objects:
        ref = ref_of(obj)
        if ref.kind not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        subjects = as_list(obj.get("subjects"))
        bound = any(
            isinstance(s, Mapping)
            and s.get("kind") == "ServiceAccount"
            and s.get("name") == name
            and (s.get("namespace") or ref.namespace) == namespace
            for s in subjects
        )
        role = obj.get("roleRef")
        if bound and isinstance(role, Mapping):
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


@dataclass(frozen=True)
class Split:
    """A rendered version's objects by the part they play in a Typha transition.

    ``rbac`` holds the :func:`rbac_fingerprint` of every RBAC object, to tell which of
    Typha's permissions differ between two versions (empty: unknown, treated as changed).
    """

    typha: tuple[ObjectRef, ...] = ()
    typha_deps: tuple[ObjectRef, ...] = ()
    calico_node: tuple[ObjectRef, ...] = ()
    rest: tuple[ObjectRef, ...] = ()
    rbac: Mapping[tuple[str, str, str], str] = field(default_factory=dict, compare=False)

    @property
    def all(self) -> tuple[ObjectRef, ...]:
        return apply_order((*self.typha, *self.typha_deps, *self.calico_node, *self.rest))

    def find(self, kind: str, group: Sequence[ObjectRef]) -> ObjectRef | None:
        return next((r for r in group if r.kind == kind), None)


def split_objects(objects: Sequence[Mapping[str, Any]]) -> Split:
    """Split rendered objects (plain dicts) into Typha, its dependencies, calico-node, rest."""
    deps = _typha_dependencies(objects)
    typha, typha_deps, node, rest = [], [], [], []
    for obj in objects:
        ref = ref_of(obj)
        if _is_typha(obj):
            typha.append(ref)
        elif ref.key in deps:
            typha_deps.append(ref)
        elif _is_node(obj):
            node.append(ref)
        else:
            rest.append(ref)
    rbac = {ref_of(o).key: rbac_fingerprint(o) for o in objects if ref_of(o).kind in RBAC_KINDS}
    return Split(
        apply_order(typha), apply_order(typha_deps), apply_order(node), apply_order(rest), rbac
    )


# --- the plan --------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One end of a transition: a version rendered for a node count."""

    version: str
    nodes: int
    capable: bool
    objects: Split
    keys: frozenset[str] = frozenset()
    #: The route this side was rendered with, when the caller already decided it.
    route: policy.Route | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Gate:
    description: str
    command: str

    def to_dict(self) -> dict[str, str]:
        return {"description": self.description, "command": self.command}


@dataclass(frozen=True)
class Phase:
    """Apply ``apply``, then delete ``delete``, then wait until ``gate`` holds."""

    name: str
    description: str
    apply: tuple[ObjectRef, ...]
    delete: tuple[ObjectRef, ...]
    gate: Gate

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "apply": [r.to_dict() for r in self.apply],
            "delete": [r.to_dict() for r in self.delete],
            "gate": self.gate.to_dict(),
        }


@dataclass(frozen=True)
class Plan:
    shape: str
    operation: str
    source: dict[str, Any]
    target: dict[str, Any]
    phases: tuple[Phase, ...]
    warnings: tuple[str, ...]

    @property
    def change(self) -> str:
        """What the plan does, in words: ``upgrade`` or ``rollback`` between versions,
        ``scale`` (same version, another node count) or ``reconfigure`` (neither)."""
        if self.source["version"] != self.target["version"]:
            return self.operation
        return "scale" if self.source["nodes"] != self.target["nodes"] else "reconfigure"

    def numbered(self) -> list[tuple[int, Phase]]:
        """Phases with their numbers: ``prerequisites`` is phase 0, so the phase that
        applies Typha is phase 1 in every plan that introduces or upgrades it."""
        start = 0 if self.phases and self.phases[0].name == PREREQUISITES else 1
        return list(enumerate(self.phases, start=start))

    def to_dict(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "operation": self.operation,
            "change": self.change,
            "from": self.source,
            "to": self.target,
            "phases": [p.to_dict() for p in self.phases],
            "warnings": list(self.warnings),
        }


def operation_for(source_version: str, target_version: str) -> str:
    """``rollback`` when the target is older than the source, else ``upgrade``."""
    return "rollback" if semver_key(target_version) < semver_key(source_version) else "upgrade"


def drift_warnings(
    source_version: str,
    source_keys: frozenset[str],
    target_version: str,
    target_keys: frozenset[str],
    *,
    provided: Iterable[str] = policy.TYPHA_KEYS,
    defaults: Mapping[str, Any] | None = None,
) -> list[str]:
    """Context keys that change meaning between two versions.

    A key only the source reads is a value the user set that silently stops taking
    effect; a key only the target reads needs a value the old configuration never gave.
    Keys the Typha policy provides are not the user's concern.
    """
    if source_version == target_version:
        return []
    defaults = defaults or {}
    skip = set(provided)
    out = [
        f"{source_version} reads context key {key!r} but {target_version} does not: "
        f"a value set for it stops taking effect"
        for key in sorted(source_keys - target_keys - skip)
    ]
    for key in sorted(target_keys - source_keys - skip):
        if key in defaults:
            how = f"it gets the default {defaults[key]!r} unless set"
        else:
            how = "set it, or it renders as <no value>"
        out.append(
            f"{target_version} reads context key {key!r} that {source_version} did not: {how}"
        )
    return out


def _summary(side: Side, route: policy.Route) -> dict[str, Any]:
    return {
        "version": side.version,
        "nodes": side.nodes,
        "capable": side.capable,
        "typha": route.decision.allow_typha,
        "typhaReplicas": route.decision.replicas,
    }


def _or_default(ref: ObjectRef | None, kind: str, name: str) -> ObjectRef:
    return ref if ref is not None else ObjectRef(kind, "kube-system", name)


def _node_gate(ds: ObjectRef, after: str = "") -> Gate:
    return Gate(
        f"DaemonSet {ds.namespace}/{ds.name} fully rolled out: every calico-node pod "
        f"updated and Ready{after}",
        f"kubectl -n {ds.namespace} rollout status daemonset/{ds.name} --timeout={NODE_TIMEOUT}",
    )


def _endpoints_check(svc: ObjectRef, count: int) -> str:
    """Ready addresses behind ``svc``, from its EndpointSlices (the v1 Endpoints API is
    deprecated since Kubernetes 1.33)."""
    return (
        f'[ "$(kubectl -n {svc.namespace} get endpointslices '
        f"-l kubernetes.io/service-name={svc.name} "
        f"-o jsonpath='{{.items[*].endpoints[?(@.conditions.ready==true)].addresses[*]}}' "
        f'| wc -w)" -ge {count} ]'
    )


def _typha_gate(deploy: ObjectRef, svc: ObjectRef, replicas: int, *, rolling: bool) -> Gate:
    ready = min(MIN_READY_TYPHA, replicas)
    endpoints = _endpoints_check(svc, ready)
    if rolling:
        return Gate(
            f"Deployment {deploy.namespace}/{deploy.name} rolled out ({replicas} replicas) and "
            f"at least {ready} ready endpoints behind Service {svc.namespace}/{svc.name}; "
            f"if this fails, stop: calico-node stays on the current Typha",
            f"kubectl -n {deploy.namespace} rollout status deployment/{deploy.name} "
            f"--timeout={TYPHA_TIMEOUT} && {endpoints}",
        )
    ready_check = (
        f'[ "$(kubectl -n {deploy.namespace} get deployment {deploy.name} '
        f"-o go-template='{{{{or .status.readyReplicas 0}}}}')\" -ge {ready} ]"
    )
    return Gate(
        f"at least {ready} {deploy.name} pods Ready (min({MIN_READY_TYPHA}, replicas={replicas})) "
        f"and as many endpoints behind Service {svc.namespace}/{svc.name}; if this fails, "
        f"stop: calico-node stays on the API server",
        f"{ready_check} && {endpoints}",
    )


def _gone_gate(refs: Sequence[ObjectRef], what: str, then: str = "") -> Gate:
    by_ns: dict[str, list[str]] = {}
    for ref in refs:
        by_ns.setdefault(ref.namespace, []).append(ref.kubectl)
    checks = []
    for ns in sorted(by_ns):
        scope = f"-n {ns} " if ns else ""
        names = " ".join(by_ns[ns])
        checks.append(f'[ -z "$(kubectl {scope}get {names} --ignore-not-found -o name)" ]')
    command = " && ".join(checks)
    if then:
        command = f"{command} && {then}"
    return Gate(what, command)


def _prerequisites_gate(refs: Sequence[ObjectRef]) -> Gate:
    crds = [r for r in refs if r.kind == CRD]
    others = [r for r in refs if r.kind != CRD]
    checks, what = [], []
    if crds:
        names = " ".join(f"crd/{r.name}" for r in crds)
        checks.append(f"kubectl wait --for condition=established --timeout={CRD_TIMEOUT} {names}")
        what.append(f"the {len(crds)} CustomResourceDefinition(s) established")
    by_ns: dict[str, list[str]] = {}
    for ref in others:
        by_ns.setdefault(ref.namespace, []).append(ref.kubectl)
    for ns in sorted(by_ns):
        scope = f"-n {ns} " if ns else ""
        checks.append(f"kubectl {scope}get {' '.join(by_ns[ns])} -o name")
    if others:
        what.append("the changed RBAC of Typha's service account present")
    return Gate(
        " and ".join(what) + "; if this fails, stop: nothing calico-node uses has changed",
        " && ".join(checks),
    )


def _typha_prerequisites(
    source: Split, target: Split
) -> tuple[tuple[ObjectRef, ...], tuple[ObjectRef, ...]]:
    """(what must exist before the target's Typha starts, what of it can wait).

    The target's Typha watches the target's resources with its service account's
    permissions: it only becomes Ready once the target's CRDs exist and its RBAC grants
    what it lists. CRDs always come first; RBAC only when it differs from the source's
    (or is new), as unchanged RBAC is already in the cluster. Typha objects other than
    its Service, Deployment and PDB (its own ServiceAccount, a config or secret) are
    things it needs too.
    """
    extra = [r for r in target.typha if r.kind not in TYPHA_CORE]
    candidates = [*target.typha_deps, *extra]

    def needed(ref: ObjectRef) -> bool:
        if ref.kind not in RBAC_KINDS:
            return True
        if not target.rbac or ref.key not in target.rbac:
            return True
        return source.rbac.get(ref.key) != target.rbac[ref.key]

    first = apply_order(r for r in candidates if needed(r))
    later = apply_order(r for r in candidates if not needed(r))
    return first, later


def make_plan(
    source: Side,
    target: Side,
    *,
    node_template_changed: bool = True,
    defaults: Mapping[str, Any] | None = None,
) -> Plan:
    """Order the transition from ``source`` to ``target`` into gated phases.

    Whether each side runs Typha follows :func:`renderer.calico.policy.route` for an existing
    cluster (never refused: a target that is not capable takes the compatibility path);
    a side's ``route``, when set, is the one it was rendered with and is used as is.
    ``target.objects`` must be the target as rendered for that decision.
    """
    src_route, tgt_route = source.route, target.route
    if tgt_route is None:
        operation = operation_for(source.version, target.version)
        tgt_route = policy.route(target.nodes, target.capable, operation, version=target.version)
    operation = tgt_route.operation
    if src_route is None:
        src_route = policy.route(source.nodes, source.capable, "upgrade", version=source.version)
    src_on, tgt_on = src_route.decision.allow_typha, tgt_route.decision.allow_typha
    replicas = tgt_route.decision.replicas
    tgt, src = target.objects, source.objects
    warnings: list[str] = list(tgt_route.warnings)

    ds = _or_default(tgt.find("DaemonSet", tgt.calico_node), "DaemonSet", NODE_APP)
    target_keys = {r.key for r in tgt.all}
    stale = [r for r in src.all if r.key not in target_keys]
    kept = [r for r in stale if r.kind in NEVER_DELETE]
    stale = [r for r in stale if r.kind not in NEVER_DELETE]
    warnings.extend(
        f"{r} is not part of {target.version}; left in place (deleting it would delete data)"
        for r in kept
    )

    phases: list[Phase] = []
    if tgt_on:
        deploy = tgt.find("Deployment", tgt.typha)
        if deploy is None:
            raise ValueError(
                f"{target.version} was judged Typha-capable but renders no Typha Deployment"
            )
        svc = _or_default(tgt.find("Service", tgt.typha), "Service", TYPHA_APP)
        shape = "typha-upgrade" if src_on else "introduce-typha"
        first, later = _typha_prerequisites(src, tgt)
        if first:
            rbac = [r for r in first if r.kind in RBAC_KINDS]
            if rbac and operation == "rollback":
                warnings.append(
                    f"phase 0 applies the {target.version} RBAC of Typha's service account "
                    f"({', '.join(str(r) for r in rbac)}) while the {source.version} "
                    f"calico-node may still use it: if the older RBAC grants less, "
                    f"calico-node can lose permissions until phase 2 replaces it"
                )
            phases.append(
                Phase(
                    PREREQUISITES,
                    f"apply the {target.version} CRDs"
                    + (
                        f" and the RBAC of Typha's service account that differs from "
                        f"{source.version}"
                        if rbac
                        else f" (Typha's RBAC is unchanged from {source.version})"
                    )
                    + f": the {target.version} Typha cannot become Ready without them; "
                    f"no workload changes",
                    first,
                    (),
                    _prerequisites_gate(first),
                )
            )
        phases.append(
            Phase(
                "typha",
                f"apply only the {target.version} Typha Service, Deployment and PDB "
                f"({replicas} replicas); calico-node is left as it is"
                + ("" if src_on else " (on the API server)"),
                apply_order(r for r in tgt.typha if r.kind in TYPHA_CORE),
                (),
                _typha_gate(deploy, svc, replicas, rolling=src_on),
            )
        )
        phases.append(
            Phase(
                "calico-node",
                f"apply the rest of {target.version}; calico-node "
                + ("stays on Typha" if src_on else "now points at Typha"),
                apply_order((*later, *tgt.calico_node, *tgt.rest)),
                (),
                _node_gate(ds),
            )
        )
    elif src_on:
        shape = "remove-typha"
        phases.append(
            Phase(
                "calico-node-to-apiserver",
                f"apply calico-node and calico-config of {target.version} without Typha: "
                f"calico-node goes back to the API server while Typha still serves",
                apply_order(tgt.calico_node),
                (),
                _node_gate(ds, "; only then is Typha removed"),
            )
        )
        src_deploy = src.find("Deployment", src.typha)
        typha_gone = [r for r in stale if r.key in {t.key for t in src.typha}]
        phases.append(
            Phase(
                "remove-typha",
                f"delete Typha (no client uses it any more) and apply the rest of {target.version}",
                apply_order((*tgt.typha_deps, *tgt.rest)),
                delete_order(stale),
                _gone_gate(
                    typha_gone or stale,
                    f"{src_deploy.name if src_deploy else 'Typha'} and its Service and PDB "
                    f"are gone and calico-node is still fully rolled out",
                    f"kubectl -n {ds.namespace} rollout status daemonset/{ds.name} "
                    f"--timeout={TYPHA_TIMEOUT}",
                ),
            )
        )
        stale = []
    else:
        shape = "compatibility" if tgt_route.compatibility else "direct"
        phases.append(
            Phase(
                shape,
                f"apply {target.version}; calico-node stays on the API server"
                + (" (the target is not Typha-capable)" if tgt_route.compatibility else ""),
                tgt.all,
                (),
                _node_gate(ds),
            )
        )
    if stale:
        phases.append(
            Phase(
                "cleanup",
                f"delete objects of {source.version} that {target.version} no longer has",
                (),
                delete_order(stale),
                _gone_gate(stale, "the objects are gone"),
            )
        )
    if shape in ("introduce-typha", "remove-typha") and not node_template_changed:
        warnings.append(
            f"the calico-node pod template is the same in both renders, so applying it "
            f"restarts no pod; run kubectl -n {ds.namespace} rollout restart "
            f"daemonset/{ds.name} before checking its gate"
        )
    warnings.extend(
        drift_warnings(source.version, source.keys, target.version, target.keys, defaults=defaults)
    )
    return Plan(
        shape,
        operation,
        _summary(source, src_route),
        _summary(target, tgt_route),
        tuple(phases),
        tuple(warnings),
    )
