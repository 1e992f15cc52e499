"""renderer/output/listed.py: the render of every listed addon and their images per role
as documents (text as the command line prints it; JSON checked against its schema)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_regressions.file_regression import FileRegressionFixture

from renderer import api, output
from renderer.data import schemas
from renderer.k8s.crd import Unchecked
from renderer.output.listed import (
    ADDON_IMAGES,
    AddonImagesDocument,
    ListedRenderDocument,
    unchecked_line,
)
from renderer.output.render_result import RENDER
from tests.listedhelp import listed_tree


def test_the_text_names_each_addon_in_order_with_what_it_found(
    tmp_path: Path, file_regression: FileRegressionFixture
) -> None:
    root, config = listed_tree(tmp_path)
    result = api.render_listed(config, root=root, nodes=3, kube=["1.33"])
    text = ListedRenderDocument("tree", result).text().replace(str(tmp_path), "<tmp>")
    file_regression.check(text, extension=".txt")
    data = json.loads(output.render("json", ListedRenderDocument("tree", result)))
    schemas.validate_output(RENDER, data)
    assert [a["status"] for a in data["addons"]] == [
        "rendered",
        "rendered",
        "skipped",
        "rendered",
        "failed",
        "rendered",
    ]
    assert (
        data["exit_code"] == 1 and data["addons"][1]["calico"]["decision"]["allowTypha"] == "false"
    )
    assert data["addons"][1]["not_checked"] == {
        "objects": 1,
        "kinds": ["FelixConfiguration crd.projectcalico.org/v1"],
    }


def test_the_images_of_each_addon_per_role(tmp_path: Path) -> None:
    root, config = listed_tree(tmp_path)
    found = api.listed_images(config, root=root, addons=["coredns", "kube-prometheus"])
    document = AddonImagesDocument(str(config), found)
    data = json.loads(output.render("json", document))
    schemas.validate_output(ADDON_IMAGES, data)
    chart, coredns = data["addons"]  # in the config's order
    assert (coredns["status"], chart["status"]) == ("rendered", "skipped")
    assert "Helm chart" in chart["reason"] and chart["images"] == {}
    assert coredns["images"]["etcd"] == [] and coredns["images"]["node"]
    lines = document.text().splitlines()
    assert lines[0].startswith("kube-prometheus v1: not rendered: a Helm chart")
    assert lines[1:3] == ["coredns v1.0.0:", "  master: (none)"]


def test_objects_no_crd_checked_are_counted_by_kind() -> None:
    found = Unchecked(6, ("Certificate cert-manager.io/v1", "Issuer cert-manager.io/v1"))
    assert unchecked_line(found) == (
        "not checked: 6 objects of 2 kinds without a CRD in the tree "
        "(Certificate cert-manager.io/v1, Issuer cert-manager.io/v1)"
    )
    assert unchecked_line(Unchecked(1, ("Widget example.com/v1",))).startswith(
        "not checked: 1 object of 1 kind without"
    )
