"""The ``yaml-1.1-reading`` rule: a plain scalar BKE's controller reads otherwise than
YAML 1.2 does.

The controller decodes rendered manifests as YAML 1.1 (go-yaml v2), so ``enabled: yes``
gives the cluster the boolean true and ``mode: 010`` the number 8, where a reader of
the text, or a YAML 1.2 tool, sees the string "yes" and the number 10. The objects
carry the controller's reading, so the schema check judges what the cluster receives
(a boolean label value is a schema error); this warning says, at the scalar's template
line, which reading that is and what YAML 1.2 would have read.
"""

from __future__ import annotations

from collections.abc import Iterable

from renderer.finding import SCHEMA, WARNING, Finding, ObjectRef
from renderer.k8s.parse import K8sObject, Reading

#: The rule id (its stage is :data:`renderer.finding.SCHEMA`).
RULE = "yaml-1.1-reading"
#: What the rule checks, as ``calico-render rules`` lists it.
DESCRIPTION = "a plain scalar BKE's controller (YAML 1.1) reads otherwise than YAML 1.2"


def field_path(path: tuple[str | int, ...]) -> str:
    """A reading's place as findings write a field: ``spec.containers[0].image``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def message(reading: Reading) -> str:
    """What the reading is, and what YAML 1.2 reads instead."""
    what = "key" if reading.key else "value"
    said = (
        f"{what} `{reading.text}` is {reading.yaml11} to BKE's controller (YAML 1.1), "
        f"{reading.yaml12} in YAML 1.2"
    )
    return said + ("; quote it to keep the string" if reading.yaml12.startswith('"') else "")


def reading_findings(objects: Iterable[K8sObject]) -> list[Finding]:
    """A warning per reading of ``objects``, at its template line (its rendered line
    when the text has no source map), in file and line order."""
    out = [
        Finding(
            RULE,
            WARNING,
            message(r),
            stage=SCHEMA,
            object=ObjectRef(o.kind, o.name, o.namespace, o.api_version),
            field=field_path(r.path),
            file=o.file,
            line=r.source_line or r.line,
            rendered_line=r.line,
        )
        for o in objects
        for r in o.readings
    ]
    return sorted(out, key=lambda f: (f.file, f.line, f.field))
