"""One request, validated once: what render, advise, explain-context, images and plan take."""

from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path

import pytest

from renderer import api
from renderer.api.request import Request
from renderer.errors import InputError

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_a_request_is_resolved_and_frozen() -> None:
    request = Request.of("v3.28", 601, sets=["podSubnet=10.1.0.0/16"])
    assert (request.version.name, request.nodes, request.operation) == ("v3.28.2", 601, "install")
    assert request.given == {"podSubnet": "10.1.0.0/16"}
    assert [p.key for p in request.inputs.params][-1] == "podSubnet"
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.nodes = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "argument", "value"),
    [
        ({"nodes": -1}, "nodes", -1),
        ({"nodes": True}, "nodes", True),
        ({"operation": "bogus"}, "operation", "bogus"),
        ({"version": "nope"}, "version", "nope"),
        ({"version": "../x"}, "version", "../x"),
        ({"sets": ["foo"]}, "set", None),
    ],
)
def test_a_bad_argument_is_named_with_its_value(
    kwargs: dict[str, object], argument: str, value: object
) -> None:
    given: dict[str, object] = {"version": "v3.28", "nodes": 3, **kwargs}
    with pytest.raises(InputError) as err:
        Request.of(**given)  # type: ignore[arg-type]
    assert (err.value.argument, err.value.value) == (argument, value)


def test_errors_come_in_the_order_the_flags_are_read() -> None:
    """Kubernetes versions, then values, then the node count, then the version."""
    with pytest.raises(InputError) as err:
        Request.of("nope", -1, sets=["x"], kube=["9.99"])
    assert err.value.key == "kube_version"
    with pytest.raises(InputError) as err:
        Request.of("nope", -1, sets=["x"])
    assert err.value.argument == "set"
    with pytest.raises(InputError) as err:
        Request.of("nope", -1)
    assert err.value.argument == "nodes"


def test_the_values_file_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``-`` is stdin, which can be read only once: the values it holds reach both the
    context and where each value came from."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"podSubnet: 10.9.0.0/16\n")))
    request = Request.of("v3.28", 300, values_file="-")
    assert request.given == {"podSubnet": "10.9.0.0/16"}
    assert ("podSubnet", "10.9.0.0/16") in [(p.key, p.value) for p in request.inputs.params]
    assert api.render(request).context["podSubnet"] == "10.9.0.0/16"


def test_the_verbs_take_the_request_and_check_nothing_again() -> None:
    request = Request.of("v3.28", 601)
    assert api.render(request).decision.allow_typha
    assert api.explain_context(request).route.decision.allow_typha
    assert api.prepull_images(request, role="master").images
    assert api.plan(request, from_nodes=10).plan.shape
    with pytest.raises(InputError) as err:
        api.render(Request.of("v3.28"))  # images need no node count; a render does
    assert err.value.argument == "nodes"


def test_a_config_gives_version_nodes_and_kubernetes_version() -> None:
    request = Request.from_config(
        EXAMPLES / "bkecluster-601.yaml", nodes_file=EXAMPLES / "bkenodes-601.yaml", kube=()
    )
    assert (request.version.name, request.nodes) == ("v3.31.3", 601)
    assert request.kube_versions == ("1.28",) and "kubernetesVersion v1.28.8" in request.kube_note
    assert request.cluster is not None and request.config_values
    with pytest.raises(InputError) as err:
        Request.from_config(EXAMPLES / "bkecluster-no-calico.yaml")
    assert err.value.argument == "config"
