"""Typha capability: judged from what a version renders, never from its version number.

A version is Typha-capable when rendering it with Typha off and on (at two replica
counts) yields the contract's objects: the Typha Service, a Deployment whose replicas
follow ``typhaReplicas``, a ``policy/v1`` PodDisruptionBudget selecting its pods,
``typha_service_name`` in calico-config and calico-node's ``FELIX_TYPHAK8SSERVICENAME``
from it, and an off render that leaves calico-node on the API server. The check is on
parsed objects, so keywords in comments or unrelated objects do not count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.calico import names, policy
from renderer.k8s.objects import (
    as_dict,
    as_list,
    container,
    containers,
    dig,
    env_var,
    find,
    map_selector_matches,
    pod_labels,
    selector_matches,
)
from renderer.k8s.parse import K8sObject
from renderer.manifests.tree import VersionDir

TYPHA_NAME = names.TYPHA
TYPHA_LABEL = dict(names.TYPHA_LABEL)
TYPHA_PORT = names.TYPHA_PORT
CONFIG_MAP = names.CONFIG_MAP
CONFIG_KEY = names.CONFIG_TYPHA_KEY
NODE_NAME = names.NODE
FELIX_ENV = names.FELIX_TYPHA_SERVICE_ENV
PDB_API = "policy/v1"
#: Node counts whose policy replicas differ (3 and 4): the two Typha-on renders.
CONTRACT_NODES = (policy.TYPHA_NODE_THRESHOLD + 1, 601)
#: A registry prefix for check renders, so image rules can see that ``repo`` is honoured.
CHECK_REPO = "registry.example.com/calico-render-check/"
OFF_VALUES = ("", "none")

CONTRACT_ITEMS: dict[str, str] = {
    "typha-service": f"Service {TYPHA_NAME} selecting k8s-app: calico-typha on port {TYPHA_PORT}"
    ", reaching a Typha container port, in calico-node's namespace",
    "typha-deployment": f"Deployment {TYPHA_NAME}",
    "typha-replicas": f"Deployment {TYPHA_NAME} replicas following typhaReplicas",
    "typha-pdb": f"PodDisruptionBudget ({PDB_API}) selecting the Typha Deployment's pods",
    "config-service-name": f"ConfigMap {CONFIG_MAP} {CONFIG_KEY}: {TYPHA_NAME}",
    "node-felix-env": (f"calico-node env {FELIX_ENV} from ConfigMap {CONFIG_MAP} key {CONFIG_KEY}"),
    "off-no-typha": "Typha off: no Typha Service, Deployment or PodDisruptionBudget",
    "off-node-direct": "Typha off: calico-node not pointed at Typha",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One way a render breaks a contract item, located: ``text`` is the item's detail
    (``typhaReplicas=4: rendered replicas 3``), ``message`` the finding's
    (``3, typhaReplicas=4``, after the field ``path``), ``obj``/``path`` what it is about (a
    missing object is told at the object that needs it)."""

    text: str
    message: str
    obj: K8sObject | None = None
    path: str = ""


@dataclass(frozen=True, slots=True)
class ContractItem:
    """One item of the Typha contract and whether the renders satisfy it."""

    id: str
    description: str
    ok: bool
    detail: str = ""
    problems: tuple[Problem, ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "ok": self.ok,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class Scenario:
    """One render of the version used by the check; ``replicas`` 0 is Typha off."""

    name: str
    replicas: int
    context: Mapping[str, Any]
    objects: tuple[K8sObject, ...]


#: Renders a version with the given Typha context keys: (context, parsed objects).
Render = Callable[[VersionDir, Mapping[str, str]], tuple[Mapping[str, Any], Sequence[K8sObject]]]


@dataclass(frozen=True, slots=True)
class CapabilityReport:
    """The contract verdict for a version; ``scenarios`` keeps the renders for rules."""

    version: str
    files: tuple[str, ...]
    dialect: str
    items: tuple[ContractItem, ...]
    #: What of Typha the Typha-on renders contain (see :func:`typha_traces`).
    typha: tuple[str, ...] = ()
    scenarios: tuple[Scenario, ...] = field(default=(), repr=False, compare=False)

    @property
    def capable(self) -> bool:
        return all(i.ok for i in self.items)

    @property
    def legacy(self) -> bool:
        """A release without Typha: its Typha-on renders contain nothing of Typha.

        A version with some Typha templates that fails the contract is not legacy: its
        Typha templates are incomplete, and it neither passes as legacy nor as capable.
        """
        return not self.capable and not self.typha

    @property
    def verdict(self) -> str:
        """One line: capable, legacy, or which contract items incomplete templates miss."""
        if self.capable:
            return "Typha-capable"
        if self.legacy:
            return "legacy: no Typha templates"
        return "Typha templates incomplete: missing " + "; ".join(self.missing)

    @property
    def missing(self) -> list[str]:
        """The description of every failed item; ``items`` carry the details."""
        return [i.description for i in self.items if not i.ok]

    def typha_on(self, replicas: int) -> Scenario:
        """The contract's Typha-on render asking for ``replicas``."""
        for s in self.scenarios:
            if s.replicas == replicas and replicas > 0:
                return s
        raise KeyError(f"no Typha-on render at {replicas} replicas")

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "files": list(self.files),
            "dialect": self.dialect,
            "capable": self.capable,
            "legacy": self.legacy,
            "contract": [i.to_dict() for i in self.items],
            "missing": self.missing,
        }


def _item(item_id: str, problems: list[Problem]) -> ContractItem:
    detail = "; ".join(p.text for p in problems if p.text)
    return ContractItem(item_id, CONTRACT_ITEMS[item_id], not problems, detail, tuple(problems))


def _anchor(objects: Sequence[K8sObject], *candidates: tuple[str, str]) -> K8sObject | None:
    """The first of ``candidates`` (kind, name) the render has: where a missing object
    is reported (the object that needs it)."""
    for kind, name in candidates:
        found = find(objects, kind, name)
        if found:
            return found[0]
    return None


def _problem(text: str, message: str = "", obj: K8sObject | None = None, fld: str = "") -> Problem:
    return Problem(text, message or text.partition(": ")[2] or text, obj, fld)


def is_typha_pdb(obj: K8sObject, typha_pods: Sequence[Mapping[str, Any]]) -> bool:
    """A PodDisruptionBudget (any apiVersion) selecting Typha pods."""
    if obj.kind != "PodDisruptionBudget":
        return False
    sel = dig(obj.data, "spec", "selector")
    return any(selector_matches(sel, labels) for labels in typha_pods)


def typha_deployment(objects: Sequence[K8sObject]) -> K8sObject | None:
    found = find(objects, "Deployment", TYPHA_NAME)
    return found[0] if found else None


def typha_pdbs(objects: Sequence[K8sObject]) -> list[K8sObject]:
    """PodDisruptionBudgets selecting the Typha Deployment's pods (or k8s-app: calico-typha)."""
    dep = typha_deployment(objects)
    pods = [pod_labels(dep)] if dep else []
    pods.append(TYPHA_LABEL)
    return [o for o in objects if is_typha_pdb(o, pods)]


def _typha_objects(objects: Sequence[K8sObject]) -> list[K8sObject]:
    """Typha Services, Deployments and PDBs, by name or by selecting Typha pods."""
    out = []
    pdbs = {id(p) for p in typha_pdbs(objects)}
    for o in objects:
        if (
            (o.kind in ("Service", "Deployment") and o.name == TYPHA_NAME)
            or (
                o.kind == "Service"
                and map_selector_matches(dig(o.data, "spec", "selector"), TYPHA_LABEL)
            )
            or (
                o.kind == "Deployment"
                and selector_matches(dig(o.data, "spec", "selector"), TYPHA_LABEL)
            )
            or id(o) in pdbs
        ):
            out.append(o)
    return out


def _config_value(objects: Sequence[K8sObject], cm_name: str, key: str) -> Any:
    """The value of ``key`` in ConfigMap ``cm_name``; None when absent."""
    for cm in find(objects, "ConfigMap", cm_name):
        data = as_dict(cm.data.get("data"))
        if key in data:
            return data[key]
    return None


def _felix_env(objects: Sequence[K8sObject]) -> tuple[dict[str, Any] | None, str]:
    """calico-node's FELIX_TYPHAK8SSERVICENAME env entry, or None with why not."""
    nodes = find(objects, "DaemonSet", NODE_NAME)
    if not nodes:
        return None, f"no DaemonSet {NODE_NAME}"
    found = container(nodes[0], NODE_NAME)
    if found is None:
        return None, f"DaemonSet {NODE_NAME} has no container {NODE_NAME}"
    env = env_var(found[1], FELIX_ENV)
    if env is None:
        return None, f"container {NODE_NAME} has no env {FELIX_ENV}"
    return env[1], ""


def _env_points_at_typha(objects: Sequence[K8sObject]) -> str:
    """Why calico-node is pointed at Typha, or "" when it is not."""
    env, _ = _felix_env(objects)
    if env is not None:
        if "value" in env and str(env["value"]).strip().lower() not in OFF_VALUES:
            return f"{FELIX_ENV} is {env['value']!r}"
        ref = as_dict(dig(env, "valueFrom", "configMapKeyRef"))
        if ref:
            value = _config_value(objects, str(ref.get("name")), str(ref.get("key")))
            if value is not None and str(value).strip().lower() not in OFF_VALUES:
                return f"{FELIX_ENV} reads {ref.get('name')}.{ref.get('key')} = {value!r}"
    for ds in find(objects, "DaemonSet", NODE_NAME):
        found = container(ds, NODE_NAME)
        addr = env_var(found[1], names.FELIX_TYPHA_ADDR_ENV) if found else None
        if addr and str(addr[1].get("value", "")).strip().lower() not in OFF_VALUES:
            return f"FELIX_TYPHAADDR is {addr[1].get('value')!r}"
    return ""


def _typha_namespace(objects: Sequence[K8sObject]) -> str:
    """Where Felix looks for the Typha Service: FELIX_TYPHAK8SNAMESPACE, by default
    kube-system."""
    for ds in find(objects, "DaemonSet", NODE_NAME):
        found = container(ds, NODE_NAME)
        env = env_var(found[1], names.FELIX_TYPHA_NAMESPACE_ENV) if found else None
        if env and env[1].get("value"):
            return str(env[1]["value"])
    return names.NAMESPACE


def _unreachable_target(svc: K8sObject, dep: K8sObject | None) -> str:
    """Why the Service's Typha port does not reach a Typha container port, or ""."""
    if dep is None:
        return ""
    named: dict[str, Any] = {}
    numbers: set[Any] = set()
    for _path, c in containers(dep):
        for p in as_list(c.get("ports")):
            port = as_dict(p)
            numbers.add(port.get("containerPort"))
            if port.get("name"):
                named[str(port["name"])] = port.get("containerPort")
    for p in as_list(dig(svc.data, "spec", "ports")):
        port = as_dict(p)
        if port.get("port") != TYPHA_PORT:
            continue
        target = port.get("targetPort", TYPHA_PORT)
        if isinstance(target, str) and target not in named:
            return f"targetPort {target!r} names no port of Deployment {TYPHA_NAME}"
        if isinstance(target, int) and target not in numbers:
            return f"targetPort {target} is no container port of Deployment {TYPHA_NAME}"
    return ""


def _check_on(objects: Sequence[K8sObject], replicas: int, tag: str) -> dict[str, list[Problem]]:
    """Problems per contract item for one Typha-on render asking for ``replicas``."""
    problems: dict[str, list[Problem]] = {k: [] for k in CONTRACT_ITEMS if not k.startswith("off-")}
    dep = typha_deployment(objects)
    config = _anchor(objects, ("ConfigMap", CONFIG_MAP))
    node = _anchor(objects, ("DaemonSet", NODE_NAME))
    services = find(objects, "Service", TYPHA_NAME)
    if not services:
        problems["typha-service"].append(
            _problem(
                f"{tag}: no Service {TYPHA_NAME}",
                f"no Service {TYPHA_NAME}",
                dep or config or node,
            )
        )
    for svc in services:
        spec = as_dict(svc.data.get("spec"))
        sel = as_dict(spec.get("selector"))
        if str(sel.get(names.APP_LABEL)) != TYPHA_LABEL[names.APP_LABEL]:
            problems["typha-service"].append(
                _problem(f"{tag}: selector is {sel}", f"{sel}, {tag}", svc, "spec.selector")
            )
        ports = [as_dict(p).get("port") for p in as_list(spec.get("ports"))]
        if TYPHA_PORT not in ports:
            problems["typha-service"].append(
                _problem(
                    f"{tag}: ports are {ports}, not {TYPHA_PORT}",
                    f"{ports}, not {TYPHA_PORT}, {tag}",
                    svc,
                    "spec.ports",
                )
            )
        namespace = _typha_namespace(objects)
        if svc.namespace != namespace:
            problems["typha-service"].append(
                _problem(
                    f"{tag}: in namespace {svc.namespace or '(none)'!r}; calico-node looks in "
                    f"{namespace!r}",
                    obj=svc,
                    fld="metadata.namespace",
                )
            )
    for svc in services:
        unreachable = _unreachable_target(svc, dep)
        if unreachable:
            problems["typha-service"].append(
                _problem(f"{tag}: {unreachable}", obj=svc, fld="spec.ports")
            )
    if dep is None:
        where = services[0] if services else config or node
        for item in ("typha-deployment", "typha-replicas"):
            problems[item].append(
                _problem(
                    f"{tag}: no Deployment {TYPHA_NAME}",
                    f"no Deployment {TYPHA_NAME}",
                    where,
                )
            )
    else:
        got = dig(dep.data, "spec", "replicas")
        if got != replicas or isinstance(got, bool):
            problems["typha-replicas"].append(
                _problem(
                    f"{tag}: typhaReplicas={replicas} rendered replicas {got!r}",
                    f"{got!r}, {tag}",
                    dep,
                    "spec.replicas",
                )
            )
    pdbs = typha_pdbs(objects)
    if dep is None:
        problems["typha-pdb"].append(
            _problem(
                f"{tag}: no Typha Deployment whose pods a PDB could select",
                obj=services[0] if services else config or node,
            )
        )
    elif not any(
        p.api_version == PDB_API
        and selector_matches(dig(p.data, "spec", "selector"), pod_labels(dep))
        for p in pdbs
    ):
        others = ", ".join(sorted(f"{p.ref} ({p.api_version})" for p in pdbs))
        problems["typha-pdb"].append(
            _problem(
                f"{tag}: no {PDB_API} PodDisruptionBudget selecting the Deployment's pods"
                + (f"; found {others}" if others else ""),
                obj=dep,
                fld="spec.selector",
            )
        )
    value = _config_value(objects, CONFIG_MAP, CONFIG_KEY)
    if value != TYPHA_NAME:
        problems["config-service-name"].append(
            _problem(
                f"{tag}: {CONFIG_KEY} is {value!r}",
                f"{value!r}, {tag}",
                config or node,
                f"data.{CONFIG_KEY}" if config is not None else "",
            )
        )
    env, why = _felix_env(objects)
    if env is None:
        problems["node-felix-env"].append(_problem(f"{tag}: {why}", obj=node or config))
    else:
        ref = as_dict(dig(env, "valueFrom", "configMapKeyRef"))
        if ref.get("name") != CONFIG_MAP or ref.get("key") != CONFIG_KEY:
            problems["node-felix-env"].append(
                _problem(
                    f"{tag}: {FELIX_ENV} is not from {CONFIG_MAP} key {CONFIG_KEY}",
                    obj=node,
                    fld=_env_path(node, FELIX_ENV),
                )
            )
    return problems


def _env_path(node: K8sObject | None, env: str) -> str:
    """The field path of calico-node's env entry ``env`` ("" when it has none)."""
    found = container(node, NODE_NAME) if node is not None else None
    entry = env_var(found[1], env) if found else None
    return f"{found[0]}.env[{entry[0]}]" if found and entry else ""


def _check_off(objects: Sequence[K8sObject]) -> dict[str, list[Problem]]:
    typha = sorted(_typha_objects(objects), key=lambda o: o.ref)
    pointed = _env_points_at_typha(objects)
    value = _config_value(objects, CONFIG_MAP, CONFIG_KEY)
    config = _anchor(objects, ("ConfigMap", CONFIG_MAP))
    node = _anchor(objects, ("DaemonSet", NODE_NAME))
    direct: list[Problem] = []
    if value is not None and str(value).strip().lower() not in OFF_VALUES:
        text = f"{CONFIG_KEY} is {value!r}"
        direct.append(
            _problem(
                f"off render: {text}", f"{value!r} with Typha off", config, f"data.{CONFIG_KEY}"
            )
        )
    if pointed:
        direct.append(_problem(f"off render: {pointed}", f"{pointed} with Typha off", node))
    listed = ", ".join(o.ref for o in typha)
    return {
        "off-no-typha": [
            Problem(f"off render has {listed}" if i == 0 else "", "rendered with Typha off", o)
            for i, o in enumerate(typha)
        ],
        "off-node-direct": direct,
    }


def typha_traces(on: Mapping[int, Sequence[K8sObject]]) -> tuple[str, ...]:
    """Everything of Typha in the Typha-on renders: Typha Services, Deployments and
    PodDisruptionBudgets, ``typha_service_name`` naming Typha, calico-node pointed at
    Typha. None of it means the version has no Typha templates (legacy); the check is on
    parsed objects, so comments and unrelated objects mentioning Typha do not count.
    """
    found: list[str] = []
    for replicas in sorted(on):
        objects = on[replicas]
        found.extend(o.ref for o in _typha_objects(objects))
        if _config_value(objects, CONFIG_MAP, CONFIG_KEY) == TYPHA_NAME:
            found.append(f"ConfigMap {CONFIG_MAP} {CONFIG_KEY}: {TYPHA_NAME}")
        pointed = _env_points_at_typha(objects)
        if pointed:
            found.append(f"{NODE_NAME}: {pointed}")
    return tuple(dict.fromkeys(found))


def check_contract(
    off: Sequence[K8sObject], on: Mapping[int, Sequence[K8sObject]]
) -> tuple[ContractItem, ...]:
    """Pure contract check: the off render and Typha-on renders keyed by replicas asked.

    Replicas must differ between on renders, so at least two are needed to prove
    ``typhaReplicas`` drives the Deployment.
    """
    if len(set(on)) < 2:
        raise ValueError("the contract needs Typha-on renders at two different replica counts")
    problems: dict[str, list[Problem]] = {k: [] for k in CONTRACT_ITEMS}
    for replicas in sorted(on):
        for key, found in _check_on(on[replicas], replicas, f"typhaReplicas={replicas}").items():
            problems[key].extend(found)
    for key, found in _check_off(off).items():
        problems[key].extend(found)
    return tuple(_item(k, problems[k]) for k in CONTRACT_ITEMS)


def assess_capability(version: VersionDir, render: Render) -> CapabilityReport:
    """Render ``version`` off and on at two replica counts and check the contract.

    ``render`` produces each render from a Typha context (BKE's context rules are the
    caller's: :func:`renderer.checks.verdict.capability_of` renders on the controller's
    defaults); the gate passes its shared renders, so the contract and the gate's
    scenarios render each Typha context once.
    """
    decision = policy.decide_typha(1)
    off_ctx, off = render(version, decision.context())
    scenarios = [Scenario("off", decision.replicas, off_ctx, tuple(off))]
    on: dict[int, tuple[K8sObject, ...]] = {}
    for nodes in CONTRACT_NODES:
        decision = policy.decide_typha(nodes)
        ctx, objs = render(version, decision.context())
        on[decision.replicas] = tuple(objs)
        scenarios.append(Scenario(f"on-{decision.replicas}", decision.replicas, ctx, tuple(objs)))
    return CapabilityReport(
        version=version.name,
        files=tuple(f.name for f in version.files),
        dialect="/".join(version.dialects),
        items=check_contract(off, on),
        typha=typha_traces(on),
        scenarios=tuple(scenarios),
    )
