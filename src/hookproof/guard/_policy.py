"""What the guard enforces: whether it blocks, and which hosts sockets may still reach.

Kept free of heavy imports (no ``typing``, no ``dataclasses``): every Python child process of
a guarded test imports it first.
"""

from __future__ import annotations

__all__ = ["GuardPolicy"]


class GuardPolicy:
    """What the guard enforces right now (replaced whole, never changed in place)."""

    __slots__ = ("allow_hosts", "blocking")

    def __init__(self, blocking: bool = False, allow_hosts: frozenset[str] = frozenset()):
        self.blocking = blocking
        self.allow_hosts = allow_hosts

    def _key(self) -> tuple[bool, frozenset[str]]:
        return self.blocking, self.allow_hosts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GuardPolicy) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"GuardPolicy(blocking={self.blocking}, allow_hosts={sorted(self.allow_hosts)})"
