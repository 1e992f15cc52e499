"""objects: structural access to workloads (pod specs, containers, env, selectors)."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.k8s.objects import (
    container,
    containers,
    dig,
    dig_path,
    env_var,
    find,
    images,
    key_path,
    map_selector_matches,
    pod_labels,
    pod_spec,
    selector_matches,
)
from renderer.k8s.parse import K8sObject


def _obj(data: dict[str, Any], line: int = 1) -> K8sObject:
    return K8sObject("f.yaml", 0, line, data)


def _pod_spec() -> dict[str, Any]:
    return {
        "initContainers": [{"name": "init", "image": "busybox"}],
        "containers": [
            {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}]},
            "not a container",
            {"name": "side", "image": 7},
        ],
    }


def _deployment() -> K8sObject:
    return _obj(
        {
            "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"template": {"metadata": {"labels": {"app": "a"}}, "spec": _pod_spec()}},
        }
    )


def _cronjob() -> K8sObject:
    template = {"metadata": {"labels": {"job": "j"}}, "spec": _pod_spec()}
    return _obj({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": template}}}})


@pytest.mark.parametrize(
    ("data", "path", "expected"),
    [
        ({"a": {"b": 1}}, ("a", "b"), 1),
        ({"a": {"b": 1}}, ("a", "c"), None),
        ({"a": [1]}, ("a", "b"), None),
        ("text", ("a",), None),
        ({"a": 1}, (), {"a": 1}),
    ],
)
def test_dig_and_dig_path_agree(data: Any, path: tuple[str, ...], expected: Any) -> None:
    assert dig(data, *path) == expected
    assert dig_path(data, path) == expected
    assert dig_path(data, list(path)) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (["spec", "containers", 0, "image"], "spec.containers[0].image"),
        ([0, "a"], "[0].a"),
        (["metadata"], "metadata"),
        ([], ""),
    ],
)
def test_key_path(path: list[str | int], expected: str) -> None:
    assert key_path(path) == expected


def test_pod_spec_and_labels_follow_the_workload_kind() -> None:
    assert pod_spec(_deployment()) == _pod_spec()
    assert pod_labels(_deployment()) == {"app": "a"}
    assert pod_spec(_cronjob()) == _pod_spec()
    assert pod_labels(_cronjob()) == {"job": "j"}
    pod = _obj({"kind": "Pod", "metadata": {"labels": {"p": "1"}}, "spec": {"containers": []}})
    assert pod_spec(pod) == {"containers": []}
    assert pod_labels(pod) == {"p": "1"}
    service = _obj({"kind": "Service", "spec": {"selector": {"app": "a"}}})
    assert pod_spec(service) == {}
    assert pod_labels(service) == {}


def test_containers_are_located_and_non_mappings_skipped() -> None:
    paths = [path for path, _ in containers(_deployment())]
    assert paths == [
        "spec.template.spec.initContainers[0]",
        "spec.template.spec.containers[0]",
        "spec.template.spec.containers[2]",
    ]
    found = container(_deployment(), "app")
    assert found is not None and found[0] == "spec.template.spec.containers[0]"
    assert container(_deployment(), "absent") is None
    assert list(containers(_obj({"kind": "ConfigMap"}))) == []


def test_images_are_string_images_only() -> None:
    assert list(images(_cronjob())) == [
        ("spec.jobTemplate.spec.template.spec.initContainers[0].image", "busybox"),
        ("spec.jobTemplate.spec.template.spec.containers[0].image", "app:1"),
    ]


def test_env_var_by_name() -> None:
    found = container(_deployment(), "app")
    assert found is not None
    assert env_var(found[1], "A") == (0, {"name": "A", "value": "1"})
    assert env_var(found[1], "B") is None
    assert env_var({"env": "not a list"}, "A") is None


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        ({"matchLabels": {"app": "a"}}, True),
        ({"matchLabels": {"app": "b"}}, False),
        ({"matchExpressions": [{"key": "app", "operator": "In", "values": ["a"]}]}, True),
        ({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["a"]}]}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, False),
        ({"matchExpressions": [{"key": "app", "operator": "Unknown"}]}, False),
        ({}, False),  # selects everything in Kubernetes, proves nothing here
        (None, False),
    ],
)
def test_selector_matches(selector: Any, matches: bool) -> None:
    assert selector_matches(selector, {"app": "a", "n": 1}) is matches


def test_map_selector_compares_as_strings_and_empty_matches_none() -> None:
    assert map_selector_matches({"n": "1"}, {"n": 1})
    assert not map_selector_matches({"n": "2"}, {"n": 1})
    assert not map_selector_matches({}, {"n": 1})


def test_find_by_kind_and_name() -> None:
    objects = [_deployment(), _cronjob(), _obj({"kind": "Deployment", "metadata": {"name": "e"}})]
    assert [o.name for o in find(objects, "Deployment")] == ["d", "e"]
    assert [o.name for o in find(objects, "Deployment", "e")] == ["e"]
    assert find(objects, "Pod") == []
