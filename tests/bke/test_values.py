"""Render context: layering, --set parsing and schema validation naming the key."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from renderer.bke.values import build_context, load_values, parse_set, user_values
from renderer.errors import InputError
from tests.clihelp import run


def test_defaults_are_the_controllers_plus_bkeadms_calico_params() -> None:
    ctx = build_context({})
    assert ctx["repo"] == ""
    assert ctx["podSubnet"] == "10.250.0.0/16"  # the controller's, not 10.244.0.0/16
    assert ctx["serviceSubnet"] == "10.96.0.0/16" and ctx["dnsIP"] == "10.96.0.10"
    assert ctx["apiServerSrcPort"] == 6443 and ctx["replicas"] == 1
    # bkeadm's default config; the controller itself has no calicoMode default
    assert ctx["calicoMode"] == "vxlan"
    assert ctx["ipAutoDetectionMethod"] == "skip-interface=nerdctl*"
    assert "allowTypha" not in ctx and "typhaReplicas" not in ctx


def test_layering_user_then_repo_then_policy() -> None:
    ctx = build_context(
        {"repo": "a.example/x/", "allowTypha": "false", "calicoMode": "ipip"},
        typha={"allowTypha": "true", "typhaReplicas": "4"},
        repo="b.example/y/",
    )
    assert ctx["repo"] == "b.example/y/"
    assert ctx["allowTypha"] == "true" and ctx["typhaReplicas"] == "4"
    assert ctx["calicoMode"] == "ipip"


def test_set_nests_and_keeps_strings() -> None:
    ctx = user_values(None, ["ClusterCidr.Ipv6=fd00::/56", "typhaReplicas=3", "x=a=b"])
    assert ctx == {"ClusterCidr": {"Ipv6": "fd00::/56"}, "typhaReplicas": "3", "x": "a=b"}


@pytest.mark.parametrize("bad", ["novalue", "=v", "a..b=1", ".a=1"])
def test_bad_set_is_bad_input(bad: str) -> None:
    with pytest.raises(InputError):
        parse_set(bad)


@pytest.mark.parametrize(
    ("user", "key", "words"),
    [
        ({"typhaReplicas": "three"}, "typhaReplicas", "not valid"),
        ({"podSubnet": 10}, "podSubnet", "string"),
        ({"ClusterCidr": "fd00::/48"}, "ClusterCidr", "object"),
    ],
)
def test_bad_values_name_the_key(user: dict[str, object], key: str, words: str) -> None:
    with pytest.raises(InputError) as err:
        build_context(user)
    assert err.value.key is not None and err.value.key.startswith(key)
    assert words in str(err.value)


@pytest.mark.parametrize(
    "user",
    [
        {"calicoMode": "geneve"},
        {"calicoMode": "IPIP"},
        {"ipModVersion": "ipv5"},
        {"repo": "registry.example.com"},
        {"ipModVersion": "dual"},  # no ClusterCidr: the controller renders <no value>
        {"ipModVersion": "ipv6"},
    ],
)
def test_values_the_controller_renders_are_taken(user: dict[str, object]) -> None:
    """Never stricter than the controller: no branch for a value is a warning of the
    render, an injection a finding; neither is bad input."""
    assert build_context(user).items() >= user.items()


def test_values_file(tmp_path: Path) -> None:
    f = tmp_path / "values.yaml"
    f.write_text("calicoMode: bgp\nClusterCidr:\n  Ipv6: fd00::/56\n")
    assert user_values(f, ["calicoMode=ipip"]) == {
        "calicoMode": "ipip",
        "ClusterCidr": {"Ipv6": "fd00::/56"},
    }


@pytest.mark.parametrize(
    ("content", "line", "key"),
    [
        ('repo: ""\ncalicoMode: 5\n', 2, "calicoMode"),
        ("calicoMode: ipip\nClusterCidr: ['fd00::/56']\n", 2, "ClusterCidr"),
        ("podSubnet: [10.0.0.0/8]\n", 1, "podSubnet"),
    ],
)
def test_values_file_errors_name_file_line_and_key(
    tmp_path: Path, content: str, line: int, key: str
) -> None:
    f = tmp_path / "values.yaml"
    f.write_text(content)
    with pytest.raises(InputError) as err:
        user_values(f)
    assert (err.value.file, err.value.line, err.value.key) == (str(f), line, key)


def test_values_file_typha_keys_are_left_to_the_policy(tmp_path: Path) -> None:
    f = tmp_path / "values.yaml"
    f.write_text("allowTypha: false\ntyphaReplicas: 1\n")
    assert user_values(f) == {"allowTypha": False, "typhaReplicas": 1}


@pytest.mark.parametrize(
    "method",
    [
        "",
        "first-found",
        "kubernetes-internal-ip",
        "can-reach=8.8.8.8",
        "interface=eth.*",
        "skip-interface=nerdctl*",
        "cidr=10.0.0.0/8,192.168.0.0/16",
    ],
)
def test_calico_autodetection_methods_pass(method: str) -> None:
    assert build_context({"ipAutoDetectionMethod": method})["ipAutoDetectionMethod"] == method


@pytest.mark.parametrize(
    ("user", "key"),
    [
        ({"ipAutoDetectionMethod": "eth0"}, "ipAutoDetectionMethod"),
        ({"ipAutoDetectionMethod": "first-found "}, "ipAutoDetectionMethod"),
        ({"foo": 'a"b'}, "foo"),
        ({"foo": "a\nb"}, "foo"),
        ({"foo": "a\rb"}, "foo"),
        ({"foo": "a\x00"}, "foo"),
        ({"foo": "a\u2028b"}, "foo"),
        ({"foo": "a\\"}, "foo"),
        ({"repo": 'r"/'}, "repo"),
        ({"ClusterCidr": {"Ipv6": "fd00::/56", "x": "a\nb"}}, "ClusterCidr"),
        ({"list": ["ok", "a\tb"]}, "list"),
        ({"nested": {"a\nb": "v"}}, "nested"),
    ],
)
def test_values_are_never_refused_for_their_characters(user: dict[str, object], key: str) -> None:
    """The controller renders them; where one changes the YAML a template wrote, the
    render reports context-value-injects-yaml (tests/cli/test_untrusted.py)."""
    assert build_context(user)[key] == user[key]


def test_escaped_backslashes_and_odd_text_pass() -> None:
    ctx = build_context({"foo": "a\\\\b\\\\", "bar": "ünïcode 'single' {x}: #"})
    assert ctx["foo"] == "a\\\\b\\\\"


def test_values_file_with_a_quote_is_taken_as_written(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text('calicoMode: ipip\nextra:\n  note: "a\\"b"\n')
    assert user_values(values)["extra"] == {"note": 'a"b'}


def test_a_key_given_twice_keeps_the_last_with_a_warning_naming_both_lines(
    tmp_path: Path,
) -> None:
    """As Go's decoders: the last value wins; the warning names both lines."""
    for name, text in (
        ("values.yaml", "calicoMode: ipip\nrepo: r/\ncalicoMode: bgp\n"),
        ("values.json", '{"calicoMode": "ipip",\n "repo": "r/",\n "calicoMode": "bgp"}'),
    ):
        values = tmp_path / name
        values.write_text(text)
        warnings: list[str] = []
        assert user_values(values, warnings=warnings)["calicoMode"] == "bgp"
        (warning,) = warnings
        assert warning.startswith(f"{values}:3: key 'calicoMode' is given twice (lines 1 and 3)")


@pytest.mark.slow
def test_many_keys_take_linear_time(tmp_path: Path) -> None:
    """A values file of many keys is checked in time linear in their number (it was
    quadratic-ish: a schema validator per key)."""

    def seconds(n: int) -> float:
        values = tmp_path / f"v{n}.yaml"
        values.write_text("".join(f"k{i}: v{i}\n" for i in range(n)))
        start = time.perf_counter()
        build_context(user_values(values))
        return time.perf_counter() - start

    seconds(1000)  # warm caches
    small, large = seconds(10_000), seconds(40_000)
    assert large / small < 8


@pytest.mark.slow
def test_two_hundred_thousand_values_keys_render_as_without_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "values.json"
    path.write_text(json.dumps({f"key{i}": f"v{i}" for i in range(200_000)}))
    args = ("--version", "v3.28", "--nodes", "3", "--no-validate")
    plain = run(capsys, *args)
    r = run(capsys, *args, "--values", str(path))
    assert r.code == 0 and r.out == plain.out  # keys no template reads change nothing
    warned = [line for line in r.err.splitlines() if "is read by no template" in line]
    assert len(warned) == 200_000 and "'key199999'" in warned[-1]  # each key, in order


@pytest.mark.slow
def test_a_bad_value_among_two_hundred_thousand_keys_is_named_by_line(tmp_path: Path) -> None:
    values: dict[str, object] = {f"key{i}": f"v{i}" for i in range(200_000)}
    values["key150000"] = {"a": [1, float("nan")]}
    path = tmp_path / "values.json"
    path.write_text(json.dumps(values, indent=1))
    with pytest.raises(InputError) as err:
        load_values(path)
    # one key a line after the brace; the key's own line, then "a", 1 and NaN
    assert (err.value.key, err.value.line) == ("key150000.a.1", 150_000 + 2 + 3)
