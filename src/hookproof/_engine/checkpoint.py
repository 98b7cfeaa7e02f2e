"""Interrupt and resume: the one mechanism every dialect uses to pause a run for a human.

A hook or tool calls ``interrupt(value)``. The first time, the run stops: its state and
position are saved in the agent's checkpointer under the thread id, and invoke returns a
RunResult whose ``interrupts`` hold the value. ``invoke(Command(resume=answer), thread_id=...)``
restores the state, re-runs the step that interrupted, and this time ``interrupt`` returns
``answer``.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hookproof._support.frozen import FrozenDict
from hookproof.errors import InterruptRaised

__all__ = ["Checkpoint", "InMemoryCheckpointer", "Interrupt", "InterruptRaised", "interrupt"]


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A pause requested by ``interrupt(value)``; ``source`` names the hook or tool."""

    value: Any
    source: str


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A thread's saved state; ``phase`` and ``hook_index`` say where a paused run resumes."""

    values: FrozenDict
    phase: str = "done"
    hook_index: int = 0
    model_calls: int = 0
    interrupts: tuple[Interrupt, ...] = ()
    extra: FrozenDict = field(default_factory=FrozenDict)

    @property
    def pending(self) -> bool:
        return bool(self.interrupts)


class InMemoryCheckpointer:
    """Keeps the latest checkpoint of each thread in memory (thread-safe)."""

    def __init__(self) -> None:
        self._threads: dict[str, Checkpoint] = {}
        self._lock = threading.Lock()

    def get(self, thread_id: str) -> Checkpoint | None:
        with self._lock:
            return self._threads.get(thread_id)

    def put(self, thread_id: str, checkpoint: Checkpoint) -> None:
        with self._lock:
            self._threads[thread_id] = checkpoint

    def threads(self) -> list[str]:
        with self._lock:
            return sorted(self._threads)


@dataclass
class ResumeValues:
    """The answers given to the interrupts of the current step, matched by position: the
    n-th ``interrupt()`` of a step returns the n-th answer once there is one."""

    values: list[Any] = field(default_factory=list)
    used: int = 0

    def next(self) -> tuple[bool, Any]:
        if self.used < len(self.values):
            self.used += 1
            return True, self.values[self.used - 1]
        return False, None

    def reset(self) -> None:
        self.values, self.used = [], 0


RESUME: ContextVar[ResumeValues | None] = ContextVar("hookproof_resume", default=None)


def interrupt(value: Any) -> Any:
    """Pause the run with ``value``; on resume this returns the answer: the runtime's
    ``agent.invoke(Command(resume=answer), thread_id=...)``, or the Eino dialect's
    ``agent.resume(checkpoint_id, answer)``. A step may interrupt several times: each resume
    answers the next one."""
    slot = RESUME.get()
    if slot is not None:
        found, answer = slot.next()
        if found:
            return answer
    raise InterruptRaised(value)
