"""The guard's second line: while it is on, sockets connect only to this machine.

``socket.socket.connect`` and ``connect_ex`` are wrapped once per process (every client
library, sync or asyncio, TLS or not, ends in one of them); each wrapper keeps the method it
replaced as ``__wrapped__``. The wrapper refuses an Internet (IPv4 / IPv6) address that is
not loopback (127.0.0.0/8, ::1, "localhost") and not in the policy's ``allow_hosts``; it
refuses before the real connect is attempted, so nothing is sent. Unix-domain and other
local socket families always pass, and so does everything while the guard is off.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import threading
from collections.abc import Callable, Collection
from typing import Any

from hookproof._guard import current_policy
from hookproof.errors import ConnectionBlocked

__all__ = ["check_address", "install"]

_INTERNET = (socket.AF_INET, socket.AF_INET6)
_GUARDED = "_hookproof_guarded"
_LOCK = threading.Lock()


def install() -> None:
    """Idempotent and thread-safe; wraps again whatever replaced a wrapper (a monkeypatch
    undone, another plugin), so the guard cannot be lost between tests."""
    with _LOCK:
        for name in ("connect", "connect_ex"):
            current = getattr(socket.socket, name)
            if not getattr(current, _GUARDED, False):
                setattr(socket.socket, name, _guarded(current))


def _guarded(original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(self: socket.socket, address: Any) -> Any:
        check_address(self.family, address)
        # Looked up on each call, so a test can put a recorder in place of the real connect.
        return guarded.__wrapped__(self, address)  # type: ignore[attr-defined]

    setattr(guarded, _GUARDED, True)
    return functools.wraps(original)(guarded)


def check_address(family: int, address: Any) -> None:
    """Raise ConnectionBlocked if the guard is on and ``address`` leaves the machine."""
    policy = current_policy()
    if not policy.blocking or family not in _INTERNET or not isinstance(address, tuple):
        return
    host = str(address[0])
    if not _is_loopback(host) and not _is_allowed(host, policy.allow_hosts):
        raise ConnectionBlocked(_refusal_message(host, address[1]))


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    ip = _ip(host)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip is not None and (ip.is_loopback or (mapped is not None and mapped.is_loopback))


def _is_allowed(host: str, allowed: Collection[str]) -> bool:
    if host.lower() in allowed:
        return True
    ip = _ip(host)
    if ip is None:
        return False
    names = [entry for entry in allowed if _ip(entry) is None]
    return any(_ip(entry) == ip for entry in allowed) or any(
        ip in _addresses_of(name) for name in names
    )


@functools.lru_cache(maxsize=64)
def _addresses_of(name: str) -> frozenset[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The addresses an allowed host name resolves to: clients resolve a name before they
    connect, so the wrapper sees only the address."""
    try:
        infos = socket.getaddrinfo(name, None)
    except OSError:
        return frozenset()
    found = (_ip(str(info[4][0]).partition("%")[0]) for info in infos)
    return frozenset(ip for ip in found if ip is not None)


def _refusal_message(host: str, port: object) -> str:
    return (
        f"hookproof: the test tried to connect to {host} (port {port}), which is not a "
        "loopback address. While hookproof's guard is on, connections leave the machine "
        "only to hosts the test allows, so no real model provider or other live service is "
        "reached by accident. If this host is test infrastructure (a database on a CI "
        f"service host, say), allow it with `hookproof_allow_hosts = {host}` in the pytest "
        f'ini file or @pytest.mark.hookproof(allow_hosts=["{host}"]); to allow real models '
        "and connections in one test, mark it @pytest.mark.hookproof(allow_real_models=True), "
        "or run with --hookproof-allow-real-models."
    )
