"""The default command: render a version for a node count."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from pytest_regressions.data_regression import DataRegressionFixture

from renderer import __version__
from renderer.output.render_result import RENDER
from tests.cli.jsondoc import json_doc
from tests.clihelp import one_error, run
from tests.listedhelp import listed_tree


def test_render_needs_version_and_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "v3.28")
    assert "--nodes" in one_error(r)  # a usage error names the flag it needs


def test_unknown_version_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "kubernetes" / "calico" / "v3.28.2").mkdir(parents=True)
    (tmp_path / "kubernetes" / "calico" / "v3.28.2" / "calico.yaml").write_text("a: 1\n")
    r = run(capsys, "--manifests", str(tmp_path), "--version", "v9.9", "--nodes", "3")
    message = one_error(r, file=tmp_path / "kubernetes" / "calico", key="--version")
    assert "'v9.9'" in message and "v3.28.2" in message  # the version and what is available


def test_an_unknown_bundled_version_names_the_bundled_tree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    r = run(capsys, "--version", "v9.9", "--nodes", "3")
    message = one_error(r, key="--version")
    assert "'v9.9' in the bundled tree" in message and "v3.28.2" in message
    assert "_data" not in r.err and "site-packages" not in r.err  # not where it is installed


def test_a_bad_version_is_quoted(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "../../etc", "--nodes", "3")
    one_error(r, key="--version '../../etc'")


def test_capital_v_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys, "--version", "V3.28", "--nodes", "3", "--no-validate")
    assert r.code == 0 and "Calico v3.28.2" in r.err


def test_no_arguments_print_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(capsys)
    assert r.code == 0 and r.out.startswith("Usage: calico-render ")


def test_output_dir_holds_a_file_per_template_of_the_stream(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    r = run(capsys, "--version", "v3.28.2", "--nodes", "60")
    assert r.code == 0
    out = tmp_path / "out"
    assert run(capsys, "--version", "v3.28.2", "--nodes", "60", "--output-dir", str(out)).code == 0
    written = sorted(p for p in out.iterdir() if p.suffix == ".yaml")
    assert [p.name for p in written] == ["000-crds.yaml", "001-typha.yaml", "002-calico.yaml"]
    sources = {line.split("/")[-1] for line in r.out.splitlines() if line.startswith("# Source:")}
    assert {p.name for p in written} <= sources


def test_output_dir_of_another_version_leaves_no_file_of_the_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``kubectl apply -f DIR`` must not mix two Calico versions; other files stay."""
    out = tmp_path / "out"
    assert run(capsys, "--version", "v3.28.2", "--nodes", "60", "--output-dir", str(out)).code == 0
    (out / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    assert run(capsys, "--version", "v3.27.3", "--nodes", "10", "--output-dir", str(out)).code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        ".calico-render-files",
        "calico.yaml",
        "kustomization.yaml",
    ]


@pytest.mark.parametrize("command", [[], ["advise"], ["explain-context"], ["images"]])
def test_a_misspelled_config_key_warns_and_is_exit_2_with_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """``clusterconfig:`` hides the calico addon from BKE: a warning naming file, line
    and key (then the one line saying there is no calico addon); bad input with
    --strict."""
    example = Path(__file__).parents[2] / "examples" / "bkecluster-601.yaml"
    config = tmp_path / "c.yaml"
    config.write_text(
        example.read_text(encoding="utf-8").replace("clusterConfig:", "clusterconfig:"),
        encoding="utf-8",
    )
    nodes = [] if command == ["images"] else ["--nodes", "5"]
    r = run(capsys, *command, "--config", str(config), *nodes)
    assert r.code == 0
    warning, no_calico = r.err.splitlines()
    assert warning == (
        f"calico-render: warning: {config}:10: spec.clusterconfig: unknown key (did you mean "
        "clusterConfig?): BKECluster defines no such field, so BKE drops it"
    )
    assert ("lists no addon" if command == [] else "no addon named calico") in no_calico
    r = run(capsys, *command, "--config", str(config), *nodes, "--strict")
    assert "did you mean clusterConfig?" in one_error(
        r, file=config, line=10, key="spec.clusterconfig"
    )


IPMOD_TREE = Path(__file__).resolve().parents[1] / "fixtures" / "bke-real-ipmod"


@pytest.mark.parametrize("mode", ["dual", "ipv6"])
def test_ip_mod_version_without_cluster_cidr_renders_as_the_controller(
    capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    """No config can set ClusterCidr: dual takes no branch of BKE's v3.27.3 (a warning),
    ipv6 prints <no value> there; neither is refused (Go's bytes: test_parity)."""
    r = run(capsys, "--manifests", str(IPMOD_TREE), "--version", "v3.27.3", "--nodes", "3",
            "--set", f"ipModVersion={mode}", "--no-validate")  # fmt: skip
    assert r.code == 0, r.err
    if mode == "dual":
        assert "'dual' takes none of those branches" in r.err
    else:
        assert 'value: "<no value>"' in r.out
        assert (
            "kubernetes/calico/v3.27.3/calico.yaml:4921: warning: [context-unreachable-key] "
            in r.err
        )


def test_values_from_stdin_reach_the_render(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--values -`` is read once: what stdin held is rendered (it was read twice, and
    the render got the empty second read)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"podSubnet: 10.9.0.0/16\n")))
    r = run(capsys, "--version", "v3.28", "--nodes", "3", "--values", "-", "--no-validate")
    assert r.code == 0, r.err
    assert "10.9.0.0/16" in r.out


def test_a_config_renders_every_listed_addon(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_regression: DataRegressionFixture
) -> None:
    """--config: every addon the BKECluster lists, in its order, each document headed by
    its addon, version and file; --addon narrows; --output-dir DIR/<addon>/<version>/;
    the JSON form has a section per addon (whole, kept for review)."""
    root, config = listed_tree(tmp_path / "tree")
    args = ("--manifests", str(root), "--config", str(config), "--nodes", "3")
    code, data = json_doc(capsys, RENDER, *args, "--kube-version", "1.33")
    assert code == 1  # clusterextra's Command fails bkeagent's CRD
    data_regression.check(
        json.loads(json.dumps(data).replace(str(tmp_path), "<tmp>").replace(__version__, "<v>"))
    )
    r = run(capsys, *args, "--addon", "calico", "--addon", "coredns", "--output-dir",
            str(tmp_path / "out"))  # fmt: skip
    assert r.code == 0 and r.out == ""
    written = sorted(
        p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.yaml")
    )
    assert written == [
        "calico/v9.1.0/001-typha.yaml",
        "calico/v9.1.0/002-calico.yaml",
        "coredns/v1.0.0/coredns.yaml",
    ]
    r = run(capsys, *args, "--addon", "coredns", "--addon", "kubeproxy")
    assert r.code == 0
    heads = [line for line in r.out.splitlines() if line.startswith("# Source:")]
    assert heads == ["# Source: kubeproxy/v1.0.0/kube-proxy.yaml"] + [
        "# Source: coredns/v1.0.0/coredns.yaml"
    ] * (len(heads) - 1)
    assert "calico-render: coredns v1.0.0: rendered, 1 file" in r.err.splitlines()
    assert "--config" in one_error(run(capsys, "--addon", "calico", "--version", "v3.28"))
