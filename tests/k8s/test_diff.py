"""The object diffs fidelity and goldens report through (renderer/k8s/diff.py)."""

from __future__ import annotations

from renderer.k8s.diff import Diff, diff, diff_values, path_parts, show


def test_diff_names_list_items_by_their_key_and_ignores_set_order() -> None:
    up = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "x": [1, 2]}
    ours = {"env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}], "x": [2, 1]}
    assert list(diff(up, ours)) == [
        Diff("env[A]", "missing", {"name": "A", "value": "1"}, None),
        Diff("env[B].value", "changed", "2", "3"),
        Diff("env[C]", "extra", None, {"name": "C", "value": "4"}),
    ]


def test_diff_compares_a_process_argv_exactly_and_nulls_as_absent() -> None:
    assert list(diff({"args": ["a", "b"], "n": None}, {"args": ["b", "a"]})) == [
        Diff("args", "changed", ["a", "b"], ["b", "a"])
    ]


def test_diff_values_lists_every_leaf_by_name_or_position() -> None:
    old = {"c": [{"name": "n", "image": "a"}], "p": [1, 2], "k.x": 1}
    new = {"c": [{"name": "n", "image": "b"}], "p": [1], "k.x": 1}
    assert diff_values(old, new) == [
        ("c[name=n].image", '"a"', '"b"'),
        ("p[1]", "2", None),
    ]


def test_show_cuts_long_values() -> None:
    assert show({"b": 1, "a": 2}) == '{"a":2,"b":1}'
    assert len(show("x" * 500)) == 160 and show("x" * 500).endswith("...")


def test_path_parts_find_named_items_and_stop_where_the_data_does() -> None:
    data = {
        "spec": {
            "containers": [
                {"name": "init", "env": []},
                {"name": "calico-node", "env": [{"name": "A"}, {"name": "B", "value": "1"}]},
            ]
        },
        "data": {"cni_network_config": "{}"},
    }
    assert path_parts(data, "spec.containers[calico-node].env[B].value") == (
        "spec",
        "containers",
        1,
        "env",
        1,
        "value",
    )
    assert path_parts(data, "spec.containers[calico-node].env[GONE].value") == (
        "spec",
        "containers",
        1,
        "env",
    )
    assert path_parts(data, "data.cni_network_config.plugins[calico]") == (
        "data",
        "cni_network_config",
    )
    assert path_parts(data, "nothing.here") == ()
