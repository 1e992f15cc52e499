"""No silent drops: user-given params a version never reads, or whose value takes no
branch, are warnings (rule, key, value), and exit 2 with --strict."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer import api
from renderer.bke import context as bke
from renderer.bke.unread import PARAM_UNREAD, PARAM_VALUE_UNMATCHED, check_params, did_you_mean
from renderer.manifests.tree import resolve_version
from tests.clihelp import run

REAL = Path(__file__).parents[1] / "fixtures" / "bke-real"
IP_TEMPLATE = (
    "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: x\ndata:\n"
    '{{- if eq .ipModVersion "ipv4" }}\n  ip: "4"\n'
    '{{- else if eq .ipModVersion "ipv6" }}\n  ip: "6"\n{{- end }}\n'
    '  mode: {{ if eq .calicoMode "vxlan" }}vxlan{{ else }}ipip{{ end }}\n'
)


def _user(**params: str) -> tuple[bke.Param, ...]:
    return tuple(bke.Param(k, v, bke.USER, f"--set {k}") for k, v in params.items())


def _found(warnings: list) -> set[tuple[str, str, str]]:  # type: ignore[type-arg]
    return {(w.rule, w.key, w.value) for w in warnings}


@pytest.fixture
def ip_tree(tmp_path: Path) -> Path:
    version = tmp_path / "kubernetes" / "calico" / "v1.0.0"
    version.mkdir(parents=True)
    (version / "calico.yaml").write_text(IP_TEMPLATE)
    return tmp_path


def test_a_typo_is_unread_with_a_suggestion() -> None:
    (w,) = check_params(resolve_version("v3.31"), _user(calicomode="ipip"))
    assert (w.rule, w.key, w.value, w.version, w.suggestion) == (
        PARAM_UNREAD,
        "calicomode",
        "ipip",
        "v3.31.3",
        "calicoMode",
    )


def test_bke_real_v3_31_3_reads_neither_calico_mode_nor_pod_subnet() -> None:
    found = check_params(
        resolve_version("v3.31.3", REAL), _user(calicoMode="vxlan", podSubnet="10.96.0.0/12")
    )
    assert _found(found) == {
        (PARAM_UNREAD, "calicoMode", "vxlan"),
        (PARAM_UNREAD, "podSubnet", "10.96.0.0/12"),
    }


def test_a_value_no_branch_takes(ip_tree: Path) -> None:
    vdir = resolve_version("v1.0.0", ip_tree)
    (w,) = check_params(vdir, _user(ipModVersion="dual"))
    assert (w.rule, w.key, w.value) == (PARAM_VALUE_UNMATCHED, "ipModVersion", "dual")
    assert "'ipv4', 'ipv6'" in w.message
    assert check_params(vdir, _user(ipModVersion="ipv6")) == []
    # an if-else takes its else for any other value: said, with the else's line
    (w,) = check_params(vdir, _user(calicoMode="bgp"))
    assert (w.rule, w.key, w.value) == (PARAM_VALUE_UNMATCHED, "calicoMode", "bgp")
    assert "('vxlan')" in w.message and "the else branches render instead (calico.yaml:11)" in (
        w.message
    )


def test_a_value_none_of_the_compared_ones_names_the_else_it_takes() -> None:
    (w,) = check_params(resolve_version("v3.31"), _user(calicoMode="carrier-pigeon"))
    assert (w.rule, w.key, w.value) == (PARAM_VALUE_UNMATCHED, "calicoMode", "carrier-pigeon")
    assert "('bgp', 'vxlan')" in w.message and "else branches render" in w.message
    assert "002-calico.yaml:79" in w.message  # the IPIP pool settings
    assert check_params(resolve_version("v3.31"), _user(calicoMode="vxlan")) == []


def test_per_file_params_count_for_their_file_only() -> None:
    vdir = resolve_version("v3.31")
    params = _user(**{"001-typha.calicoMode": "vxlan", "002-calico.calicoMode": "vxlan"})
    assert _found(check_params(vdir, params)) == {(PARAM_UNREAD, "001-typha.calicoMode", "vxlan")}


def test_only_user_given_values_are_judged() -> None:
    defaults = bke.without_config().params  # bkeadm's calicoMode, ipAutoDetectionMethod
    unread = (bke.Param("nothingReadsThis", "x", bke.BKEADM_DEFAULT, "bkeadm"),)
    assert check_params(resolve_version("v3.31.3", REAL), (*defaults, *unread)) == []
    config = (bke.Param("podSubnet", "10.96.0.0/12", bke.ADDON_PARAM, "addon.param.podSubnet"),)
    assert _found(check_params(resolve_version("v3.31.3", REAL), config)) == {
        (PARAM_UNREAD, "podSubnet", "10.96.0.0/12")
    }


def test_render_result_carries_them() -> None:
    result = api.render(api.Request.of("v3.31", 3, values={"calicomode": "ipip"}))
    assert [(w.rule, w.key) for w in result.param_warnings] == [(PARAM_UNREAD, "calicomode")]
    assert api.render(api.Request.of("v3.31", 3)).param_warnings == ()


def test_did_you_mean() -> None:
    assert did_you_mean("calicomode", {"calicoMode", "repo"}) == "calicoMode"
    assert did_you_mean("zzz", {"calicoMode"}) == ""


@pytest.mark.parametrize(
    "args",
    [
        ["--version", "v3.31", "--nodes", "3", "--no-validate"],
        ["explain-context", "--version", "v3.31", "--nodes", "3"],
        ["advise", "--version", "v3.31", "--nodes", "3"],
        ["plan", "--to-version", "v3.31", "--nodes", "3"],
    ],
)
def test_strict_turns_them_into_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert run(capsys, *args, "--set", "calicomode=ipip").code in (0, 1)
    strict = run(capsys, *args, "--set", "calicomode=ipip", "--strict")
    assert strict.code == 2 and "--strict" in strict.err
    assert run(capsys, *args, "--set", "calicoMode=vxlan", "--strict").code in (0, 1)
    unmatched = run(capsys, *args, "--set", "calicoMode=carrier-pigeon", "--strict")
    assert unmatched.code == 2 and "calicoMode" in unmatched.err


def test_config_addon_params_bke_real_does_not_read(capsys: pytest.CaptureFixture[str]) -> None:
    config = Path(__file__).parents[2] / "examples" / "bkecluster-601.yaml"
    args = ("--config", str(config), "--manifests", str(REAL), "--nodes", "3", "--no-validate")
    r = run(capsys, *args)
    assert r.code == 0 and "'calicoMode'" in r.err and "v3.31.3" in r.err
    assert "'ipAutoDetectionMethod'" not in r.err  # read by BKE's template
    strict = run(capsys, *args, "--strict")
    assert strict.code == 2 and strict.out == ""
    images = run(capsys, "images", "--config", str(config), "--manifests", str(REAL), "--strict")
    assert images.code == 2
