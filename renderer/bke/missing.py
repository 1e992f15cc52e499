"""Keys a render context lacks, named where a template reads them.

Go's ``text/template`` with the controller's options prints ``<no value>`` for a missing
key, and a function given one fails the file ("invalid value; expected string"). Either
way the key is missing from the map the controller passed, and the question is whose
fault that is: when the controller sets the key for this addon, calico-render's context
is wrong (a bug of this tool); when it sets it only under a condition the BKECluster
does not meet, or never (only the addon's own param could), the template reads a key
it gets no value for and gives no default: the template is wrong.

Pure: rendered files, objects and contexts in, findings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from renderer.bke import TYPHA_KEYS, addons
from renderer.bke.context import CONTEXT_STAGE, CONTROLLER_DEFAULTS, ContextDetails
from renderer.errors import TemplateError
from renderer.finding import ERROR, WARNING, Finding, ObjectRef

if TYPE_CHECKING:
    from renderer.engine.render import RenderedFile
    from renderer.k8s.parse import K8sObject

MISSING_RULE = "context-missing-key"
#: What Go prints for a missing key.
NO_VALUE = "<no value>"

#: Who sets a missing key: the controller always (calico-render's context is wrong), the
#: controller under a condition this BKECluster does not meet, or only the addon's param.
CONTROLLER = "controller"
CONDITIONAL = "controller-conditional"
PARAM = "addon-param"

#: The common parameters the controller sets for every addon from a BKECluster, beyond
#: its defaults (:func:`renderer.bke.context.common_params`), and the condition of each
#: it sets only sometimes.
COMMON_KEYS: Mapping[str, str] = {
    **{key: "" for key, _ in CONTROLLER_DEFAULTS},
    **{f"imageRepo{k}": "" for k in ("", "Domain", "Port", "Ip", "Prefix")},
    **{f"httpRepo{k}": "" for k in ("", "Domain", "Port", "Ip", "Prefix")},
    **{key: "" for key in ("ntpServer", "agentHealthPort", "nfsServer", "nfsRootDir")},
    "nfsVersion": "",
    "etcdIps": "",
    "repo": "",
    "apiServerSrcHost": "when the BKECluster has spec.controlPlaneEndpoint.host",
    "etcdVersion": "when the BKECluster sets cluster.etcdVersion (admission fills it)",
    "containerdVersion": "when the BKECluster sets cluster.containerdVersion (admission fills it)",
}

#: ``at <.key.field>`` in Go's execution errors: the node that failed.
_AT_NODE = re.compile(r"at <([^>]*)>")
_FIELD = re.compile(r"(?<![\w$)\]])\.([A-Za-z_][A-Za-z0-9_]*)")


def supplier(key: str, addon: str, version: str, *, listed: bool) -> tuple[str, str]:
    """Who sets ``key`` (its first field) for ``addon`` at ``version``: one of
    :data:`CONTROLLER`, :data:`CONDITIONAL` (with the condition) or :data:`PARAM`."""
    top = key.split(".", 1)[0]
    if addon == "calico" and top in TYPHA_KEYS:
        return CONTROLLER, ""
    own = addons.supplied_keys(addon, version, listed=listed)
    condition = own.get(top, COMMON_KEYS.get(top))
    if condition is None:
        return PARAM, ""
    return (CONDITIONAL, condition) if condition else (CONTROLLER, "")


def _whose(key: str, addon: str, version: str, listed: bool) -> tuple[str, str]:
    """The supplier of ``key`` and the sentence saying whose fault its absence is."""
    kind, condition = supplier(key, addon, version, listed=listed)
    top = key.split(".", 1)[0]
    if kind == CONTROLLER:
        return kind, (
            f"BKE's controller sets {top} for {addon}, so calico-render's context lacks "
            "it (a bug of calico-render)"
        )
    if kind == CONDITIONAL:
        return kind, (
            f"BKE's controller sets {top} for {addon} only {condition}, and this "
            "BKECluster does not: the template reads it without a default"
        )
    which = f"does not list {addon}" if not listed else f"does not set it for {addon}"
    return kind, (
        f"BKE's controller never sets {top} for {addon}: only the addon's param {top} "
        f"can, and this BKECluster {which}; the template reads it without a default"
    )


def _finding(
    message: str,
    kind: str,
    key: str,
    addon: str,
    *,
    severity: str,
    file: str,
    line: int,
    obj: K8sObject | None = None,
    field: str = "",
) -> Finding:
    return Finding(
        MISSING_RULE,
        severity,
        message,
        stage=CONTEXT_STAGE,
        file=file,
        line=line,
        object=ObjectRef(obj.kind, obj.name, obj.namespace, obj.api_version) if obj else None,
        field=field,
        details=ContextDetails(key, addon=addon, supplier=kind),
    )


def failed_read(
    error: TemplateError,
    context: Mapping[str, Any],
    addon: str,
    version: str,
    *,
    listed: bool,
) -> Finding | None:
    """A file that failed on a key its context lacks (a function given ``<no value>``):
    the finding naming the key at the failing line; None for any other failure."""
    node = _AT_NODE.search(error.message)
    if node is None:
        return None
    missing = [k for k in _FIELD.findall(node.group(1)) if k not in context]
    if not missing:
        return None
    key = missing[0]
    kind, whose = _whose(key, addon, version, listed)
    return _finding(
        f"the template fails on .{key}, which its context lacks ({error.message}); {whose}",
        kind,
        key,
        addon,
        severity=ERROR,
        file=error.file or "",
        line=error.line or 0,
    )


def _paths(value: Any, path: str = "") -> Iterable[str]:
    """Field paths (``spec.replicas``, ``data.Corefile``) of ``value`` holding ``<no value>``."""
    if isinstance(value, dict):
        for k, v in value.items():
            here = f"{path}.{k}" if path else str(k)
            if NO_VALUE in str(k):
                yield here
            yield from _paths(v, here)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, f"{path}[{i}]")
    elif isinstance(value, str) and NO_VALUE in value:
        yield path


def no_value_reads(
    files: Sequence[RenderedFile],
    objects: Sequence[K8sObject],
    addon: str,
    version: str,
    *,
    listed: bool,
) -> list[Finding]:
    """Every ``<no value>`` an action printed into a rendered object, at the template
    line of the action, naming the key it read and whose fault its absence is. A
    ``<no value>`` in a comment, or in a document that is no object, is not reported.
    Warnings: the controller applies such an object (a typed field holding it fails the
    schema check, an error of its own); a file that fails on a missing key is an error
    (:func:`failed_read`), as it fails the controller's install."""
    by_file: dict[str, list[K8sObject]] = {}
    for obj in objects:
        by_file.setdefault(obj.file, []).append(obj)
    out: list[Finding] = []
    for f in files:
        found = sorted(by_file.get(f.name, ()), key=lambda o: o.line)
        spans = [p for p in f.printed if f.text[p.start : p.end] == NO_VALUE]
        if not found or not spans:
            continue
        paths = {id(o): list(_paths(o.data)) for o in found}
        for span in spans:
            rendered = f.text.count("\n", 0, span.start) + 1
            owner = next((o for o in reversed(found) if o.line <= rendered), None)
            if owner is None or not paths[id(owner)]:
                continue
            candidates = paths[id(owner)]
            field = next((p for p in candidates if owner.field_line(p) == span.line), "")
            if not field and len(candidates) == 1:
                field = candidates[0]
            kind, whose = _whose(span.key, addon, version, listed)
            out.append(
                _finding(
                    f"<no value> where the template prints .{span.key}: {whose}",
                    kind,
                    span.key.split(".", 1)[0],
                    addon,
                    severity=WARNING,
                    file=f.name,
                    line=span.line,
                    obj=owner,
                    field=field,
                )
            )
    return out
