"""Library API: what installer-service-style callers rely on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from renderer import api
from renderer.errors import InputError, RefusedError
from renderer.resources import bundled_manifests
from renderer.tree import COMPONENT, resolve_version


def test_render_601_nodes_has_typha_at_four_replicas() -> None:
    result = api.render("v3.28", 601)
    assert result.version.name == "v3.28.2"
    assert result.context["allowTypha"] == "true" and result.context["typhaReplicas"] == "4"
    assert "  replicas: 4\n" in result.stream()


def test_capability_verdict_follows_template_content(tmp_path: Path) -> None:
    """The capability memo is keyed by content: an edited template is judged again."""
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    assert api.typha_capability(resolve_version("v3.28.2", tmp_path))[0] is True
    assert api.render("v3.28.2", 601, root=tmp_path).decision.allow_typha

    (dst / "001-typha.yaml").write_text("# Typha removed\n")
    capable, missing = api.typha_capability(resolve_version("v3.28.2", tmp_path))
    assert capable is False and any("Deployment calico-typha" in m for m in missing)
    with pytest.raises(RefusedError):
        api.render("v3.28.2", 601, root=tmp_path)


@pytest.mark.parametrize("nodes", [0, -1, True, 1.5, "3", None])
def test_bad_node_count_is_input_error_naming_nodes(nodes: object) -> None:
    with pytest.raises(InputError) as exc:
        api.render("v3.28", nodes)  # type: ignore[arg-type]
    assert exc.value.key == "--nodes"
    with pytest.raises(InputError) as exc:
        api.plan("v3.28", nodes)  # type: ignore[arg-type]
    assert exc.value.key == "--nodes"
    if nodes is not None:  # from_nodes=None means "the same as nodes"
        with pytest.raises(InputError) as exc:
            api.plan("v3.28", 3, from_nodes=nodes)  # type: ignore[arg-type]
        assert exc.value.key == "--from-nodes"


@pytest.mark.parametrize("operation", ["bogus", "", None, 3])
def test_bad_operation_is_input_error_naming_operation(operation: object) -> None:
    with pytest.raises(InputError) as exc:
        api.render("v3.28", 3, operation=operation)  # type: ignore[arg-type]
    assert exc.value.key == "--operation" and "install" in exc.value.message
