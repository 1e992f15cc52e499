"""Static analysis (gotemplate.analysis): the root keys a template reads."""

from __future__ import annotations

import pytest

from renderer.engine.gotemplate import compile_go, parse
from renderer.engine.gotemplate.analysis import (
    branch_arms,
    branch_conditions,
    key_reads,
    value_branches,
)


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
    # each at the node's position, which is Go's: the chain's first added field
    assert reads.nested == {"ClusterCidr": source.index(".Ipv6"), "m": source.index(".m.x")}
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


BRANCHY = (
    '{{ if eq .mode "a" }}A{{ else if eq .mode "b" }}B{{ else }}C{{ end }}\n'
    "{{ if .repo }}{{ .repo }}{{ else }}default/{{ end }}\n"
    '{{ with .x }}X{{ end }}{{ range .items }}I{{ else }}none{{ end }}{{ if ne .y "" }}Y{{ end }}\n'
)


def test_branch_arms_name_every_body_once() -> None:
    tree = parse(BRANCHY, "t")
    arms = branch_arms(tree)
    explicit = [(a.kind, a.compares) for a in arms if a.explicit]
    assert explicit == [
        ("if", True),  # eq .mode "a"
        ("if", True),  # else if eq .mode "b"
        ("else", True),  # else of the chain: C
        ("if", False),  # if .repo
        ("else", False),
        ("with", False),
        ("range", False),
        ("else", False),
        ("if", True),  # ne .y ""
    ]
    # the else holding only an else-if is not a body; an if without else has an empty,
    # implicit else (the no-match path of a comparison)
    implicit = [(a.kind, a.compares) for a in arms if not a.explicit]
    assert implicit == [("else", True), ("else", False), ("else", True)]


def test_branch_conditions_are_the_compared_strings_and_truth_tests() -> None:
    found = branch_conditions(parse(BRANCHY, "t"))
    assert found.compared == {"mode": frozenset({"a", "b"}), "y": frozenset({""})}
    assert found.truthy == frozenset({"repo", "x", "items"})


def test_a_traced_render_says_which_arms_it_took() -> None:
    t = compile_go(BRANCHY, "t")
    text, _, taken = t.render_branches({"mode": "b", "repo": "", "items": [1], "y": ""})
    assert text.splitlines()[:2] == ["B", "default/"]
    by_key = {a.key: a for a in t.arms}
    took = sorted((by_key[k].kind, t.line_of(by_key[k].offset)) for k in taken)
    assert ("else", 2) in took and ("range", 3) in took
    assert t.render({"mode": "b", "repo": "", "items": [1], "y": ""}) == text  # no change
