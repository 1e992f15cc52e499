"""Stage 4, parse YAML: rendered text to Kubernetes objects with their origin.

Each object remembers its file, document index and first line, so every later finding
(rule, schema, golden diff) can point at where it came from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .yamlio import load_all, split_documents


@dataclass(frozen=True)
class K8sObject:
    """One rendered Kubernetes object."""

    file: str
    index: int
    line: int
    data: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.data.get("apiVersion", ""))

    @property
    def name(self) -> str:
        meta = self.data.get("metadata")
        return str(meta.get("name", "")) if isinstance(meta, dict) else ""

    @property
    def namespace(self) -> str:
        meta = self.data.get("metadata")
        return str(meta.get("namespace", "") or "") if isinstance(meta, dict) else ""

    @property
    def ref(self) -> str:
        """``Kind namespace/name`` (or ``Kind name`` when cluster-scoped)."""
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)


def parse_stream(text: str, file: str) -> list[K8sObject]:
    """Objects of one rendered file; empty documents are dropped, non-mappings refused."""
    objects: list[K8sObject] = []
    index = 0
    for start, chunk in split_documents(text):
        if not chunk.strip():
            continue
        for doc in load_all(chunk, file, line_offset=start - 1):
            if doc is None:
                continue
            if not isinstance(doc, dict):
                raise InputError(
                    f"document is a {type(doc).__name__}, not a Kubernetes object",
                    file=file,
                    line=start,
                )
            if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
                for item in doc["items"]:
                    if isinstance(item, dict):
                        objects.append(K8sObject(file, index, start, item))
                        index += 1
                continue
            objects.append(K8sObject(file, index, start, doc))
            index += 1
    return objects


def parse_files(files: Iterable[tuple[str, str]]) -> list[K8sObject]:
    """Objects of several (name, text) files, in order."""
    out: list[K8sObject] = []
    for name, text in files:
        out.extend(parse_stream(text, name))
    return out
