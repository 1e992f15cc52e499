"""Fidelity to upstream: a version's render against Calico's own release manifests.

A bke-manifests version directory must render what upstream Calico ships for its tag,
apart from the substitutions BKE declares (:data:`SUBSTITUTIONS`). The comparison is
semantic, not textual: objects by (kind, namespace, name), RBAC rules as permission
sets, containers, env, volumes and ports by name, the CNI config's plugin chain by
type, CRD schemas summarised per CRD version. Anything upstream has that ours lacks or
changes is an error; a pure addition is a warning.

:func:`compare_objects` is pure; :func:`load_upstream` reads the upstream folder. The
diff of two objects' data is :func:`renderer.k8s.diff.diff`; this module knows what of
Calico's upstream to compare how (substitutions, RBAC, the CNI config, CRD schemas).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renderer.calico import names
from renderer.errors import InputError
from renderer.finding import FIDELITY, Finding, ObjectRef, locate, merge_findings
from renderer.k8s.diff import Diff, diff, path_parts, show
from renderer.k8s.objects import as_dict, as_list, pod_spec_path
from renderer.k8s.objects import dig_path as _dig
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.store.read import read_text

STAGE = FIDELITY
ERROR, WARNING = "error", "warning"

#: Upstream's release manifests in ``DIR/<version>/``; only calico.yaml is required.
CALICO_FILE, TYPHA_FILE, VXLAN_FILE = "calico.yaml", "calico-typha.yaml", "calico-vxlan.yaml"
UPSTREAM_FILES = (CALICO_FILE, TYPHA_FILE, VXLAN_FILE)
NO_UPSTREAM = "no upstream to compare"


class UpstreamError(InputError):
    """The upstream folder is unusable (missing file, unparsable YAML): exit 2.

    A distinct type so the gate's per-version worker lets it through instead of
    recording it as a failure of the version under test.
    """


# --- scenarios ------------------------------------------------------------------------


@dataclass(frozen=True)
class FidelityScenario:
    """A render of the version (``values`` on top of the context defaults) and the
    upstream manifest it must reproduce."""

    name: str
    upstream_file: str
    values: Mapping[str, str]


TYPHA_OFF = FidelityScenario(
    "typha-off", CALICO_FILE, {"calicoMode": "ipip", "allowTypha": "false", "typhaReplicas": "0"}
)
TYPHA_ON = FidelityScenario(
    "typha-on", TYPHA_FILE, {"calicoMode": "ipip", "allowTypha": "true", "typhaReplicas": "3"}
)
VXLAN = FidelityScenario(
    "vxlan", VXLAN_FILE, {"calicoMode": "vxlan", "allowTypha": "false", "typhaReplicas": "0"}
)


def scenarios_for(
    capable: bool, keys: frozenset[str], available: frozenset[str]
) -> list[FidelityScenario]:
    """The scenarios a version is compared in: Typha on only when it is Typha-capable,
    VXLAN only when its templates read ``calicoMode`` and upstream ships the file."""
    out = [TYPHA_OFF]
    if capable:
        out.append(TYPHA_ON)
    if "calicoMode" in keys and VXLAN.upstream_file in available:
        out.append(VXLAN)
    return out


# --- declared substitutions -----------------------------------------------------------


@dataclass(frozen=True)
class Substitution:
    """A deviation from upstream BKE makes on purpose; removed from both sides before
    comparing. ``path`` is a field of the object (``kind``/``name``); ``env`` an env
    entry of ``container`` in that object's pod template. The image registry has no
    path: it applies to every ``calico/`` image."""

    id: str
    description: str
    kind: str = ""
    name: str = ""
    path: tuple[str, ...] = ()
    container: str = ""
    env: str = ""


SUBSTITUTIONS: tuple[Substitution, ...] = (
    Substitution("image-registry", "the registry prefix of calico/* images (repo)"),
    Substitution(
        "typha-replicas",
        "Typha's replica count (typhaReplicas)",
        "Deployment",
        names.TYPHA_DEPLOYMENT,
        ("spec", "replicas"),
    ),
    Substitution(
        "typha-affinity",
        "Typha's pod affinity",
        "Deployment",
        names.TYPHA_DEPLOYMENT,
        ("spec", "template", "spec", "affinity"),
    ),
    Substitution(
        "pool-cidr",
        "the IPv4 pool CIDR (podSubnet)",
        "DaemonSet",
        names.NODE_DAEMONSET,
        container=names.NODE_CONTAINER,
        env="CALICO_IPV4POOL_CIDR",
    ),
    Substitution(
        "ip-autodetection",
        "the IP autodetection method (ipAutoDetectionMethod)",
        "DaemonSet",
        names.NODE_DAEMONSET,
        container=names.NODE_CONTAINER,
        env="IP_AUTODETECTION_METHOD",
    ),
)


def image_after_registry(image: str) -> str:
    """``calico/node:v3.31.3`` from any registry's ``.../calico/node:v3.31.3``; other
    images unchanged (their registry is not a declared substitution)."""
    parts = image.split("/")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "calico":
            return "/".join(parts[i:])
    return image


def _exempt(obj: K8sObject) -> dict[str, Any]:
    """The object's data with every declared substitution removed (a copy if touched)."""
    path = pod_spec_path(obj)
    subs = [s for s in SUBSTITUTIONS if s.kind == obj.kind and s.name == obj.name]
    if path is None and not subs:
        return obj.data
    data = copy.deepcopy(obj.data)
    spec = as_dict(_dig(data, path)) if path else {}
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for c in as_list(spec.get(group)):
            if isinstance(c, dict) and isinstance(c.get("image"), str):
                c["image"] = image_after_registry(c["image"])
    for s in subs:
        if s.path:
            parent = _dig(data, s.path[:-1])
            if isinstance(parent, dict):
                parent.pop(s.path[-1], None)
        if s.env:
            for c in as_list(spec.get("containers")):
                if isinstance(c, dict) and c.get("name") == s.container and "env" in c:
                    c["env"] = [
                        e
                        for e in as_list(c["env"])
                        if not (isinstance(e, dict) and e.get("name") == s.env)
                    ]
    return data


def _named(item: Any, name: str) -> bool:
    return isinstance(item, dict) and item.get("name") == name


# --- findings -------------------------------------------------------------------------


@dataclass
class _Out:
    """Collects one scenario's findings for one upstream version; ``ours`` is the
    rendered object being compared (its fields' template lines locate the findings)."""

    scenario: str
    version: str
    findings: list[Finding] = field(default_factory=list)
    ours: K8sObject | None = None

    def add(
        self, rule: str, severity: str, message: str, obj: str, fld: str = "", file: str = ""
    ) -> None:
        where, line = locate(file)
        mine = self.ours
        if fld and mine is not None and mine.locator is not None:
            parts = path_parts(mine.data, fld)
            found = mine.locator.field_line(mine.line, list(parts)) if parts else None
            line = found or line
        self.findings.append(
            Finding(
                rule,
                severity,
                f"{message} (upstream {self.version})",
                stage=STAGE,
                object=ObjectRef.parse(obj),
                file=where,
                line=line,
                scenarios=(self.scenario,) if self.scenario else (),
                field=fld,
            )
        )

    def diffs(self, diffs: Iterator[Diff], obj: str, file: str) -> None:
        for d in diffs:
            if d.change == "missing":
                self.add(
                    "fidelity-missing-field",
                    ERROR,
                    f"missing; upstream {show(d.upstream)}",
                    obj,
                    d.path,
                    file,
                )
            elif d.change == "extra":
                self.add(
                    "fidelity-extra-field",
                    WARNING,
                    f"not in upstream; ours {show(d.ours)}",
                    obj,
                    d.path,
                    file,
                )
            else:
                self.add(
                    "fidelity-changed",
                    ERROR,
                    f"upstream {show(d.upstream)}, ours {show(d.ours)}",
                    obj,
                    d.path,
                    file,
                )


# --- RBAC -----------------------------------------------------------------------------

Permission = tuple[str, str, str, str]  # apiGroup, resource, resourceName, verb
_NON_RESOURCE = "(non-resource URL)"


def permissions(rules: Any) -> set[Permission]:
    """The (apiGroup, resource, resourceName, verb) permissions of a rule list; an empty
    resourceName means every name."""
    out: set[Permission] = set()
    for rule in as_list(rules):
        if not isinstance(rule, dict):
            continue
        verbs = [str(v) for v in as_list(rule.get("verbs"))]
        resource_names = [str(n) for n in as_list(rule.get("resourceNames"))] or [""]
        for group in as_list(rule.get("apiGroups")):
            for resource in as_list(rule.get("resources")):
                for name in resource_names:
                    out.update((str(group), str(resource), name, v) for v in verbs)
        for url in as_list(rule.get("nonResourceURLs")):
            out.update((_NON_RESOURCE, str(url), "", v) for v in verbs)
    return out


def _covers(granted: Permission, wanted: Permission) -> bool:
    g, w = granted, wanted
    return (
        g[0] in ("*", w[0]) and g[1] in ("*", w[1]) and g[2] in ("", w[2]) and g[3] in ("*", w[3])
    )


def _uncovered(wanted: set[Permission], granted: set[Permission]) -> list[Permission]:
    return sorted(p for p in wanted if p not in granted and not any(_covers(g, p) for g in granted))


def _resource(p: Permission) -> str:
    group, resource, name, _ = p
    if group == _NON_RESOURCE:
        return f"non-resource URL {resource}"
    base = f"{group}/{resource}" if group else resource
    return f"{base} named {name}" if name else base


def _grouped(perms: list[Permission]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in perms:
        out.setdefault(_resource(p), []).append(p[3])
    return out


def _compare_rbac(up: K8sObject, ours: dict[str, Any], ref: str, file: str, out: _Out) -> None:
    want, have = permissions(up.data.get("rules")), permissions(ours.get("rules"))
    for what, verbs in _grouped(_uncovered(want, have)).items():
        out.add(
            "fidelity-missing-permission",
            ERROR,
            f"missing permission {', '.join(verbs)} on {what}",
            ref,
            f"rules[{what}]",
            file,
        )
    for what, verbs in _grouped(_uncovered(have, want)).items():
        out.add(
            "fidelity-extra-permission",
            WARNING,
            f"extra permission {', '.join(verbs)} on {what}",
            ref,
            f"rules[{what}]",
            file,
        )
    rest_up = {k: v for k, v in up.data.items() if k != "rules"}
    rest_ours = {k: v for k, v in ours.items() if k != "rules"}
    out.diffs(diff(rest_up, rest_ours), ref, file)


# --- the CNI config -------------------------------------------------------------------

CNI_KEY = "cni_network_config"
CNI_PATH = f"data.{CNI_KEY}"


#: The install-cni placeholders upstream writes unquoted (``"mtu": __CNI_MTU__``).
_PLACEHOLDER = re.compile(r'(?<!")(__[A-Z0-9_]+__)(?!")')


def _json_object(text: Any) -> dict[str, Any] | None:
    """The CNI config as JSON, unquoted placeholders read as strings; None if not JSON."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(_PLACEHOLDER.sub(r'"\1"', text))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _compare_cni(up_text: Any, our_text: Any, ref: str, file: str, out: _Out) -> None:
    up, ours = _json_object(up_text), _json_object(our_text)
    if up is None or ours is None:
        out.diffs(diff(up_text, our_text, CNI_PATH), ref, file)
        return
    up_chain = [p for p in as_list(up.get("plugins")) if isinstance(p, dict)]
    our_chain = [p for p in as_list(ours.get("plugins")) if isinstance(p, dict)]
    up_types = [str(p.get("type")) for p in up_chain]
    our_types = [str(p.get("type")) for p in our_chain]
    for t in up_types:
        if t not in our_types:
            out.add(
                "fidelity-cni-plugin",
                ERROR,
                f"CNI plugin {t} missing from the chain; upstream chain {', '.join(up_types)}",
                ref,
                f"{CNI_PATH}.plugins[{t}]",
                file,
            )
    for t in our_types:
        if t not in up_types:
            # Unlike other additions this one fails: the runtime runs every plugin of the
            # chain for every pod sandbox, and a binary calico/cni does not ship fails them all.
            out.add(
                "fidelity-cni-plugin",
                ERROR,
                f"CNI plugin {t} added to the chain; upstream chain {', '.join(up_types)}",
                ref,
                f"{CNI_PATH}.plugins[{t}]",
                file,
            )
    common = [t for t in our_types if t in up_types]
    if common != [t for t in up_types if t in our_types]:
        out.add(
            "fidelity-changed",
            ERROR,
            f"chain order upstream {', '.join(up_types)}, ours {', '.join(our_types)}",
            ref,
            f"{CNI_PATH}.plugins",
            file,
        )
    mine = {str(p.get("type")): p for p in our_chain}
    for p in up_chain:
        t = str(p.get("type"))
        if t in mine:
            out.diffs(diff(p, mine[t], f"{CNI_PATH}.plugins[{t}]"), ref, file)
    up_rest = {k: v for k, v in up.items() if k != "plugins"}
    our_rest = {k: v for k, v in ours.items() if k != "plugins"}
    out.diffs(diff(up_rest, our_rest, CNI_PATH), ref, file)


def _compare_configmap(up: K8sObject, ours: dict[str, Any], ref: str, file: str, out: _Out) -> None:
    up_data, our_data = as_dict(up.data.get("data")), as_dict(ours.get("data"))
    if CNI_KEY not in up_data or CNI_KEY not in our_data:
        out.diffs(diff(up.data, ours), ref, file)
        return
    _compare_cni(up_data[CNI_KEY], our_data[CNI_KEY], ref, file, out)
    strip = [
        {**d, "data": {k: v for k, v in as_dict(d["data"]).items() if k != CNI_KEY}}
        for d in (up.data, ours)
    ]
    out.diffs(diff(strip[0], strip[1]), ref, file)


# --- CRDs -----------------------------------------------------------------------------

#: How many differing schema paths a CRD finding names.
SCHEMA_PATHS_SHOWN = 3


def _schemas(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the CRD without its version schemas, {version name: schema})."""
    spec = as_dict(data.get("spec"))
    versions = as_list(spec.get("versions"))
    found: dict[str, Any] = {}
    stripped = []
    for v in versions:
        if isinstance(v, dict) and "schema" in v:
            found[str(v.get("name"))] = v["schema"]
            v = {k: x for k, x in v.items() if k != "schema"}
        stripped.append(v)
    rest = {**data, "spec": {**spec, "versions": stripped}} if "versions" in spec else data
    return rest, found


def _version_names(data: dict[str, Any]) -> set[str]:
    versions = as_list(as_dict(data.get("spec")).get("versions"))
    return {str(v.get("name")) for v in versions if isinstance(v, dict)}


def _compare_crd(up: K8sObject, ours: dict[str, Any], ref: str, file: str, out: _Out) -> None:
    """The CRD without its schemas field by field; each version's schema as one finding
    counting its differing fields (a stub schema differs in thousands)."""
    up_rest, up_schemas = _schemas(up.data)
    our_rest, our_schemas = _schemas(ours)
    out.diffs(diff(up_rest, our_rest), ref, file)
    both = _version_names(up.data) & _version_names(ours)  # other versions: generic diff
    for name in sorted(both):
        fld = f"spec.versions[{name}].schema"
        found = list(diff(up_schemas.get(name), our_schemas.get(name), fld))
        if not found:
            continue
        bad = sum(1 for d in found if d.change != "extra")
        shown = ", ".join(d.path[len(fld) + 1 :] or "." for d in found[:SCHEMA_PATHS_SHOWN])
        hidden = len(found) - SCHEMA_PATHS_SHOWN
        out.add(
            "fidelity-crd-schema",
            ERROR if bad else WARNING,
            f"{len(found)} schema field(s) differ ({bad} missing or changed, "
            f"{len(found) - bad} extra): {shown}" + (f" and {hidden} more" if hidden > 0 else ""),
            ref,
            fld,
            file,
        )


# --- objects --------------------------------------------------------------------------

_RBAC = {"ClusterRole", "Role"}


def compare_objects(
    ours: Sequence[K8sObject],
    upstream: Sequence[K8sObject],
    *,
    scenario: str,
    version: str,
) -> list[Finding]:
    """Every deviation of ``ours`` from ``upstream`` (declared substitutions exempt),
    in upstream's object order, then objects upstream does not have."""
    out = _Out(scenario, version)
    mine: dict[tuple[str, str, str], K8sObject] = {}
    for o in ours:
        mine.setdefault(o.key, o)
    theirs: dict[tuple[str, str, str], K8sObject] = {}
    for o in upstream:
        theirs.setdefault(o.key, o)
    for key, up in theirs.items():
        ref = up.ref
        if key not in mine:
            out.add(
                "fidelity-missing-object",
                ERROR,
                f"{ref}: missing",
                ref,
                file=f"{up.file}:{up.line}",
            )
            continue
        obj = mine[key]
        file = obj.where
        out.ours = obj
        up_data, our_data = _exempt(up), _exempt(obj)
        up_obj = K8sObject(up.file, up.index, up.line, up_data)
        if up.kind in _RBAC:
            _compare_rbac(up_obj, our_data, ref, file, out)
        elif up.kind == "ConfigMap":
            _compare_configmap(up_obj, our_data, ref, file, out)
        elif up.kind == "CustomResourceDefinition":
            _compare_crd(up_obj, our_data, ref, file, out)
        else:
            out.diffs(diff(up_data, our_data), ref, file)
        out.ours = None
    for key, obj in mine.items():
        if key not in theirs:
            out.add(
                "fidelity-extra-object",
                WARNING,
                f"{obj.ref}: not in upstream",
                obj.ref,
                file=obj.where,
            )
    return out.findings


# --- upstream input -------------------------------------------------------------------


def check_upstream_dir(directory: Path) -> None:
    """Refuse an upstream DIR that is missing or not a directory."""
    if not directory.exists():
        raise UpstreamError(
            "no such directory", file=str(directory), key="upstream", argument="upstream"
        )
    if not directory.is_dir():
        raise UpstreamError(
            "not a directory", file=str(directory), key="upstream", argument="upstream"
        )


def upstream_files(directory: Path, version: str) -> dict[str, Path] | None:
    """The upstream manifests of ``version`` by file name; None when DIR has no folder
    for it. A folder without calico.yaml is refused."""
    folder = directory / version
    if not folder.is_dir():
        return None
    if not (folder / CALICO_FILE).is_file():
        raise UpstreamError(f"upstream folder has no {CALICO_FILE}", file=str(folder / CALICO_FILE))
    return {name: folder / name for name in UPSTREAM_FILES if (folder / name).is_file()}


def load_upstream(path: Path) -> list[K8sObject]:
    """The objects of one upstream manifest. A document repeated across a tag's files
    (each CRD is in all three) is parsed once, by :func:`renderer.k8s.parse.parse_stream`'s
    per-document memo. Unreadable or unparsable input is UpstreamError."""
    name = str(path)
    try:
        return parse_stream(read_text(path), name)
    except InputError as exc:
        raise UpstreamError(
            exc.message, file=exc.file or name, line=exc.line, column=exc.column, key=exc.key
        ) from None


# --- one version ----------------------------------------------------------------------

#: Renders the version under test with extra context values (on the defaults, empty repo).
RenderFn = Callable[[Mapping[str, str]], list[K8sObject]]


@dataclass
class FidelityResult:
    """A version's comparison with upstream: ``status`` pass, fail, or skip when DIR
    has no upstream for the version (``note`` says so)."""

    upstream: str
    status: str
    scenarios: list[dict[str, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    note: str = ""
    #: Findings skipped as the tree's declared deviations from upstream.
    deviations: int = 0

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def to_dict(self) -> dict[str, Any]:
        """The summary the reports carry (the findings go with every other stage's)."""
        return {
            "upstream": self.upstream or None,
            "status": self.status,
            "scenarios": [dict(s) for s in self.scenarios],
            "errors": self.errors,
            "warnings": sum(1 for f in self.findings if f.severity == WARNING),
            "deviations": self.deviations,
            "note": self.note or None,
        }


def assess_fidelity(
    version: str,
    directory: Path,
    render: RenderFn,
    *,
    capable: bool,
    keys: frozenset[str],
) -> FidelityResult:
    """Compare a version with ``directory/<version>`` in each of its scenarios."""
    files = upstream_files(directory, version)
    if files is None:
        return FidelityResult("", "skip", note=f"{NO_UPSTREAM} in {directory}")
    chosen = scenarios_for(capable, keys, frozenset(files))
    if TYPHA_ON in chosen and TYPHA_FILE not in files:
        raise UpstreamError(
            f"upstream folder has no {TYPHA_FILE} for a Typha-capable version",
            file=str(directory / version / TYPHA_FILE),
        )
    found: list[Finding] = []
    scenarios = []
    for s in chosen:
        upstream = load_upstream(files[s.upstream_file])
        found.extend(compare_objects(render(s.values), upstream, scenario=s.name, version=version))
        scenarios.append({"name": s.name, "upstream_file": str(files[s.upstream_file])})
    merged = merge_findings(found, [s.name for s in chosen])
    status = "fail" if any(f.severity == ERROR for f in merged) else "pass"
    return FidelityResult(str(directory / version), status, scenarios, merged)
