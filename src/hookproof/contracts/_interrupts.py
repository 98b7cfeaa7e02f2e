"""How checks answer a run that pauses at an interrupt (human in the loop), so they go on.

Every target resumes a paused run with the answer ``on_interrupt`` gives: ``"approve"`` (the
default) or ``"reject"`` answer a human-in-the-loop request the way the reference harness,
LangChain's ``HumanInTheLoopMiddleware`` and deepagents expect (``{"decisions": [...]}``, one
decision per action request); a function ``on_interrupt(value) -> answer`` answers any other
interrupt your own hooks raise.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeAlias

from hookproof.errors import UsageError

__all__ = ["MAX_RESUMES", "OnInterrupt", "check_on_interrupt", "resume_value", "thread_id"]

OnInterrupt: TypeAlias = Literal["approve", "reject"] | Callable[[Any], Any]
MAX_RESUMES = 20  # a run still paused after this many answers is reported, not looped on
REJECTION = "hookproof: a contract check rejected this call at the human-in-the-loop review."

_THREADS = itertools.count()


def check_on_interrupt(on_interrupt: object) -> OnInterrupt:
    if on_interrupt in ("approve", "reject") or callable(on_interrupt):
        return on_interrupt
    raise UsageError(
        f"hookproof: on_interrupt={on_interrupt!r} is not an answer a check can give. Use "
        "'approve' (the default), 'reject', or a function on_interrupt(value) -> resume value "
        "for interrupts of your own."
    )


def resume_value(value: Any, on_interrupt: OnInterrupt) -> Any:
    """The answer to one interrupt ``value``."""
    if callable(on_interrupt):
        return on_interrupt(value)
    requests = value.get("action_requests") if isinstance(value, Mapping) else None
    count = len(requests) if isinstance(requests, list | tuple) else 1
    decision = (
        {"type": "approve"}
        if on_interrupt == "approve"
        else {"type": "reject", "message": REJECTION}
    )
    return {"decisions": [dict(decision) for _ in range(count)]}


def thread_id() -> str:
    """A thread id no other check run uses, so paused runs never share a checkpoint."""
    return f"hookproof-check-{next(_THREADS)}"
