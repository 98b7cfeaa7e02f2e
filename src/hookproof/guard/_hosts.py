"""The entries of ``allow_hosts``: host names, addresses and networks, and why an entry could
never match a connection. Kept free of heavy imports: every guarded child loads it.
"""

from __future__ import annotations

import ipaddress

__all__ = ["Address", "allowed_host_problem", "ip_address", "ip_network"]


def allowed_host_problem(entry: str) -> str | None:
    """Why an ``allow_hosts`` entry could never match a connection, or None if it can."""
    if "://" in entry:
        return (
            "is a URL: the guard sees the host a socket connects to, never a URL, so the entry "
            'would never match. Give the host alone, e.g. allow_hosts=["cache"] for '
            "http://cache:6379/0."
        )
    if "/" in entry:
        return None if ip_network(entry) is not None else _NOT_A_NETWORK
    if ip_address(entry) is None and (":" in entry or entry.startswith("[")):
        return (
            "has a port (or brackets): the guard compares hosts alone and allows every port "
            "of an allowed host, so the entry would never match. Give the host alone, e.g. "
            'allow_hosts=["db"] for db:5432, or ["fd00::7"] for [fd00::7]:5432.'
        )
    return None


_NOT_A_NETWORK = (
    "has a / but is not an IP network, so the entry would never match. Give a network as "
    'address/prefix, e.g. allow_hosts=["10.0.0.0/8"], or a host name or address alone.'
)


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def ip_address(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def ip_network(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(entry, strict=False)  # 10.0.0.7/8 means 10.0.0.0/8
    except ValueError:
        return None
