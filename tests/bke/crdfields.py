"""How ``schemas/bke-fields.schema.json`` is derived from BKE's CRDs: the field names of
each object, and nothing else (types and values are the input schema's business)."""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML


def _fields(node: dict[str, Any]) -> dict[str, Any]:
    """A CRD schema node reduced to its field names: objects with properties are closed,
    maps (``additionalProperties``) and bare objects open, arrays by their items."""
    if node.get("type") == "array":
        inner = _fields(node.get("items") or {})
        return {"type": "array", "items": inner} if inner else {"type": "array"}
    props = node.get("properties")
    if props:
        return {
            "type": "object",
            "properties": {k: _fields(v) for k, v in sorted(props.items())},
            "additionalProperties": False,
        }
    return {"type": "object"} if node.get("type") == "object" else {}


def _root(crd_text: str) -> dict[str, Any]:
    crd = YAML(typ="safe").load(crd_text)
    (version,) = crd["spec"]["versions"]
    return _fields(version["schema"]["openAPIV3Schema"])


def derive_schema(cluster_crd: str, node_crd: str, commit: str) -> dict[str, Any]:
    """The schema file's content from the BKECluster and BKENode CRDs' text."""
    cluster, node = _root(cluster_crd), _root(node_crd)
    config = {
        "type": "object",
        "properties": {
            **{k: cluster["properties"][k] for k in ("apiVersion", "kind", "metadata")},
            "spec": cluster["properties"]["spec"]["properties"]["clusterConfig"],
        },
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "bke-fields.schema.json",
        "title": "The fields BKE's objects define",
        "description": (
            "Every field name of a BKECluster and a BKENode as BKE's CustomResourceDefinitions "
            "declare them (config/crd/bases of cluster-api-provider-bke, commit "
            f"{commit}), and of bkeadm's BKEConfig (a BKECluster's spec.clusterConfig "
            "as its spec). A key a closed object does not list is one the API server drops: "
            "calico-render warns naming it. Maps (addon params, customExtra, extraArgs) and "
            "metadata are open."
        ),
        "$defs": {"BKECluster": cluster, "BKEConfig": config, "BKENode": node},
    }
