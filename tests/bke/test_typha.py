"""BKE's controller decides Typha by a text search of the templates: what it finds,
what it misses, and where."""

from __future__ import annotations

from pathlib import Path

from renderer.bke.typha import search
from renderer.manifests.tree import list_versions, resolve_version
from tests.gatehelp import write_tree

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "bke-real"

CAPABLE = """\
# allowTypha typhaReplicas
kind: Deployment
metadata: {name: calico-typha}
---
kind: Service
---
kind: PodDisruptionBudget
# typha_service_name FELIX_TYPHAK8SSERVICENAME
"""


def test_the_released_typha_templates_pass_and_the_others_fail() -> None:
    assert search(resolve_version("v3.31.3", REAL)).capable
    verdicts = {v.name: search(v).capable for v in list_versions()}
    assert verdicts == {
        "v3.25.0": False,
        "v3.27.3": False,
        "v3.28.2": True,
        "v3.29.3": True,
        "v3.31.3": True,
    }


def test_strings_in_comments_count_and_quoted_ones_do_not(tmp_path: Path) -> None:
    root = write_tree(tmp_path, "v1.0.0", {"a.yaml": CAPABLE})
    found = search(resolve_version("v1.0.0", root))
    assert found.capable  # every string sits in a comment or a flow mapping: text is text
    quoted = write_tree(
        tmp_path / "q",
        "v1.0.0",
        {"a.yaml": CAPABLE.replace("{name: calico-typha}", '{name: "calico-typha"}')},
    )
    missed = search(resolve_version("v1.0.0", quoted))
    assert missed.missing == ("name: calico-typha",)


def test_each_string_is_located_at_its_first_file_and_line(tmp_path: Path) -> None:
    root = write_tree(tmp_path, "v1.0.0", {"a.yaml": "x: 1\n", "b.yaml": CAPABLE})
    found = {f.text: (f.file, f.line) for f in search(resolve_version("v1.0.0", root)).found}
    assert found["allowTypha"] == ("b.yaml", 1)
    assert found["kind: PodDisruptionBudget"] == ("b.yaml", 7)
