"""The fidelity comparison: each kind of deviation on small hand-made objects, the
declared substitutions, and real data (upstream against itself, BKE's real v3.31.3,
the frozen hand-written tree)."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from renderer.calico import fidelity
from renderer.calico.fidelity import compare_objects
from renderer.checks.renders import fidelity_renderer
from renderer.checks.verdict import capability_of
from renderer.engine.render import version_keys
from renderer.finding import Finding, merge_findings
from renderer.k8s.parse import K8sObject
from renderer.manifests.tree import resolve_version
from tests.clihelp import ref

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = REPO_ROOT / "upstream" / "calico"
FIXTURES = REPO_ROOT / "tests" / "fixtures"
TAGS = ("v3.25.0", "v3.27.3", "v3.28.2", "v3.29.3", "v3.31.3", "v3.31.7")

Data = dict[str, Any]

CNI = {
    "name": "k8s-pod-network",
    "cniVersion": "0.3.1",
    "plugins": [
        {"type": "calico", "mtu": "__CNI_MTU__", "ipam": {"type": "calico-ipam"}},
        {"type": "portmap", "snat": True, "capabilities": {"portMappings": True}},
    ],
}
# Upstream writes the MTU placeholder unquoted, which is not JSON until substituted.
CNI_TEXT = json.dumps(CNI, indent=2).replace('"__CNI_MTU__"', "__CNI_MTU__")


def _objects() -> list[Data]:
    node_env = [
        {"name": "DATASTORE_TYPE", "value": "kubernetes"},
        {"name": "CALICO_IPV4POOL_IPIP", "value": "Always"},
        {"name": "FELIX_LOGSEVERITYSCREEN", "value": "info"},
    ]
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "calico-config", "namespace": "kube-system"},
            "data": {"calico_backend": "bird", "cni_network_config": CNI_TEXT},
        },
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "ippools.crd.projectcalico.org"},
            "spec": {
                "group": "crd.projectcalico.org",
                "names": {"kind": "IPPool", "plural": "ippools"},
                "scope": "Cluster",
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {
                            "openAPIV3Schema": {
                                "type": "object",
                                "properties": {
                                    "spec": {
                                        "type": "object",
                                        "properties": {
                                            "cidr": {"type": "string"},
                                            "vxlanMode": {"type": "string"},
                                            "ipipMode": {"type": "string"},
                                        },
                                        "required": ["cidr"],
                                    }
                                },
                            }
                        },
                    }
                ],
            },
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "calico-kube-controllers"},
            "rules": [
                {"apiGroups": [""], "resources": ["nodes"], "verbs": ["watch", "list", "get"]},
                {
                    "apiGroups": ["crd.projectcalico.org"],
                    "resources": ["kubecontrollersconfigurations"],
                    "verbs": ["get", "list", "create", "update", "watch"],
                },
            ],
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "calico-node", "namespace": "kube-system"},
            "spec": {
                "selector": {"matchLabels": {"k8s-app": "calico-node"}},
                "template": {
                    "metadata": {"labels": {"k8s-app": "calico-node"}},
                    "spec": {
                        "hostNetwork": True,
                        "tolerations": [
                            {"effect": "NoSchedule", "operator": "Exists"},
                            {"key": "CriticalAddonsOnly", "operator": "Exists"},
                            {"effect": "NoExecute", "operator": "Exists"},
                        ],
                        "initContainers": [
                            {
                                "name": "install-cni",
                                "image": "docker.io/calico/cni:v3.31.3",
                                "command": ["/opt/cni/bin/install"],
                            },
                            {"name": "wait", "image": "docker.io/library/busybox:1.36"},
                        ],
                        "containers": [
                            {
                                "name": "calico-node",
                                "image": "docker.io/calico/node:v3.31.3",
                                "env": node_env,
                                "livenessProbe": {
                                    "exec": {"command": ["/bin/calico-node", "-felix-live"]},
                                    "periodSeconds": 10,
                                    "timeoutSeconds": 10,
                                },
                                "volumeMounts": [
                                    {"mountPath": "/run/xtables.lock", "name": "lock"}
                                ],
                            }
                        ],
                        "volumes": [{"name": "lock", "hostPath": {"path": "/run/xtables.lock"}}],
                    },
                },
                "updateStrategy": {"type": "RollingUpdate"},
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "calico-typha", "namespace": "kube-system"},
            "spec": {
                "replicas": 1,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "100%"}},
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "calico-typha", "image": "docker.io/calico/typha:v3.31.3"}
                        ]
                    }
                },
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "calico-kube-controllers", "namespace": "kube-system"},
            "spec": {
                "strategy": {"type": "Recreate"},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "calico-kube-controllers",
                                "image": "docker.io/calico/kube-controllers:v3.31.3",
                                "env": [{"name": "ENABLED_CONTROLLERS", "value": "node"}],
                            }
                        ]
                    }
                },
            },
        },
    ]


def _k8s(items: list[Data]) -> list[K8sObject]:
    return [K8sObject("f.yaml", i, i + 1, d) for i, d in enumerate(items)]


def _find(items: list[Data], kind: str, name: str) -> Data:
    return next(d for d in items if d["kind"] == kind and d["metadata"]["name"] == name)


def _pod(items: list[Data], kind: str, name: str) -> Data:
    spec: Data = _find(items, kind, name)["spec"]["template"]["spec"]
    return spec


def _node(items: list[Data]) -> Data:
    c: Data = _pod(items, "DaemonSet", "calico-node")["containers"][0]
    return c


def _cni(items: list[Data], edit: Callable[[Data], None]) -> None:
    cm = _find(items, "ConfigMap", "calico-config")
    cni = copy.deepcopy(CNI)
    edit(cni)
    cm["data"]["cni_network_config"] = json.dumps(cni)


def _env(items: list[Data], name: str, value: str | None) -> None:
    env = [e for e in _node(items)["env"] if e["name"] != name]
    if value is not None:
        env.append({"name": name, "value": value})
    _node(items)["env"] = env


def _drop(items: list[Data], kind: str, name: str) -> None:
    items.remove(_find(items, kind, name))


def _verbs(items: list[Data], verbs: list[str]) -> None:
    _find(items, "ClusterRole", "calico-kube-controllers")["rules"][1]["verbs"] = verbs


def _schema_spec(items: list[Data]) -> Data:
    crd = _find(items, "CustomResourceDefinition", "ippools.crd.projectcalico.org")
    spec: Data = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    return spec


NODE = "DaemonSet kube-system/calico-node"
TYPHA = "Deployment kube-system/calico-typha"
KC = "Deployment kube-system/calico-kube-controllers"
KC_ROLE = "ClusterRole calico-kube-controllers"
CM = "ConfigMap kube-system/calico-config"
CRD = "CustomResourceDefinition ippools.crd.projectcalico.org"
CONTAINER = "spec.template.spec.containers[calico-node]"
KCC = "rules[crd.projectcalico.org/kubecontrollersconfigurations]"

# (case, edit of our copy, expected (rule, severity, object, field))
CASES: list[tuple[str, Callable[[list[Data]], None], list[tuple[str, str, str, str]]]] = [
    ("identical", lambda d: None, []),
    (
        "missing object",
        lambda d: _drop(d, "ClusterRole", "calico-kube-controllers"),
        [("fidelity-missing-object", "error", KC_ROLE, "")],
    ),
    (
        "extra object",
        lambda d: d.append(
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "x"}}
        ),
        [("fidelity-extra-object", "warning", "ServiceAccount x", "")],
    ),
    (
        "missing permission",
        lambda d: _verbs(d, ["get", "create", "update", "watch"]),
        [("fidelity-missing-permission", "error", KC_ROLE, KCC)],
    ),
    (
        "extra permission",
        lambda d: _verbs(d, ["get", "list", "create", "update", "watch", "delete"]),
        [("fidelity-extra-permission", "warning", KC_ROLE, KCC)],
    ),
    (
        "rules regrouped grant the same permissions",
        lambda d: _find(d, "ClusterRole", "calico-kube-controllers")["rules"].reverse(),
        [],
    ),
    (
        "env changed",
        lambda d: _env(d, "FELIX_LOGSEVERITYSCREEN", "debug"),
        [
            (
                "fidelity-changed",
                "error",
                NODE,
                f"{CONTAINER}.env[FELIX_LOGSEVERITYSCREEN].value",
            )
        ],
    ),
    (
        "env missing",
        lambda d: _env(d, "CALICO_IPV4POOL_IPIP", None),
        [("fidelity-missing-field", "error", NODE, f"{CONTAINER}.env[CALICO_IPV4POOL_IPIP]")],
    ),
    (
        "env extra",
        lambda d: _env(d, "FELIX_EXTRA", "1"),
        [("fidelity-extra-field", "warning", NODE, f"{CONTAINER}.env[FELIX_EXTRA]")],
    ),
    (
        "CNI plugin added",
        lambda d: _cni(d, lambda c: c["plugins"].append({"type": "bandwidth"})),
        [
            (
                "fidelity-cni-plugin",
                "error",
                CM,
                "data.cni_network_config.plugins[bandwidth]",
            )
        ],
    ),
    (
        "CNI plugin dropped",
        lambda d: _cni(d, lambda c: c["plugins"].pop()),
        [("fidelity-cni-plugin", "error", CM, "data.cni_network_config.plugins[portmap]")],
    ),
    (
        "CNI plugin field changed",
        lambda d: _cni(d, lambda c: c["plugins"][1].update(snat=False)),
        [("fidelity-changed", "error", CM, "data.cni_network_config.plugins[portmap].snat")],
    ),
    (
        "tolerations narrowed",
        lambda d: _pod(d, "DaemonSet", "calico-node")["tolerations"].pop(),
        [("fidelity-changed", "error", NODE, "spec.template.spec.tolerations")],
    ),
    (
        "tolerations reordered",
        lambda d: _pod(d, "DaemonSet", "calico-node")["tolerations"].reverse(),
        [],
    ),
    (
        "probe timeout removed",
        lambda d: _node(d)["livenessProbe"].pop("timeoutSeconds"),
        [
            (
                "fidelity-missing-field",
                "error",
                NODE,
                f"{CONTAINER}.livenessProbe.timeoutSeconds",
            )
        ],
    ),
    (
        "probe command extended",
        lambda d: _node(d)["livenessProbe"]["exec"]["command"].append("-bird-live"),
        [("fidelity-changed", "error", NODE, f"{CONTAINER}.livenessProbe.exec.command")],
    ),
    (
        "volume missing",
        lambda d: _pod(d, "DaemonSet", "calico-node").pop("volumes"),
        [("fidelity-missing-field", "error", NODE, "spec.template.spec.volumes")],
    ),
    (
        "strategy changed",
        lambda d: _find(d, "Deployment", "calico-kube-controllers")["spec"].update(
            strategy={"type": "RollingUpdate"}
        ),
        [("fidelity-changed", "error", KC, "spec.strategy.type")],
    ),
    (
        "CRD schema field removed",
        lambda d: _schema_spec(d)["properties"].pop("vxlanMode"),
        [("fidelity-crd-schema", "error", CRD, "spec.versions[v1].schema")],
    ),
    (
        "CRD schema field added",
        lambda d: _schema_spec(d)["properties"].update(extra={"type": "string"}),
        [("fidelity-crd-schema", "warning", CRD, "spec.versions[v1].schema")],
    ),
    (
        "label changed",
        lambda d: _find(d, "Deployment", "calico-typha")["metadata"].update(
            labels={"k8s-app": "typha"}
        ),
        [("fidelity-extra-field", "warning", TYPHA, "metadata.labels")],
    ),
    (
        "non-calico image registry changed",
        lambda d: _pod(d, "DaemonSet", "calico-node")["initContainers"][1].update(
            image="registry.example.com/library/busybox:1.36"
        ),
        [("fidelity-changed", "error", NODE, "spec.template.spec.initContainers[wait].image")],
    ),
    (
        "calico image tag changed",
        lambda d: _node(d).update(image="registry.example.com/calico/node:v3.31.2"),
        [("fidelity-changed", "error", NODE, f"{CONTAINER}.image")],
    ),
]


def _key(f: Finding) -> tuple[str, str, str, str]:
    return (f.rule, f.severity, ref(f.object), f.field)


@pytest.mark.parametrize(("edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_kind_of_deviation(
    edit: Callable[[list[Data]], None], expected: list[tuple[str, str, str, str]]
) -> None:
    ours = _objects()
    edit(ours)
    found = compare_objects(_k8s(ours), _k8s(_objects()), scenario="typha-off", version="v3.31.3")
    assert [_key(f) for f in found] == expected
    for f in found:
        assert f.stage == "fidelity" and f.scenarios == ("typha-off",)
        assert f.message.endswith("(upstream v3.31.3)")


def _registry(items: list[Data]) -> None:
    for kind, name in (("DaemonSet", "calico-node"), ("Deployment", "calico-typha")):
        for group in ("initContainers", "containers"):
            for c in _pod(items, kind, name).get(group, []):
                if "/calico/" in c["image"]:
                    c["image"] = "registry.example.com/openfuyao/" + c["image"].split("/", 1)[1]


SUBSTITUTED: list[tuple[str, Callable[[list[Data]], None]]] = [
    ("registry of calico images", _registry),
    ("registry dropped", lambda d: _node(d).update(image="calico/node:v3.31.3")),
    (
        "typha replicas",
        lambda d: _find(d, "Deployment", "calico-typha")["spec"].update(replicas=3),
    ),
    (
        "typha replicas absent",
        lambda d: _find(d, "Deployment", "calico-typha")["spec"].pop("replicas"),
    ),
    (
        "typha affinity",
        lambda d: _pod(d, "Deployment", "calico-typha").update(
            affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}
        ),
    ),
    ("pool CIDR added", lambda d: _env(d, "CALICO_IPV4POOL_CIDR", "10.244.0.0/16")),
    ("autodetection added", lambda d: _env(d, "IP_AUTODETECTION_METHOD", "can-reach=8.8.8.8")),
]


@pytest.mark.parametrize("edit", [s[1] for s in SUBSTITUTED], ids=[s[0] for s in SUBSTITUTED])
def test_declared_substitutions_are_not_reported(edit: Callable[[list[Data]], None]) -> None:
    ours = _objects()
    edit(ours)
    assert compare_objects(_k8s(ours), _k8s(_objects()), scenario="s", version="v") == []


@pytest.mark.parametrize("name", ["CALICO_IPV4POOL_CIDR", "IP_AUTODETECTION_METHOD"])
def test_substituted_env_may_differ_or_be_absent_on_either_side(name: str) -> None:
    upstream, ours = _objects(), _objects()
    _env(upstream, name, "upstream-value")
    _env(ours, name, "ours")
    assert compare_objects(_k8s(ours), _k8s(upstream), scenario="s", version="v") == []
    assert compare_objects(_k8s(_objects()), _k8s(upstream), scenario="s", version="v") == []


def test_substitutions_are_data_in_one_place() -> None:
    ids = [s.id for s in fidelity.SUBSTITUTIONS]
    assert ids == [
        "image-registry",
        "typha-replicas",
        "typha-affinity",
        "pool-cidr",
        "ip-autodetection",
    ]
    env = {(s.kind, s.name, s.container, s.env) for s in fidelity.SUBSTITUTIONS if s.env}
    assert env == {
        ("DaemonSet", "calico-node", "calico-node", "CALICO_IPV4POOL_CIDR"),
        ("DaemonSet", "calico-node", "calico-node", "IP_AUTODETECTION_METHOD"),
    }


def test_an_env_substitution_applies_to_calico_node_only() -> None:
    upstream, ours = _objects(), _objects()
    kc = _pod(ours, "Deployment", "calico-kube-controllers")["containers"][0]
    kc["env"].append({"name": "IP_AUTODETECTION_METHOD", "value": "x"})
    found = compare_objects(_k8s(ours), _k8s(upstream), scenario="s", version="v")
    assert [_key(f) for f in found] == [
        (
            "fidelity-extra-field",
            "warning",
            KC,
            "spec.template.spec.containers[calico-kube-controllers].env[IP_AUTODETECTION_METHOD]",
        )
    ]


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("docker.io/calico/node:v3.31.3", "calico/node:v3.31.3"),
        ("calico/node:v3.31.3", "calico/node:v3.31.3"),
        ("reg.example.com:5000/mirror/calico/cni:v3.31.3", "calico/cni:v3.31.3"),
        ("reg.example.com/calico/calico/node:v1", "calico/node:v1"),
        ("docker.io/library/busybox:1.36", "docker.io/library/busybox:1.36"),
        ("calico", "calico"),
    ],
)
def test_image_after_registry(image: str, expected: str) -> None:
    assert fidelity.image_after_registry(image) == expected


def test_missing_permission_message_names_verb_and_resource() -> None:
    ours = _objects()
    _verbs(ours, ["get", "create", "update", "watch"])
    (f,) = compare_objects(_k8s(ours), _k8s(_objects()), scenario="s", version="v3.31.3")
    assert f.message == (
        "missing permission list on crd.projectcalico.org/kubecontrollersconfigurations "
        "(upstream v3.31.3)"
    )


def test_wildcards_cover_specific_permissions() -> None:
    wanted = fidelity.permissions([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}])
    star = fidelity.permissions([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}])
    assert wanted == {("", "pods", "", "get")}
    assert fidelity._uncovered(wanted, star) == []


def test_identical_findings_merge_across_scenarios() -> None:
    ours = _objects()
    _env(ours, "FELIX_LOGSEVERITYSCREEN", "debug")
    up = _k8s(_objects())
    found = [
        *compare_objects(_k8s(ours), up, scenario="typha-on", version="v"),
        *compare_objects(_k8s(ours), up, scenario="typha-off", version="v"),
    ]
    (merged,) = merge_findings(found, ["typha-off", "typha-on", "vxlan"])
    assert merged.scenarios == ("typha-off", "typha-on")


@pytest.mark.parametrize(
    ("capable", "keys", "files", "expected"),
    [
        (True, {"calicoMode"}, fidelity.UPSTREAM_FILES, ["typha-off", "typha-on", "vxlan"]),
        (False, {"calicoMode"}, fidelity.UPSTREAM_FILES, ["typha-off", "vxlan"]),
        (True, {"repo"}, fidelity.UPSTREAM_FILES, ["typha-off", "typha-on"]),
        (True, {"calicoMode"}, ("calico.yaml", "calico-typha.yaml"), ["typha-off", "typha-on"]),
    ],
)
def test_scenarios_for(
    capable: bool, keys: set[str], files: tuple[str, ...], expected: list[str]
) -> None:
    chosen = fidelity.scenarios_for(capable, frozenset(keys), frozenset(files))
    assert [s.name for s in chosen] == expected


# --- real data -----------------------------------------------------------------------


@pytest.mark.parametrize("name", fidelity.UPSTREAM_FILES)
@pytest.mark.parametrize("tag", TAGS)
def test_upstream_against_itself_has_no_findings(tag: str, name: str) -> None:
    objects = fidelity.load_upstream(UPSTREAM / tag / name)
    assert objects
    assert compare_objects(objects, objects, scenario="s", version=tag) == []


@functools.cache
def _assess(root: Path, version: str) -> fidelity.FidelityResult:
    vdir = resolve_version(version, root)
    return fidelity.assess_fidelity(
        vdir.name,
        UPSTREAM,
        fidelity_renderer(vdir),
        capable=capability_of(vdir).capable,
        keys=version_keys(vdir),
    )


def test_bke_real_v3_31_3_has_no_error_against_upstream() -> None:
    result = _assess(FIXTURES / "bke-real", "v3.31.3")
    assert [s["name"] for s in result.scenarios] == ["typha-off", "typha-on"]
    assert [f for f in result.findings if f.severity == "error"] == []
    assert result.status == "pass"


HANDWRITTEN = FIXTURES / "handwritten"


@pytest.mark.parametrize(
    ("version", "rule", "severity", "obj", "fld"),
    [
        (
            "v3.29.3",
            "fidelity-changed",
            "error",
            KC,
            "spec.template.spec.containers[calico-kube-controllers].env[ENABLED_CONTROLLERS].value",
        ),
        ("v3.31.3", "fidelity-missing-permission", "error", KC_ROLE, KCC),
        (
            "v3.31.3",
            "fidelity-cni-plugin",
            "error",
            CM,
            "data.cni_network_config.plugins[bandwidth]",
        ),
        (
            "v3.28.2",
            "fidelity-extra-object",
            "warning",
            "CustomResourceDefinition adminnetworkpolicies.policy.networking.k8s.io",
            "",
        ),
        (
            "v3.31.3",
            "fidelity-changed",
            "error",
            TYPHA,
            "spec.template.spec.tolerations",
        ),
    ],
)
def test_handwritten_tree_defects_are_found(
    version: str, rule: str, severity: str, obj: str, fld: str
) -> None:
    result = _assess(HANDWRITTEN, version)
    assert result.status == "fail"
    assert (rule, severity, obj, fld) in {_key(f) for f in result.findings}


def test_handwritten_v3_31_3_missing_list_is_one_merged_finding() -> None:
    result = _assess(HANDWRITTEN, "v3.31.3")
    found = [f for f in result.findings if f.field == KCC and ref(f.object) == KC_ROLE]
    assert len(found) == 1
    assert found[0].scenarios == ("typha-off", "typha-on", "vxlan")
    assert "missing permission list on" in found[0].message


def test_a_version_without_upstream_is_skipped_with_a_note(tmp_path: Path) -> None:
    vdir = resolve_version("v3.31.3", FIXTURES / "bke-real")
    result = fidelity.assess_fidelity(
        "v3.31.3", tmp_path, fidelity_renderer(vdir), capable=True, keys=frozenset()
    )
    assert (result.status, result.findings) == ("skip", [])
    assert result.note.startswith(fidelity.NO_UPSTREAM)


OK, TYPHA_OK = "kind: ConfigMap\n", "v3.31.3/calico-typha.yaml"


@pytest.mark.parametrize(
    ("layout", "named"),
    [
        ({"v3.31.3/calico-typha.yaml": "kind: List\n"}, "v3.31.3/calico.yaml"),
        ({"v3.31.3/calico.yaml": "a: [\n", TYPHA_OK: OK}, "v3.31.3/calico.yaml"),
        ({"v3.31.3/calico.yaml": "- a\n", TYPHA_OK: OK}, "v3.31.3/calico.yaml"),
        ({"v3.31.3/calico.yaml": OK, TYPHA_OK: "\tx: 1\n"}, "v3.31.3/calico-typha.yaml"),
        ({"v3.31.3/calico.yaml": "kind: ConfigMap\n"}, "v3.31.3/calico-typha.yaml"),
    ],
    ids=["no calico.yaml", "unparsable", "not an object", "unparsable typha", "no typha file"],
)
def test_bad_upstream_folder_is_upstream_error(
    tmp_path: Path, layout: dict[str, str], named: str
) -> None:
    for rel, text in layout.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    vdir = resolve_version("v3.31.3", FIXTURES / "bke-real")
    with pytest.raises(fidelity.UpstreamError) as exc:
        fidelity.assess_fidelity(
            "v3.31.3", tmp_path, fidelity_renderer(vdir), capable=True, keys=frozenset()
        )
    assert exc.value.file == str(tmp_path / named)
