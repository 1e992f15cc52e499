"""dnsIP and the image prefix as the controller derives them."""

from __future__ import annotations

import pytest

from renderer.bke.addresses import dns_ip, image_prefix
from renderer.errors import InputError


def test_dns_ip_needs_a_parsable_subnet() -> None:
    assert dns_ip("10.96.0.0/12") == "10.96.0.10"
    assert dns_ip("fd00::/108") == "fd00::a"
    with pytest.raises(InputError) as exc:
        dns_ip("nonsense", "spec.clusterConfig.cluster.networking.serviceSubnet")
    assert exc.value.key == "spec.clusterConfig.cluster.networking.serviceSubnet"
    with pytest.raises(InputError, match="too small"):
        dns_ip("10.0.0.0/30")


@pytest.mark.parametrize(
    ("repo", "prefix"),
    [
        ({"domain": "r.io", "port": "443", "prefix": "p"}, "r.io/p/"),
        ({"domain": "r.io", "port": "5000", "prefix": "p"}, "r.io:5000/p/"),
        ({"ip": "10.0.0.5", "prefix": "p"}, "10.0.0.5/p/"),
        ({"domain": "r.io", "ip": "10.0.0.5", "prefix": "p"}, "/p/"),  # as the controller
        ({"domain": "r.io", "port": "5000"}, ""),
    ],
)
def test_image_prefix_as_the_controller_joins_it(repo: dict[str, str], prefix: str) -> None:
    assert image_prefix(repo) == prefix
