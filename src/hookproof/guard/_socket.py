"""The guard's second line: while it is on, sockets connect only to this machine.

``socket.socket.connect`` and ``connect_ex`` are wrapped once per process (client libraries
built on Python's ``socket`` module, sync or asyncio, TLS or not, end in one of them); each
wrapper keeps the method it replaced as ``__wrapped__``. The wrapper refuses an Internet
(IPv4 / IPv6) address that leaves the machine and is not allowed by the policy's
``allow_hosts`` (names, addresses, networks); it refuses before the real connect is
attempted, so nothing is sent. Local means loopback (127.0.0.0/8, ::1, IPv4-mapped loopback)
or unspecified (0.0.0.0, ::, which connect to this machine); a host given as a name
("localhost.", the machine's own name) or in a numeric form ``ipaddress`` does not read
(127.1) is resolved with getaddrinfo, and is local when every address it resolves to is.
Unix-domain and other local socket families always pass, and so does everything while the
guard is off.

Not seen: datagrams sent with ``sendto`` on an unconnected socket, code calling the C
``_socket`` type directly, and networking done in C (grpc, uvloop, other extensions).
"""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Callable, Collection

from hookproof.errors import ConnectionBlocked
from hookproof.guard._hosts import Address, ip_address, ip_network
from hookproof.guard._state import current_policy, record_refusal

TYPE_CHECKING = False  # not typing's: every guarded child process imports this module
if TYPE_CHECKING:
    from typing import Any

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
    if not _stays_here(host.lower(), policy.allow_hosts):
        raise record_refusal(ConnectionBlocked(_refusal_message(host, address[1])))


def _is_local(ip: Address) -> bool:
    """Loopback, or the unspecified address (0.0.0.0, ::), which connects to this machine."""
    mapped = getattr(ip, "ipv4_mapped", None)
    return any(one.is_loopback or one.is_unspecified for one in (ip, mapped) if one is not None)


def _stays_here(host: str, allowed: Collection[str]) -> bool:
    """Whether a connection to ``host`` (lower case) stays on this machine or is allowed."""
    if host in allowed or host.rstrip(".") == "localhost":
        return True
    ip = ip_address(host)
    # A name, or a numeric form ipaddress does not read (127.1): connect resolves it the same.
    addresses = {ip} if ip is not None else _addresses_of(host)
    return bool(addresses) and all(
        _is_local(address) or _is_allowed(address, allowed) for address in addresses
    )


def _is_allowed(ip: Address, allowed: Collection[str]) -> bool:
    """Whether ``ip`` is an allowed address, in an allowed network, or what an allowed name
    resolves to (names are looked up last, and only when nothing else matched)."""
    numeric = [
        ip_network(entry) for entry in allowed if "/" in entry or ip_address(entry) is not None
    ]
    names = [entry for entry in allowed if "/" not in entry and ip_address(entry) is None]
    return any(net is not None and ip in net for net in numeric) or any(
        ip in _addresses_of(name) for name in names
    )


_RESOLVED: dict[str, frozenset[Address]] = {}
_RESOLVED_LIMIT = 256


def _addresses_of(name: str) -> frozenset[Address]:
    """The addresses ``name`` resolves to: clients resolve a name before they connect, so the
    wrapper often sees only the address. Only successful lookups are remembered, so a name
    that does not resolve yet (a service still starting) is looked up again next time."""
    found = _RESOLVED.get(name)
    if found is None:
        found = _resolve(name)
        if found:
            if len(_RESOLVED) >= _RESOLVED_LIMIT:
                _RESOLVED.clear()
            _RESOLVED[name] = found
    return found


def _resolve(name: str) -> frozenset[Address]:
    try:
        infos = socket.getaddrinfo(name, None)
    except (OSError, UnicodeError):
        return frozenset()
    found = (ip_address(str(info[4][0]).partition("%")[0]) for info in infos)
    return frozenset(ip for ip in found if ip is not None)


def _refusal_message(host: str, port: object) -> str:
    return (
        f"hookproof: the test tried to connect to {host} (port {port}), which is not on this "
        "machine (not loopback, nor a name resolving only to loopback). While hookproof's "
        "guard is on, connections leave the machine only to hosts the test allows, so no real "
        "model provider or other live service is reached by accident. If this host is test "
        "infrastructure (a database on a CI service host, say), allow it with "
        f"`hookproof_allow_hosts = {host}` in the pytest ini file or "
        f'@pytest.mark.hookproof(allow_hosts=["{host}"]); to allow real models and '
        "connections in one test, mark it @pytest.mark.hookproof(allow_real_models=True), "
        "or run with --hookproof-allow-real-models."
    )
