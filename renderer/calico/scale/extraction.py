"""The facts of a render: calico-node's pools and backend, Typha's replicas, the
containers' requests, each located at the object and template file that rendered it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from renderer.calico import names
from renderer.calico.scale.facts import (
    CALICO_DEFAULT,
    KUBERNETES_DEFAULT,
    RENDERED,
    Fact,
    Pool,
    Requests,
    ScaleInputs,
)
from renderer.calico.scale.tables import CALICO_BACKEND, CALICO_BLOCK_SIZE
from renderer.k8s.objects import as_dict, container, dig, env_var, find
from renderer.k8s.parse import K8sObject

NODE = names.NODE
TYPHA = names.TYPHA
CONFIG_MAP = names.CONFIG_MAP


def calico_node(objects: Sequence[K8sObject]) -> K8sObject | None:
    """The calico-node DaemonSet: by name, else by its ``k8s-app: calico-node`` label."""
    daemonsets = find(objects, "DaemonSet")
    for obj in daemonsets:
        if obj.name == NODE:
            return obj
    for obj in daemonsets:
        if names.app_label(obj.data) == NODE:
            return obj
    return None


def _loc(obj: K8sObject) -> str:
    return obj.where


def _env_value(
    objects: Sequence[K8sObject], obj: K8sObject, c: Mapping[str, Any], name: str
) -> Fact | None:
    """calico-node env ``name`` as rendered: a literal value, or the ConfigMap key it reads;
    None when the env is not set (or reads something not rendered)."""
    found = env_var(c, name)
    if found is None:
        return None
    env = found[1]
    if "value" in env:
        value = env["value"]
        return Fact(
            None if value is None else str(value), RENDERED, f"env {name}", obj.ref, _loc(obj)
        )
    ref = as_dict(dig(env, "valueFrom", "configMapKeyRef"))
    for cm in find(objects, "ConfigMap", str(ref.get("name"))):
        data = as_dict(cm.data.get("data"))
        key = str(ref.get("key"))
        if key in data:
            where = f"env {name} from ConfigMap {cm.name} key {key}"
            return Fact(str(data[key]), RENDERED, where, cm.ref, _loc(cm))
    return None


def _set(fact: Fact | None) -> bool:
    return fact is not None and fact.value is not None and str(fact.value).strip() != ""


def _block_size(fact: Fact | None, family: int, name: str) -> Fact:
    if not _set(fact):
        return Fact(CALICO_BLOCK_SIZE[family], CALICO_DEFAULT, f"{name} not rendered")
    assert fact is not None
    text = str(fact.value).strip().lstrip("/")
    value: int | str = int(text) if text.isdigit() else str(fact.value)
    return Fact(value, fact.source, fact.where, fact.object, fact.file)


def _requests(obj: K8sObject | None, name: str) -> Requests | None:
    if obj is None:
        return None
    found = container(obj, name)
    if found is None:
        return None
    path, c = found
    req = as_dict(dig(c, "resources", "requests"))

    def one(resource: str) -> Fact:
        value = req.get(resource)
        where = f"container {name} {path}.resources.requests.{resource}"
        text = None if value is None else str(value)
        return Fact(text, RENDERED, where + ("" if text else " not set"), obj.ref, _loc(obj))

    return Requests(one("cpu"), one("memory"))


def extract(
    objects: Sequence[K8sObject],
    *,
    nodes: Fact,
    max_pods: Fact,
    pod_subnet: Fact,
    ip_mod_version: Fact,
) -> ScaleInputs:
    """The numbers of a render: pools from calico-node's env (``CALICO_IPV4POOL_CIDR``,
    else ``pod_subnet``; block sizes, else Calico's defaults), the backend, Typha replicas
    and the calico-node and Typha requests.

    IPv4 is skipped when calico-node's ``IP`` is "none"; IPv6 is checked when
    ``ip_mod_version`` is ipv6 or dual and the render sets ``CALICO_IPV6POOL_CIDR``.
    """
    notes: list[str] = []
    ds = calico_node(objects)
    found = container(ds, NODE) if ds else None
    c: Mapping[str, Any] = found[1] if found else {}

    def env(name: str) -> Fact | None:
        return _env_value(objects, ds, c, name) if ds is not None else None

    pools = _pools(env, pod_subnet, ip_mod_version, notes)
    deployments = find(objects, "Deployment", TYPHA)
    dep = deployments[0] if deployments else None
    return ScaleInputs(
        nodes=nodes,
        max_pods=max_pods,
        pools=tuple(pools),
        backend=_backend(objects, env("CALICO_NETWORKING_BACKEND")),
        typha_replicas=_typha_replicas(dep),
        felix=_requests(ds, NODE),
        typha=_requests(dep, TYPHA),
        ip_mod_version=ip_mod_version,
        notes=tuple(notes),
    )


def _pools(
    env: Callable[[str], Fact | None], pod_subnet: Fact, ip_mod_version: Fact, notes: list[str]
) -> list[Pool]:
    """The IPv4 pool (unless calico-node's IP is none) and the IPv6 one when asked for
    and rendered; why one is not checked goes to ``notes``."""
    pools: list[Pool] = []
    ip = env("IP")
    if _set(ip) and str(ip.value if ip else "").strip().lower() == "none":
        notes.append("IPv4 pool not checked: calico-node env IP is none (IPv6 only)")
    else:
        cidr = env("CALICO_IPV4POOL_CIDR")
        if not _set(cidr):
            cidr = Fact(
                pod_subnet.value,
                pod_subnet.source,
                f"CALICO_IPV4POOL_CIDR not rendered; {pod_subnet.where}",
            )
        assert cidr is not None
        size = _block_size(env("CALICO_IPV4POOL_BLOCK_SIZE"), 4, "CALICO_IPV4POOL_BLOCK_SIZE")
        pools.append(Pool(4, cidr, size))
    if str(ip_mod_version.value) in ("ipv6", "dual"):
        cidr6 = env("CALICO_IPV6POOL_CIDR")
        if _set(cidr6):
            assert cidr6 is not None
            size6 = _block_size(env("CALICO_IPV6POOL_BLOCK_SIZE"), 6, "CALICO_IPV6POOL_BLOCK_SIZE")
            pools.append(Pool(6, cidr6, size6))
        else:
            notes.append(
                f"IPv6 pool not checked: ipModVersion is {ip_mod_version.value} but the "
                "render sets no CALICO_IPV6POOL_CIDR"
            )
    return pools


def _backend(objects: Sequence[K8sObject], rendered: Fact | None) -> Fact:
    """The networking backend: calico-node's env, else the ConfigMap's calico_backend,
    else Calico's default."""
    if _set(rendered):
        assert rendered is not None
        return rendered
    for cm in find(objects, "ConfigMap", CONFIG_MAP):
        data = as_dict(cm.data.get("data"))
        if "calico_backend" in data:
            return Fact(
                str(data["calico_backend"]),
                RENDERED,
                f"{CONFIG_MAP} key calico_backend",
                cm.ref,
                _loc(cm),
            )
    return Fact(CALICO_BACKEND, CALICO_DEFAULT, "CALICO_NETWORKING_BACKEND not rendered")


def _typha_replicas(dep: K8sObject | None) -> Fact:
    """The Typha Deployment's replicas (Kubernetes' 1 when not rendered)."""
    if dep is None:
        return Fact(None, RENDERED, f"no Deployment {TYPHA} rendered")
    spec = as_dict(dep.data.get("spec"))
    if "replicas" not in spec:
        return Fact(1, KUBERNETES_DEFAULT, "spec.replicas not rendered", dep.ref, _loc(dep))
    raw = spec["replicas"]
    plain = isinstance(raw, int) and not isinstance(raw, bool)
    value: int | str | None = raw if plain else str(raw)
    return Fact(value, RENDERED, "spec.replicas", dep.ref, _loc(dep))
