"""Loading version directories: semantic-version order and safe resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.errors import InputError
from renderer.manifests.tree import (
    list_addons,
    list_versions,
    resolve_version,
    template_name,
    tree_path,
)
import os
from renderer.manifests.tree import split_label, unit_label, unit_order


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "kubernetes" / "calico"
    for name in ("v3.28.9", "v3.28.10", "v3.29.0", "v3.9.1", "v3.28.2", "v3.28.10-rc1"):
        (base / name).mkdir(parents=True)
        (base / name / "calico.yaml").write_text("kind: ConfigMap\n")
    (base / "empty-dir").mkdir()
    (base / "v3.29.0" / "002-b.yaml").write_text("b\n")
    (base / "v3.29.0" / "001-a.j2").write_text("a\n")
    (base / "v3.29.0" / "README.md").write_text("not a template\n")
    return tmp_path


def test_versions_sort_by_semver_not_string(root: Path) -> None:
    assert [v.name for v in list_versions(root)] == [
        "v3.9.1",
        "v3.28.2",
        "v3.28.9",
        "v3.28.10-rc1",
        "v3.28.10",
        "v3.29.0",
    ]


def test_minor_resolves_to_newest_patch(root: Path) -> None:
    assert resolve_version("v3.28", root).name == "v3.28.10"
    assert resolve_version("3.28", root).name == "v3.28.10"
    assert resolve_version("v3.28.9", root).name == "v3.28.9"


def test_files_in_name_order_with_dialects(root: Path) -> None:
    v = resolve_version("v3.29.0", root)
    assert [(f.name, f.dialect) for f in v.files] == [
        ("001-a.j2", "jinja2"),
        ("002-b.yaml", "go"),
        ("calico.yaml", "go"),
    ]


def test_unknown_version_lists_what_exists(root: Path) -> None:
    with pytest.raises(InputError) as err:
        resolve_version("v3.30", root)
    assert "v3.28.10" in str(err.value) and "v3.9.1" in str(err.value)


@pytest.mark.parametrize("spec", ["../v3.28.2", "/etc", "v3.28/..", "..", "", "a/b"])
def test_version_is_never_a_path(root: Path, spec: str) -> None:
    with pytest.raises(InputError):
        resolve_version(spec, root)


def test_root_without_calico_dir_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        list_versions(tmp_path)
    assert err.value.file == str(tmp_path) and "kubernetes/calico/" in err.value.message


def test_template_linking_outside_root_is_refused(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    secret = tmp_path_factory.mktemp("outside") / "secret.yaml"
    secret.write_text("password: hunter2\n")
    (root / "kubernetes" / "calico" / "v3.29.0" / "003-x.yaml").symlink_to(secret)
    with pytest.raises(InputError) as err:
        list_versions(root)
    link = root / "kubernetes" / "calico" / "v3.29.0" / "003-x.yaml"
    assert err.value.file == str(link) and str(secret) in err.value.message  # where it points


def test_template_linking_inside_root_is_allowed(root: Path) -> None:
    base = root / "kubernetes" / "calico"
    (base / "v3.29.0" / "003-shared.yaml").symlink_to(base / "v3.28.2" / "calico.yaml")
    names = [f.name for f in resolve_version("v3.29.0", root).files]
    assert "003-shared.yaml" in names


def test_version_directory_linking_outside_root_is_refused(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "calico.yaml").write_text("password: hunter2\n")
    link = root / "kubernetes" / "calico" / "v3.99.0"
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError) as err:
        list_versions(root)
    assert err.value.file == str(link) and str(outside.resolve()) in err.value.message


def test_component_directory_linking_outside_root_is_refused(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "v3.28.2").mkdir()
    (outside / "v3.28.2" / "calico.yaml").write_text("kind: Secret\n")
    (tmp_path / "kubernetes").mkdir()
    (tmp_path / "kubernetes" / "calico").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError) as err:
        resolve_version("v3.28.2", tmp_path)
    assert err.value.file == str(tmp_path / "kubernetes" / "calico")
    assert str(outside.resolve()) in err.value.message


def test_version_directory_linking_inside_root_is_allowed(root: Path) -> None:
    base = root / "kubernetes" / "calico"
    (base / "v3.30.0").symlink_to(base / "v3.29.0", target_is_directory=True)
    assert [f.name for f in resolve_version("v3.30.0", root).files][-1] == "calico.yaml"


@pytest.mark.parametrize(
    "name", ["002-x.yaml\n---\nkind: Secret\n#.yaml", "003-\x1b[2J.yaml", "004-\u2028.yaml"]
)
def test_template_names_must_be_printable(root: Path, name: str) -> None:
    (root / "kubernetes" / "calico" / "v3.29.0" / name).write_text("a: b\n")
    with pytest.raises(InputError) as err:
        list_versions(root)
    assert "\n" not in str(err.value) and err.value.file is not None
    assert err.value.file.endswith("v3.29.0")


def test_version_directory_names_must_be_printable(root: Path) -> None:
    (root / "kubernetes" / "calico" / "v3.30\n.0").mkdir()
    with pytest.raises(InputError) as err:
        list_versions(root)
    assert "\n" not in str(err.value)


def test_link_loop_is_bad_input(root: Path) -> None:
    loop = root / "kubernetes" / "calico" / "v3.29.0" / "loop.yaml"
    loop.symlink_to(loop)
    with pytest.raises(InputError):
        list_versions(root)


def test_unreadable_version_directory_is_bad_input(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "kubernetes" / "calico" / "v3.29.0"
    real_iterdir = Path.iterdir

    def iterdir(self: Path):  # type: ignore[no-untyped-def]
        if self == target:
            raise PermissionError(13, "Permission denied", str(self))
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    with pytest.raises(InputError) as err:
        list_versions(root)
    assert err.value.file == str(target) and "Permission denied" in err.value.message


def test_unreadable_version_directory_chmod(root: Path) -> None:
    target = root / "kubernetes" / "calico" / "v3.29.0"
    target.chmod(0)
    try:
        if os.access(target, os.R_OK):
            pytest.skip("running with privileges that read any directory")
        with pytest.raises(InputError) as err:
            list_versions(root)
        assert err.value.file == str(target)
    finally:
        target.chmod(0o755)


def test_walk_is_the_controllers_recursive_yaml_only_by_path(tmp_path: Path) -> None:
    """``filepath.Walk`` then sort by path: subdirectories count, ``.yml`` and ``.YAML``
    do not, a directory named ``*.yaml`` is walked into, never rendered."""
    v = tmp_path / "kubernetes" / "calico" / "v1.0.0"
    for rel in ("b.yaml", "a/z.yaml", "a-b.yaml", "a/sub/x.yaml", "c.yml", "a/d.yml",
                "E.YAML", "dir.yaml/in.yaml", "t.j2", "a/.hidden.yaml"):  # fmt: skip
        (v / rel).parent.mkdir(parents=True, exist_ok=True)
        (v / rel).write_text("kind: ConfigMap\n")
    version = resolve_version("v1.0.0", tmp_path)
    assert [(f.name, f.dialect) for f in version.files] == [
        ("a-b.yaml", "go"),  # "-" sorts before "/", as Go's sort.Strings on full paths
        ("a/.hidden.yaml", "go"),
        ("a/sub/x.yaml", "go"),
        ("a/z.yaml", "go"),
        ("b.yaml", "go"),
        ("dir.yaml/in.yaml", "go"),
        ("t.j2", "jinja2"),
    ]
    assert version.files[2].display == "v1.0.0/a/sub/x.yaml"
    assert version.files[2].path == v / "a" / "sub" / "x.yaml"


def test_a_linked_directory_is_not_walked(tmp_path: Path) -> None:
    """``filepath.Walk`` does not follow a link to a directory."""
    v = tmp_path / "kubernetes" / "calico" / "v1.0.0"
    (v / "real").mkdir(parents=True)
    (v / "real" / "a.yaml").write_text("kind: ConfigMap\n")
    (v / "link").symlink_to(v / "real", target_is_directory=True)
    assert [f.name for f in resolve_version("v1.0.0", tmp_path).files] == ["real/a.yaml"]


# --- every addon ----------------------------------------------------------------------


@pytest.fixture
def addons_root(tmp_path: Path) -> Path:
    """Three addons as bke-manifests lays them out: versions that are no semantic
    versions, a script name with an underscore, subdirectories, cluster-api's manage file."""
    base = tmp_path / "kubernetes"
    files = {
        "coredns/v1.10.1/coredns.yaml": "a: {{ .dnsIP }}\n",
        "coredns/v1.9.3/coredns.yaml": "a: b\n",
        "coredns/latest/sub/x.yaml": "a: b\n",
        "coredns/latest/README.md": "not a template\n",
        "clusterextra/clean_docker_images.py/agent-command.yaml": "a: b\n",
        "clusterextra/2023-04-20/extra.yaml": "a: b\n",
        "cluster-api/v1.4.3/002-cluster-api.yaml": "a: b\n",
        "cluster-api/v1.4.3/003-manage.yaml": "a: b\n",
        "cluster-api/v1.4.3/sub/003-manage.yaml": "a: b\n",
    }
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)
    (base / "README.md").write_text("a file beside the addons\n")
    return tmp_path


def test_addons_are_listed_by_name(addons_root: Path) -> None:
    assert list_addons(addons_root) == ("cluster-api", "clusterextra", "coredns")


def test_an_addons_versions_sort_semantic_first_then_by_name(addons_root: Path) -> None:
    names = [v.name for v in list_versions(addons_root, "coredns")]
    assert names == ["v1.9.3", "v1.10.1", "latest"]
    extra = [v.name for v in list_versions(addons_root, "clusterextra")]
    assert extra == ["2023-04-20", "clean_docker_images.py"]


def test_an_addons_files_are_the_controllers_walk_named_after_the_addon(
    addons_root: Path,
) -> None:
    v = resolve_version("latest", addons_root, "coredns")
    assert (v.addon, [(f.name, f.template) for f in v.files]) == (
        "coredns",
        [("sub/x.yaml", "coredns")],
    )
    assert resolve_version("v1.10", addons_root, "coredns").name == "v1.10.1"


def test_cluster_apis_manage_file_is_parsed_under_the_name_of_its_phase(
    addons_root: Path,
) -> None:
    """A create applies the top-level 003-manage.yaml later, as cluster-api-manage; one
    in a subdirectory is left out of the create and never read by that phase."""
    v = resolve_version("v1.4.3", addons_root, "cluster-api")
    assert [(f.name, f.template) for f in v.files] == [
        ("002-cluster-api.yaml", "cluster-api"),
        ("003-manage.yaml", "cluster-api-manage"),
        ("sub/003-manage.yaml", "cluster-api"),
    ]
    assert template_name("calico", "003-manage.yaml") == "calico"


def test_calico_stays_what_a_caller_naming_no_addon_means(root: Path) -> None:
    v = resolve_version("v3.28.2", root)
    assert (v.addon, v.files[0].template) == ("calico", "calico")


def test_an_unknown_addon_version_names_the_addon(addons_root: Path) -> None:
    with pytest.raises(InputError) as err:
        resolve_version("v9", addons_root, "coredns")
    assert "unknown coredns version 'v9'" in err.value.message and "v1.10.1" in err.value.message


@pytest.mark.parametrize("addon", ["../calico", "a/b", "..", "", ".hidden"])
def test_an_addon_is_never_a_path(addons_root: Path, addon: str) -> None:
    with pytest.raises(InputError) as err:
        list_versions(addons_root, addon)
    assert err.value.argument == "addon"


def test_a_missing_addon_is_bad_input_naming_its_directory(addons_root: Path) -> None:
    with pytest.raises(InputError) as err:
        list_versions(addons_root, "prometheus")
    assert "kubernetes/prometheus/" in err.value.message


def test_an_addon_directory_linking_outside_root_is_refused(
    addons_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "v1" / "x.yaml").parent.mkdir()
    (outside / "v1" / "x.yaml").write_text("kind: Secret\n")
    (addons_root / "kubernetes" / "evil").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError) as err:
        list_addons(addons_root)
    assert str(outside.resolve()) in err.value.message


def test_addon_names_must_be_printable(addons_root: Path) -> None:
    (addons_root / "kubernetes" / "bad\nname").mkdir()
    with pytest.raises(InputError) as err:
        list_addons(addons_root)
    assert "\n" not in str(err.value)


def test_a_root_without_kubernetes_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        list_addons(tmp_path)
    assert err.value.file == str(tmp_path) and "kubernetes/" in err.value.message


def test_findings_of_an_addon_are_located_in_its_directory() -> None:
    assert tree_path("v1.10.1", ["coredns.yaml"], "v1.10.1/coredns.yaml", "coredns") == (
        "kubernetes/coredns/v1.10.1/coredns.yaml"
    )
    assert tree_path("v3.28.2", ["calico.yaml"], "calico.yaml") == (
        "kubernetes/calico/v3.28.2/calico.yaml"
    )


def test_a_version_of_another_addon_is_labelled_with_its_addon() -> None:
    assert unit_label("calico", "v3.31.3") == "v3.31.3"
    assert unit_label("coredns", "v1.8.0") == "coredns/v1.8.0"
    assert split_label("coredns/v1.8.0") == ("coredns", "v1.8.0")
    assert split_label("v3.31.3") == ("calico", "v3.31.3")
    labels = ["coredns/v1.10.1", "argo/latest", "v3.31.3", "coredns/v1.8.0", "v3.25.0"]
    assert sorted(labels, key=unit_order) == [
        "v3.25.0",
        "v3.31.3",
        "argo/latest",
        "coredns/v1.8.0",
        "coredns/v1.10.1",
    ]
