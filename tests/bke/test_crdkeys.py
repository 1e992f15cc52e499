"""Keys BKE's CRDs do not define (renderer/bke/crdkeys.py): a misspelled key of a
BKECluster or BKENode is named with its file, line and the nearest field."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from renderer.bke import crdkeys
from renderer.data.bundled import schema_path
from tests.bke.crdfields import derive_schema

EXAMPLES = Path(__file__).parents[2] / "examples"
MIRROR = Path("/work/.mirror/javadoors+cluster-api-provider-bke/repo")


def _keys(tmp_path: Path, text: str) -> list[tuple[int | None, str, str | None]]:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    return [(k.line, k.path, k.suggestion) for k in crdkeys.file_unknown_keys(path)]


CLUSTER = (EXAMPLES / "bkecluster-601.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("clusterConfig:", "clusterconfig:", (10, "spec.clusterconfig", "clusterConfig")),
        ("    addons:", "    addon:", (22, "spec.clusterConfig.addon", "addons")),
        ("imageRepo:", "imageRpo:", (13, "spec.clusterConfig.cluster.imageRpo", "imageRepo")),
        (
            "        block: true\n        param:",
            "        blok: true\n        param:",
            (29, "spec.clusterConfig.addons[1].blok", "block"),
        ),
        ("metadata:", "metdata:", (6, "metdata", "metadata")),
    ],
)
def test_a_misspelled_key_is_named_with_its_line_and_the_nearest_field(
    tmp_path: Path, old: str, new: str, expected: tuple[int, str, str]
) -> None:
    assert CLUSTER.count(old) == 1
    assert _keys(tmp_path, CLUSTER.replace(old, new)) == [expected]


def test_maps_and_metadata_are_open_and_the_examples_are_clean(tmp_path: Path) -> None:
    """Addon params, customExtra and metadata take any key; the shipped examples use
    only defined fields."""
    extra = CLUSTER.replace(
        "          calicoMode: vxlan", "          calicoMode: vxlan\n          anyParam: x"
    ).replace("  namespace: bke-large", "  namespace: bke-large\n  labels: {a: b}")
    assert _keys(tmp_path, extra) == []
    for example in sorted(EXAMPLES.glob("*.yaml")):
        assert crdkeys.file_unknown_keys(example) == [], example


def test_bke_nodes_in_a_list_and_a_bare_bke_config(tmp_path: Path) -> None:
    nodes = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "  - {apiVersion: bke.bocloud.com/v1beta1, kind: BKENode, metadata: {name: n1},\n"
        "     spec: {ip: 10.0.0.1, roles: [node]}}\n"
    )
    assert _keys(tmp_path, nodes) == [(5, "items[0].spec.roles", "role")]
    config = "apiVersion: bke.bocloud.com/v1beta1\nkind: BKEConfig\nspec:\n  adons: []\n"
    assert _keys(tmp_path, config) == [(4, "spec.adons", "addons")]


def test_the_message_names_file_line_key_and_the_nearest_field(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CLUSTER.replace("clusterConfig:", "clusterconfig:"), encoding="utf-8")
    (found,) = crdkeys.file_unknown_keys(path)
    assert str(found).startswith(
        f"{path}:10: spec.clusterconfig: unknown key (did you mean clusterConfig?): "
    )


@pytest.mark.skipif(not MIRROR.is_dir(), reason="the controller's git mirror is not here")
def test_the_schema_states_the_fields_of_bkes_crds() -> None:
    """schemas/bke-fields.schema.json is derived from the controller's CRDs (regenerate
    with tests/bke/crdfields.py when they change)."""

    def show(name: str) -> str:
        return subprocess.run(
            ["git", "-C", str(MIRROR), "show", f"HEAD:config/crd/bases/{name}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    stored = json.loads(schema_path(crdkeys.SCHEMA).read_text(encoding="utf-8"))
    commit = stored["description"].split("commit ")[1].split(")")[0]
    derived = derive_schema(
        show("bke.bocloud.com_bkeclusters.yaml"), show("bke.bocloud.com_bkenodes.yaml"), commit
    )
    assert derived["$defs"] == stored["$defs"]
