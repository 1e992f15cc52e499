"""Addresses the controller derives from a cluster's config: ``dnsIP`` from the service
subnet, the image prefix (``repo``) from ``imageRepo``.

Reading a cluster (:mod:`renderer.bke.cluster`) refuses a service subnet the controller
could not derive from and names the prefix; building a context
(:mod:`renderer.bke.context`) derives both.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from renderer.errors import InputError

DEFAULT_SERVICE_SUBNET = "10.96.0.0/16"
DEFAULT_DNS_IP = "10.96.0.10"
DNS_IP_INDEX = 10


def dns_ip(service_subnet: str, key: str = "serviceSubnet") -> str:
    """The 10th address of the service subnet, as the controller derives ``dnsIP``; a
    subnet it cannot parse (or too small) fails the controller, so it is exit 2 here."""
    if service_subnet == DEFAULT_SERVICE_SUBNET:
        return DEFAULT_DNS_IP
    try:
        net = ipaddress.ip_network(service_subnet, strict=False)
    except ValueError:
        raise InputError(
            f"{service_subnet!r} is not a CIDR; the controller cannot derive dnsIP from it",
            key=key,
        ) from None
    if isinstance(net, ipaddress.IPv6Network) and net.network_address.ipv4_mapped is not None:
        # Go keeps an IPv4-mapped network's IPv4 form: its mask's last 32 bits count and
        # the address prints as IPv4 (::ffff:10.96.0.0/112 gives 10.96.0.10)
        mapped = ipaddress.IPv4Network((net.network_address.ipv4_mapped, net.prefixlen - 96))
        if mapped.num_addresses <= DNS_IP_INDEX:
            raise InputError(
                f"{service_subnet!r} is too small for dnsIP (its address {DNS_IP_INDEX})", key=key
            )
        return str(mapped.network_address + DNS_IP_INDEX)
    if net.num_addresses <= DNS_IP_INDEX:
        raise InputError(
            f"{service_subnet!r} is too small for dnsIP (its address {DNS_IP_INDEX})", key=key
        )
    address = net.network_address + DNS_IP_INDEX
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def go_string(value: Any) -> str:
    """A config scalar as the controller's string fields hold it (Go's bool spelling)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def image_repo_address(repo: Mapping[str, Any]) -> str:
    """The registry address as the controller joins it from domain, ip and port: port 443
    is left out; a domain (or ip) alone is the address; domain and ip without a port give
    no address at all."""
    domain, ip, port = (
        go_string(repo.get("domain")),
        go_string(repo.get("ip")),
        go_string(repo.get("port")),
    )
    host = domain or ip
    if port:
        return "" if not host else (host if port == "443" else f"{host}:{port}")
    return domain if domain and not ip else (ip if ip and not domain else "")


def image_prefix(repo: Mapping[str, Any]) -> str:
    """``repo`` as the controller sets it: ``<address>/<prefix>/`` when a prefix is set,
    else "" (the templates' own registry applies)."""
    prefix = go_string(repo.get("prefix"))
    return f"{image_repo_address(repo)}/{prefix}/" if prefix else ""
