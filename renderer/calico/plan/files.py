"""A plan as files: one manifest per phase, named in order, and ``plan.json``.

``NN-name.apply.yaml`` holds the target's own document text of every object the phase
applies (comments kept); ``NN-name.delete.yaml`` a stub of each object it deletes,
enough for ``kubectl delete -f``. Every file starts with the phase and its gate, as
comments of its first document: a document of comments alone is one BKE's controller
(and apimachinery's decoder anywhere) fails on.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from typing import Any

from renderer.calico.plan.model import ObjectRef, Phase, Plan
from renderer.engine.render import RenderedFile
from renderer.errors import TemplateError
from renderer.k8s.parse import K8sObject, parse_stream
from renderer.k8s.yamlio import split_documents

#: A rendered object's document text, by :attr:`ObjectRef.key`.
Texts = Mapping[tuple[str, str, str], str]


def delete_stub(ref: ObjectRef) -> str:
    """Enough of an object for ``kubectl delete -f``."""
    ns = f"  namespace: {ref.namespace}\n" if ref.namespace else ""
    return f"apiVersion: {ref.api_version}\nkind: {ref.kind}\nmetadata:\n  name: {ref.name}\n{ns}"


def _header(number: int, phase: Phase) -> str:
    return (
        f"# phase {number}: {phase.name}: {phase.description}\n"
        f"# gate: {phase.gate.description}\n#   $ {phase.gate.command}\n"
    )


def _joined(head: str, docs: list[str]) -> str:
    """``docs`` as one stream, ``head`` opening the first."""
    return "---\n" + head + "".join(f"---\n{d}" for d in docs)[4:]


def plan_files(plan: Plan, texts: Texts, data: Mapping[str, Any]) -> dict[str, str]:
    """One manifest per phase (``NN-name.apply.yaml``, ``NN-name.delete.yaml``), in
    order, then ``plan.json`` holding ``data`` (the plan as published)."""
    out: dict[str, str] = {}
    for number, phase in plan.numbered():
        head = _header(number, phase)
        stem = f"{number:02d}-{phase.name}"
        if phase.apply:
            out[f"{stem}.apply.yaml"] = _joined(head, [texts[r.key] for r in phase.apply])
        if phase.delete:
            out[f"{stem}.delete.yaml"] = _joined(head, [delete_stub(r) for r in phase.delete])
    out["plan.json"] = json.dumps(data, indent=2) + "\n"
    return out


def _check_identity(obj: K8sObject) -> None:
    for key, value in (("kind", obj.kind), ("metadata.name", obj.name)):
        if not value:
            raise TemplateError(
                "a rendered object needs a kind and a name to be planned",
                file=obj.file,
                line=obj.source_line or obj.line,
                key=key,
            )


def objects_with_text(files: list[RenderedFile]) -> list[tuple[K8sObject, str]]:
    """Rendered objects with their own document text (comments kept).

    Objects sharing one document (a List) fall back to JSON, which is valid YAML.
    """
    out: list[tuple[K8sObject, str]] = []
    for f in files:
        objects = parse_stream(f.text, f.name, lines=f.lines)
        for obj in objects:
            _check_identity(obj)
        chunks = list(split_documents(f.text))
        starts = [start for start, _ in chunks]
        # the ``---``-separated document holding each object's first line
        where = [bisect.bisect_right(starts, obj.line) - 1 for obj in objects]
        for obj, i in zip(objects, where, strict=True):
            if i >= 0 and where.count(i) == 1:
                text = chunks[i][1].strip("\n") + "\n"
            else:
                text = json.dumps(obj.data, indent=2) + "\n"
            out.append((obj, text))
    return out
