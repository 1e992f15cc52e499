"""Release rules for the Typha Deployment and its PodDisruptionBudget."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from typing import Any

from renderer.calico.names import TYPHA_CONTAINER
from renderer.calico.rules.registry import ERROR, WARNING, RuleFunc, RuleInput, Violation, rule
from renderer.k8s.objects import as_dict, as_list, dig, env_var, pod_labels, selector_matches
from renderer.k8s.parse import K8sObject

HOSTNAME_KEY = "kubernetes.io/hostname"
GRACE_SECONDS = 300
POD = "spec.template.spec"

TyphaRule = Callable[[RuleInput, K8sObject], Iterator[Violation]]


def on_typha(func: TyphaRule) -> RuleFunc:
    """A rule about the Typha Deployment, given it: without one there is nothing to judge
    (the capability contract reports a missing Deployment)."""

    @functools.wraps(func)
    def run(data: RuleInput) -> Iterator[Violation]:
        if data.typha is not None:
            yield from func(data, data.typha)

    return run


ContainerRule = Callable[[K8sObject, str, dict[str, Any]], Iterator[Violation]]


def in_container(func: ContainerRule) -> TyphaRule:
    """A check of the Typha container, given the Deployment, the container's path and the
    container; without one, a single violation saying so."""

    @functools.wraps(func)
    def run(data: RuleInput, dep: K8sObject) -> Iterator[Violation]:
        found = data.typha_container
        if found is None:
            yield Violation(f"no container {TYPHA_CONTAINER}", dep, f"{POD}.containers")
            return
        yield from func(dep, *found)

    return run


@rule(
    id="typha-rolling-update",
    severity=ERROR,
    message="the Typha Deployment must update with strategy RollingUpdate",
)
@on_typha
def rolling_update(data: RuleInput, dep: K8sObject) -> Iterator[Violation]:
    kind = dig(dep.data, "spec", "strategy", "type")
    if kind != "RollingUpdate":
        yield Violation(f"strategy.type is {kind!r}", dep, "spec.strategy.type")


@rule(
    id="typha-anti-affinity",
    severity=ERROR,
    message="Typha pods must repel each other across hostnames "
    f"(podAntiAffinity on {HOSTNAME_KEY}, required or preferred)",
)
@on_typha
def anti_affinity(data: RuleInput, dep: K8sObject) -> Iterator[Violation]:
    labels = pod_labels(dep)
    anti = as_dict(dig(dep.data, "spec", "template", "spec", "affinity", "podAntiAffinity"))
    terms = [
        as_dict(t) for t in as_list(anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
    ]
    terms += [
        as_dict(as_dict(t).get("podAffinityTerm"))
        for t in as_list(anti.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ]
    if not any(
        t.get("topologyKey") == HOSTNAME_KEY and selector_matches(t.get("labelSelector"), labels)
        for t in terms
    ):
        yield Violation(
            "no term selects the Typha pods by hostname", dep, f"{POD}.affinity.podAntiAffinity"
        )


@rule(
    id="typha-graceful-shutdown",
    severity=ERROR,
    message=f"Typha must get {GRACE_SECONDS}s to shut down: terminationGracePeriodSeconds "
    f"{GRACE_SECONDS} equal to TYPHA_SHUTDOWNTIMEOUTSECS",
)
@on_typha
def graceful_shutdown(data: RuleInput, dep: K8sObject) -> Iterator[Violation]:
    grace = dig(dep.data, "spec", "template", "spec", "terminationGracePeriodSeconds")
    if grace != GRACE_SECONDS:
        yield Violation(
            f"terminationGracePeriodSeconds is {grace!r}",
            dep,
            f"{POD}.terminationGracePeriodSeconds",
        )
    yield from _shutdown_timeout(data, dep)


@in_container
def _shutdown_timeout(dep: K8sObject, path: str, c: dict[str, Any]) -> Iterator[Violation]:
    env = env_var(c, "TYPHA_SHUTDOWNTIMEOUTSECS")
    value = env[1].get("value") if env else None
    if str(value) != str(GRACE_SECONDS):
        where = f"{path}.env[{env[0]}].value" if env else f"{path}.env"
        yield Violation(f"TYPHA_SHUTDOWNTIMEOUTSECS is {value!r}", dep, where)


@rule(
    id="typha-probes",
    severity=ERROR,
    message="the Typha container needs liveness and readiness probes",
)
@on_typha
@in_container
def probes(dep: K8sObject, path: str, c: dict[str, Any]) -> Iterator[Violation]:
    for probe in ("livenessProbe", "readinessProbe"):
        if not isinstance(c.get(probe), dict) or not c[probe]:
            yield Violation(f"{probe} is missing", dep, f"{path}.{probe}")


def _scaled(value: object, replicas: int) -> int | None:
    """An IntOrString of a PDB scaled to pods, rounding up as the disruption controller."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return math.ceil(int(value[:-1]) * replicas / 100)
    return None


def _allowed_down(pdb: K8sObject, replicas: int) -> tuple[int | None, str]:
    spec = as_dict(pdb.data.get("spec"))
    if "maxUnavailable" in spec:
        return _scaled(spec["maxUnavailable"], replicas), "spec.maxUnavailable"
    if "minAvailable" in spec:
        least = _scaled(spec["minAvailable"], replicas)
        return (None if least is None else max(0, replicas - least)), "spec.minAvailable"
    return None, "spec"


def _pdb_budgets(data: RuleInput) -> Iterator[tuple[K8sObject, int | None, str, int]]:
    dep = data.typha
    replicas = dig(dep.data, "spec", "replicas") if dep else None
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        return
    for pdb in data.typha_pdbs:
        down, path = _allowed_down(pdb, replicas)
        yield pdb, down, path, replicas


@rule(
    id="typha-pdb-max-one-down",
    severity=ERROR,
    message="the Typha PodDisruptionBudget must allow at most one pod down",
)
def pdb_max_one(data: RuleInput) -> Iterator[Violation]:
    for pdb, down, path, replicas in _pdb_budgets(data):
        if down is None:
            yield Violation("neither maxUnavailable nor minAvailable is usable", pdb, path)
        elif down > 1:
            yield Violation(f"{down} of {replicas} pods may be down", pdb, path)


@rule(
    id="typha-pdb-allows-drain",
    severity=WARNING,
    message="the Typha PodDisruptionBudget allows no pod down, which blocks node drains",
)
def pdb_allows_drain(data: RuleInput) -> Iterator[Violation]:
    for pdb, down, path, replicas in _pdb_budgets(data):
        if down is not None and down < 1:
            yield Violation(f"0 of {replicas} pods may be down", pdb, path)


@rule(
    id="typha-replicas-below-nodes",
    severity=ERROR,
    message="Typha replicas must be fewer than the nodes, or a rolling update can block",
)
@on_typha
def replicas_below_nodes(data: RuleInput, dep: K8sObject) -> Iterator[Violation]:
    replicas = dig(dep.data, "spec", "replicas")
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        yield Violation(f"replicas is {replicas!r}, not an integer", dep, "spec.replicas")
    elif replicas >= data.nodes:
        yield Violation(f"{replicas} replicas on {data.nodes} nodes", dep, "spec.replicas")
