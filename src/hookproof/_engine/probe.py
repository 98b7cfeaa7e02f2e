"""Probes: a way for hookproof's own checks to pause a run at hook boundaries.

``check_isolation`` installs a probe for each concurrent run; the engine calls it before every
hook, layer, model call and tool call, so runs can be made to interleave at chosen points.
Without a probe (always, outside that check) the engine skips the call.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

__all__ = ["PROBE", "Probe"]


class Probe(Protocol):
    def reached(self, label: str) -> None: ...

    async def areached(self, label: str) -> None: ...


PROBE: ContextVar[Probe | None] = ContextVar("hookproof_probe", default=None)
