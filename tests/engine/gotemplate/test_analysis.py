"""Static analysis (gotemplate.analysis): the root keys a template reads."""

from __future__ import annotations

import pytest

from renderer.engine.gotemplate import compile_go, parse
from renderer.engine.gotemplate.analysis import key_reads, value_branches


@pytest.mark.parametrize(
    ("source", "keys"),
    [
        ("{{ .repo }}calico/node", {"repo"}),
        ("{{ .ClusterCidr.Ipv6 }} {{ $.podSubnet }}", {"ClusterCidr", "podSubnet"}),
        (
            '{{ if eq .allowTypha "true" }}{{ .typhaReplicas | }}{{ end }}',
            {"allowTypha", "typhaReplicas"},
        ),
        ("{{ range .items }}{{ .name }}{{ $.top }}{{ end }}", {"items", "top"}),
        ("{{ with .cfg }}{{ .inner }}{{ end }}", {"cfg"}),
        ("{{ with . }}{{ .inner }}{{ end }}", {"inner"}),
        ('{{ define "d" }}{{ .fromDefine }}{{ end }}{{ template "d" . }}', {"fromDefine"}),
        ('{{ define "d" }}{{ .rel }}{{ end }}{{ template "d" .sub }}', {"sub"}),
        ('{{ define "unused" }}{{ .never }}{{ end }}plain', set()),
        ('{{ block "b" . }}{{ .inBlock }}{{ end }}', {"inBlock"}),
        ('{{ $r := . }}{{ $r.viaVar }} {{ index . "viaIndex" }}', {"viaVar", "viaIndex"}),
        ('{{ (.chained).x }} {{ printf "%s" .arg }}', {"chained", "arg"}),
        (
            '{{ and (ne .ipAutoDetectionMethod nil) (ne .ipAutoDetectionMethod "") }}',
            {"ipAutoDetectionMethod"},
        ),
    ],
)
def test_keys(source: str, keys: set[str]) -> None:
    assert compile_go(source, "k").keys == frozenset(keys)


def test_nested_keys_and_where_they_are_first_read() -> None:
    source = "a\n{{ .plain }} {{ .ClusterCidr.Ipv6 }}\n{{ $.m.x }} {{ .ClusterCidr.Ipv4 }}"
    reads = key_reads(parse(source, "t"))
    assert reads.keys == frozenset({"plain", "ClusterCidr", "m"})
    assert reads.nested == {"ClusterCidr": source.index(".ClusterCidr"), "m": source.index("$.m")}
    template = compile_go(source, "t")
    assert template.nested_keys == frozenset({"ClusterCidr", "m"})
    assert template.nested_lines == {"ClusterCidr": 2, "m": 3}


def test_value_branches_and_dead_ends() -> None:
    source = (
        '{{ if eq .ipModVersion "ipv4" }}4{{ end }}{{ if eq .ipModVersion "ipv6" }}6{{ end }}'
        '{{ if eq .calicoMode "vxlan" }}v{{ else }}o{{ end }}'
    )
    branches = value_branches(parse(source, "t"))
    assert branches["ipModVersion"].values == frozenset({"ipv4", "ipv6"})
    assert branches["ipModVersion"].dead_end
    assert branches["calicoMode"].values == frozenset({"vxlan"})
    assert not branches["calicoMode"].dead_end
