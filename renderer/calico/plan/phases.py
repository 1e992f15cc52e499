"""Gated phases for each plan shape: introduce, upgrade or remove Typha, or apply directly.

Pure: two :class:`~.model.Side` in, a :class:`~.model.Plan` out. Rendering both versions
is the caller's job (:func:`renderer.api.verbs.plan`).

The order matters because calico-node must never point at a Typha that is not serving:
Typha is introduced before calico-node switches to it, and calico-node is moved back to
the API server before Typha is removed. Each phase ends in a gate (a condition and the
kubectl command that checks it); a failed gate stops the plan where it is safe.
:func:`make_plan` picks the shape from where each side runs Typha; one builder per
shape orders its phases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.calico import names, policy
from renderer.calico.plan.model import (
    COMPATIBILITY,
    DIRECT,
    INTRODUCE_TYPHA,
    PREREQUISITES,
    REMOVE_TYPHA,
    TYPHA_UPGRADE,
    Gate,
    ObjectRef,
    Phase,
    Plan,
    Side,
    Split,
    apply_order,
    delete_order,
)
from renderer.calico.plan.split import CRD, RBAC_KINDS
from renderer.manifests.tree import semver_key

#: Deleting these loses cluster data or other workloads: never planned, only warned about.
NEVER_DELETE = ("CustomResourceDefinition", "Namespace")
MIN_READY_TYPHA = 3
TYPHA_TIMEOUT = "10m"
NODE_TIMEOUT = "30m"
CRD_TIMEOUT = "2m"
#: What the ``typha`` phase applies, and nothing else.
TYPHA_CORE = names.TYPHA_KINDS


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
    return ref if ref is not None else ObjectRef(kind, names.NAMESPACE, name)


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


@dataclass
class Transition:
    """What every shape's builder reads: both sides as routed, the calico-node DaemonSet
    the gates watch, the source objects the target drops, and the warnings so far."""

    source: Side
    target: Side
    src_route: policy.Route
    tgt_route: policy.Route
    ds: ObjectRef
    stale: list[ObjectRef]
    warnings: list[str] = field(default_factory=list)

    @property
    def operation(self) -> str:
        return self.tgt_route.operation

    @property
    def src(self) -> Split:
        return self.source.objects

    @property
    def tgt(self) -> Split:
        return self.target.objects


def _prerequisites_phase(t: Transition, first: Sequence[ObjectRef]) -> Phase:
    """Phase 0: the target's CRDs and changed Typha RBAC (warned on a rollback)."""
    source, target = t.source.version, t.target.version
    rbac = [r for r in first if r.kind in RBAC_KINDS]
    if rbac and t.operation == "rollback":
        t.warnings.append(
            f"phase 0 applies the {target} RBAC of Typha's service account "
            f"({', '.join(str(r) for r in rbac)}) while the {source} "
            f"calico-node may still use it: if the older RBAC grants less, "
            f"calico-node can lose permissions until phase 2 replaces it"
        )
    return Phase(
        PREREQUISITES,
        f"apply the {target} CRDs"
        + (
            f" and the RBAC of Typha's service account that differs from {source}"
            if rbac
            else f" (Typha's RBAC is unchanged from {source})"
        )
        + f": the {target} Typha cannot become Ready without them; no workload changes",
        tuple(first),
        (),
        _prerequisites_gate(first),
    )


def _typha_first(t: Transition, *, rolling: bool) -> list[Phase]:
    """Typha's prerequisites, then Typha alone behind its gate, then the rest.
    ``rolling``: a Typha already serves (and calico-node stays on it)."""
    tgt, version = t.tgt, t.target.version
    deploy = tgt.find("Deployment", tgt.typha)
    if deploy is None:
        raise ValueError(f"{version} was judged Typha-capable but renders no Typha Deployment")
    svc = _or_default(tgt.find("Service", tgt.typha), "Service", names.TYPHA_SERVICE)
    replicas = t.tgt_route.decision.replicas
    first, later = _typha_prerequisites(t.src, tgt)
    phases = [_prerequisites_phase(t, first)] if first else []
    phases.append(
        Phase(
            "typha",
            f"apply only the {version} Typha Service, Deployment and PDB "
            f"({replicas} replicas); calico-node is left as it is"
            + ("" if rolling else " (on the API server)"),
            apply_order(r for r in tgt.typha if r.kind in TYPHA_CORE),
            (),
            _typha_gate(deploy, svc, replicas, rolling=rolling),
        )
    )
    phases.append(
        Phase(
            "calico-node",
            f"apply the rest of {version}; calico-node "
            + ("stays on Typha" if rolling else "now points at Typha"),
            apply_order((*later, *tgt.calico_node, *tgt.rest)),
            (),
            _node_gate(t.ds),
        )
    )
    return phases


def introduce_typha(t: Transition) -> list[Phase]:
    """No Typha to Typha: Typha first, gated on Ready pods, then calico-node onto it."""
    return _typha_first(t, rolling=False)


def typha_upgrade(t: Transition) -> list[Phase]:
    """Typha on both sides: the new Typha rolls out first, then calico-node."""
    return _typha_first(t, rolling=True)


def remove_typha(t: Transition) -> list[Phase]:
    """Typha to none: calico-node back to the API server, only then Typha (and every
    other object the target drops) deleted."""
    tgt, src, ds, version = t.tgt, t.src, t.ds, t.target.version
    src_deploy = src.find("Deployment", src.typha)
    typha_gone = [r for r in t.stale if r.key in {s.key for s in src.typha}]
    return [
        Phase(
            "calico-node-to-apiserver",
            f"apply calico-node and calico-config of {version} without Typha: "
            f"calico-node goes back to the API server while Typha still serves",
            apply_order(tgt.calico_node),
            (),
            _node_gate(ds, "; only then is Typha removed"),
        ),
        Phase(
            "remove-typha",
            f"delete Typha (no client uses it any more) and apply the rest of {version}",
            apply_order((*tgt.typha_deps, *tgt.rest)),
            delete_order(t.stale),
            _gone_gate(
                typha_gone or t.stale,
                f"{src_deploy.name if src_deploy else 'Typha'} and its Service and PDB "
                f"are gone and calico-node is still fully rolled out",
                f"kubectl -n {ds.namespace} rollout status daemonset/{ds.name} "
                f"--timeout={TYPHA_TIMEOUT}",
            ),
        ),
    ]


def direct(t: Transition) -> list[Phase]:
    """No Typha on either side: one phase, calico-node stays on the API server."""
    return [
        Phase(
            DIRECT,
            f"apply {t.target.version}; calico-node stays on the API server",
            t.tgt.all,
            (),
            _node_gate(t.ds),
        )
    ]


def compatibility(t: Transition) -> list[Phase]:
    """A target that needs Typha but is not capable: applied directly, Typha off."""
    return [
        Phase(
            COMPATIBILITY,
            f"apply {t.target.version}; calico-node stays on the API server"
            " (the target is not Typha-capable)",
            t.tgt.all,
            (),
            _node_gate(t.ds),
        )
    ]


Builder = Callable[[Transition], list[Phase]]
#: One builder per plan shape (the ``shape`` enum of plan.schema.json).
BUILDERS: dict[str, Builder] = {
    INTRODUCE_TYPHA: introduce_typha,
    REMOVE_TYPHA: remove_typha,
    TYPHA_UPGRADE: typha_upgrade,
    DIRECT: direct,
    COMPATIBILITY: compatibility,
}


def shape_of(source_typha: bool, target_typha: bool, compatibility: bool) -> str:
    """The plan shape for where each side runs Typha."""
    if target_typha:
        return TYPHA_UPGRADE if source_typha else INTRODUCE_TYPHA
    if source_typha:
        return REMOVE_TYPHA
    return COMPATIBILITY if compatibility else DIRECT


def _routes(source: Side, target: Side) -> tuple[policy.Route, policy.Route]:
    """Each side's route: its own when set, else the policy's for an existing cluster."""
    src_route, tgt_route = source.route, target.route
    if tgt_route is None:
        operation = operation_for(source.version, target.version)
        tgt_route = policy.route(target.nodes, target.capable, operation, version=target.version)
    if src_route is None:
        src_route = policy.route(source.nodes, source.capable, "upgrade", version=source.version)
    return src_route, tgt_route


def _transition(source: Side, target: Side) -> Transition:
    """Route both sides and find what the target drops (never CRDs or Namespaces)."""
    src_route, tgt_route = _routes(source, target)
    tgt, src = target.objects, source.objects
    ds = _or_default(tgt.find("DaemonSet", tgt.calico_node), "DaemonSet", names.NODE_DAEMONSET)
    target_keys = {r.key for r in tgt.all}
    stale = [r for r in src.all if r.key not in target_keys]
    kept = [r for r in stale if r.kind in NEVER_DELETE]
    t = Transition(source, target, src_route, tgt_route, ds, [], list(tgt_route.warnings))
    t.stale = [r for r in stale if r.kind not in NEVER_DELETE]
    t.warnings.extend(
        f"{r} is not part of {target.version}; left in place (deleting it would delete data)"
        for r in kept
    )
    return t


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
    t = _transition(source, target)
    shape = shape_of(
        t.src_route.decision.allow_typha,
        t.tgt_route.decision.allow_typha,
        t.tgt_route.compatibility,
    )
    phases = BUILDERS[shape](t)
    if t.stale and shape != REMOVE_TYPHA:
        phases.append(
            Phase(
                "cleanup",
                f"delete objects of {source.version} that {target.version} no longer has",
                (),
                delete_order(t.stale),
                _gone_gate(t.stale, "the objects are gone"),
            )
        )
    if shape in (INTRODUCE_TYPHA, REMOVE_TYPHA) and not node_template_changed:
        t.warnings.append(
            f"the calico-node pod template is the same in both renders, so applying it "
            f"restarts no pod; run kubectl -n {t.ds.namespace} rollout restart "
            f"daemonset/{t.ds.name} before checking its gate"
        )
    t.warnings.extend(
        drift_warnings(source.version, source.keys, target.version, target.keys, defaults=defaults)
    )
    return Plan(
        shape,
        t.operation,
        _summary(source, t.src_route),
        _summary(target, t.tgt_route),
        tuple(phases),
        tuple(t.warnings),
    )
