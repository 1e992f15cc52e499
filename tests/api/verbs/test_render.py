"""The render verb: route, contexts, render, parse and checks, in one result."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from renderer import api
from renderer.checks import verdict as verdicts
from renderer.data.bundled import bundled_manifests
from renderer.errors import InputError, RefusedError
from renderer.manifests.tree import COMPONENT, resolve_version
from tests.clihelp import run
from tests.gatehelp import yes_label_tree


def test_render_601_nodes_has_typha_at_four_replicas() -> None:
    result = api.render(api.Request.of("v3.28", 601))
    assert result.version.name == "v3.28.2"
    assert result.context["allowTypha"] == "true" and result.context["typhaReplicas"] == "4"
    assert "  replicas: 4\n" in result.stream()


def test_capability_verdict_follows_template_content(tmp_path: Path) -> None:
    """The capability memo is keyed by content: an edited template is judged again."""
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    assert verdicts.typha_capability(resolve_version("v3.28.2", tmp_path))[0] is True
    assert api.render(api.Request.of("v3.28.2", 601, root=tmp_path)).decision.allow_typha

    (dst / "001-typha.yaml").write_text("{{/* Typha removed */}}")
    capable, missing = verdicts.typha_capability(resolve_version("v3.28.2", tmp_path))
    assert capable is False and any("Deployment calico-typha" in m for m in missing)
    with pytest.raises(RefusedError):
        api.render(api.Request.of("v3.28.2", 601, root=tmp_path))


def test_zero_nodes_render_as_the_controller_renders_a_cluster_without_bkenodes() -> None:
    result = api.render(api.Request.of("v3.28", 0))
    assert result.decision.context() == {"allowTypha": "false", "typhaReplicas": "0"}


@pytest.mark.parametrize("nodes", [-1, True, 1.5, "3", None])
def test_bad_node_count_is_input_error_naming_nodes(nodes: object) -> None:
    with pytest.raises(InputError) as exc:
        api.render(api.Request.of("v3.28", nodes))  # type: ignore[arg-type]
    assert exc.value.key == "nodes"
    with pytest.raises(InputError) as exc:
        api.plan(api.Request.of("v3.28", nodes))  # type: ignore[arg-type]
    assert exc.value.key == "nodes"
    if nodes is not None:  # from_nodes=None means "the same as nodes"
        with pytest.raises(InputError) as exc:
            api.plan(api.Request.of("v3.28", 3), from_nodes=nodes)  # type: ignore[arg-type]
        assert exc.value.key == "from_nodes"


@pytest.mark.parametrize("operation", ["bogus", "", None, 3])
def test_bad_operation_is_input_error_naming_operation(operation: object) -> None:
    with pytest.raises(InputError) as exc:
        api.render(api.Request.of("v3.28", 3, operation=operation))  # type: ignore[arg-type]
    assert exc.value.key == "operation" and "install" in exc.value.message


def test_a_schema_error_is_an_error_finding_and_nothing_is_to_be_written(tmp_path: Path) -> None:
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    (dst / "999-bad.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndta: {}\n"
    )
    result = api.render(api.Request.of("v3.28.2", 3, root=tmp_path, kube=["1.30"]))
    [bad] = result.errors
    assert bad.field == "dta" and bad.file == "kubernetes/calico/v3.28.2/999-bad.yaml"
    assert result.exit_code == 1


def test_a_changed_template_is_read_again_even_with_the_same_size_and_mtime(
    tmp_path: Path,
) -> None:
    src = bundled_manifests() / COMPONENT / "v3.28.2"
    dst = tmp_path / COMPONENT / "v3.28.2"
    shutil.copytree(src, dst)
    extra = dst / "999-extra.yaml"
    extra.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aaaa}\n")
    before = extra.stat()
    assert "name: aaaa" in api.render(api.Request.of("v3.28.2", 3, root=tmp_path)).stream()
    extra.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bbbb}\n")
    os.utime(extra, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert extra.stat().st_size == before.st_size
    assert extra.stat().st_mtime_ns == before.st_mtime_ns
    assert "name: bbbb" in api.render(api.Request.of("v3.28.2", 3, root=tmp_path)).stream()


def test_render_warns_once_when_the_version_is_not_release_ready(
    capsys: pytest.CaptureFixture[str],
) -> None:
    real = str(Path(__file__).parents[2] / "fixtures" / "bke-real")
    r = run(capsys, "--manifests", real, "--version", "v3.31.3", "--nodes", "601", "--no-validate")
    lines = [line for line in r.err.splitlines() if "release-ready" in line]
    assert r.code == 0 and len(lines) == 1 and "typha-anti-affinity" in lines[0]
    v = verdicts.verdict(api.resolve_version("v3.31.3", Path(real)))
    assert (v.capable, v.rule_errors, v.release_ready) == (True, ("typha-anti-affinity",), False)
    ok = run(capsys, "--version", "v3.31", "--nodes", "601", "--no-validate")
    assert ok.code == 0 and "release-ready" not in ok.err


def test_a_yaml_1_1_reading_is_a_warning_and_its_value_a_schema_error(tmp_path: Path) -> None:
    """The objects hold what the controller decodes (true), so the schema check judges
    that, at the label's template line, beside the warning naming both readings."""
    root = yes_label_tree(tmp_path)
    result = api.render(api.Request.of("v1.0.0", 3, root=root, kube=["1.30"]))
    [cm] = result.objects
    assert cm.data["metadata"]["labels"] == {"enabled": True}
    found = [
        (f.rule, f.severity, f.file, f.line, f.field)
        for f in result.findings
        if f.field == "metadata.labels.enabled"
    ]
    path = f"{COMPONENT}/v1.0.0/calico.yaml".replace("\\", "/")
    assert found == [
        ("yaml-1.1-reading", "warning", path, 8, "metadata.labels.enabled"),
        ("schema-invalid", "error", path, 8, "metadata.labels.enabled"),
    ]
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("exceptions", "ready"),
    [
        ("", False),
        (  # skipped, or downgraded: neither blocks the release any more
            "exceptions:\n  - rule: typha-anti-affinity\n    reason: reviewed\n",
            True,
        ),
        (
            "exceptions:\n  - rule: typha-anti-affinity\n    severity: warning\n"
            "    objects: ['Deployment kube-system/calico-typha']\n    reason: reviewed\n",
            True,
        ),
        (  # scoped to another object: the finding is not what was reviewed
            "exceptions:\n  - rule: typha-anti-affinity\n"
            "    objects: ['Deployment kube-system/other']\n    reason: reviewed\n",
            False,
        ),
    ],
)
def test_render_capability_and_check_agree_on_release_readiness_with_the_trees_exceptions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, exceptions: str, ready: bool
) -> None:
    """The same reviewed exceptions (ROOT/.calico-render.yaml), the same verdict."""
    real = Path(__file__).parents[2] / "fixtures" / "bke-real"
    shutil.copytree(real / COMPONENT, tmp_path / COMPONENT)
    if exceptions:
        (tmp_path / ".calico-render.yaml").write_text(exceptions)
    rendered = run(
        capsys,
        "--manifests",
        str(tmp_path),
        "--version",
        "v3.31.3",
        "--nodes",
        "601",
        "--no-validate",
    )
    assert rendered.code == 0
    assert ("is not release-ready" not in rendered.err) is ready
    report = api.capability("v3.31.3", root=tmp_path, kube_versions=("1.34",))
    assert report.release_ready is ready
    check = run(
        capsys, "check", str(tmp_path), "--kube-version", "1.34", "--jobs", "1", "--update-golden"
    )
    assert (check.code == 0) is ready


def _quoted_typha(tmp_path: Path) -> Path:
    """BKE's v3.31.3 with the Typha objects' names quoted: capable as rendered, not to
    BKE's controller, whose text search wants ``name: calico-typha`` unquoted."""
    real = Path(__file__).parents[2] / "fixtures" / "bke-real"
    shutil.copytree(real / COMPONENT, tmp_path / COMPONENT)
    template = tmp_path / COMPONENT / "v3.31.3" / "calico.yaml"
    text = template.read_text(encoding="utf-8")
    template.write_text(text.replace("name: calico-typha", 'name: "calico-typha"'), "utf-8")
    return tmp_path


def test_a_render_for_the_controller_routes_typha_as_its_text_search_does(tmp_path: Path) -> None:
    root = _quoted_typha(tmp_path)
    with pytest.raises(RefusedError) as refused:
        api.render(api.Request.of("v3.31.3", 51, root=root, controller=True))
    assert "'name: calico-typha'" in str(refused.value)
    upgrade = api.render(
        api.Request.of("v3.31.3", 51, root=root, operation="upgrade", controller=True)
    )
    assert upgrade.decision.context() == {"allowTypha": "false", "typhaReplicas": "0"}
    [disagrees] = [f for f in upgrade.findings if f.rule == "typha-controller-disagrees"]
    assert disagrees.severity == "error" and upgrade.exit_code == 1
    assert disagrees.file == "kubernetes/calico/v3.31.3/calico.yaml"
    # judged from the rendered objects, Typha is on; the disagreement is said all the same
    ours = api.render(api.Request.of("v3.31.3", 51, root=root))
    assert ours.decision.allow_typha and ours.exit_code == 1
    assert [f.rule for f in ours.findings if f.severity == "error"] == [
        "typha-controller-disagrees"
    ]


def test_a_config_render_is_the_controller_s(tmp_path: Path) -> None:
    request = api.Request.from_config(
        Path(__file__).parents[3] / "examples" / "bkecluster-601.yaml", nodes=601
    )
    assert request.controller
    assert not api.Request.of("v3.31", 601).controller
