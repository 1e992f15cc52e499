"""Where a request's values came from, and the inputs of a render of that request."""

from __future__ import annotations

from renderer.calico.scale.facts import CONFIG, CONTROLLER_DEFAULT, FLAG, RENDERED
from renderer.calico.scale.origins import Origins, request_inputs
from tests.calico.scale.inputs import objects


def test_request_inputs_pod_subnet_origins() -> None:
    objs = objects()  # the templates set no CALICO_IPV4POOL_CIDR
    context = {"podSubnet": "10.50.0.0/16", "ipModVersion": "ipv4"}
    from_config = request_inputs(
        objs, context, nodes=10, origins=Origins.of(config=context, config_file="c.yaml")
    )
    cidr = from_config.pools[0].cidr
    assert (cidr.value, cidr.source) == ("10.50.0.0/16", CONFIG)
    assert cidr.where == "CALICO_IPV4POOL_CIDR not rendered; podSubnet from c.yaml"
    unset = request_inputs(objs, context, nodes=10)
    assert (unset.pools[0].cidr.value, unset.pools[0].cidr.source) == (
        "10.250.0.0/16",
        CONTROLLER_DEFAULT,
    )
    assert (unset.nodes.source, unset.max_pods.value) == (FLAG, 110)


def test_request_inputs_traces_a_rendered_pod_subnet() -> None:
    objs = objects("            - {name: CALICO_IPV4POOL_CIDR, value: 10.50.0.0/16}")
    context = {"podSubnet": "10.50.0.0/16"}
    traced = request_inputs(objs, context, nodes=10, origins=Origins.of(flags=context))
    cidr = traced.pools[0].cidr
    assert cidr.source == RENDERED
    assert cidr.where == "env CALICO_IPV4POOL_CIDR = podSubnet from --set/--values (flag)"
    # the render context's own default, not the controller's: a note says so
    untraced = request_inputs(objs, context, nodes=10)
    assert untraced.pools[0].cidr.where == "env CALICO_IPV4POOL_CIDR"
    assert untraced.notes == (
        "podSubnet is not set: the render used the render context's default 10.50.0.0/16, "
        "while BKE's controller passes 10.250.0.0/16",
    )
