"""How checks answer a run that pauses at an interrupt (human in the loop), so they go on.

Every target resumes a paused run with the answer ``on_interrupt`` gives: ``"approve"`` (the
default) or ``"reject"`` answer a human-in-the-loop request the way the reference harness,
LangChain's ``HumanInTheLoopMiddleware`` and deepagents expect (``{"decisions": [...]}``, one
decision per action request); a function ``on_interrupt(value) -> answer`` answers any other
interrupt your own hooks raise.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from hookproof.errors import UsageError, safe_repr

__all__ = [
    "MAX_RESUMES",
    "REJECTION",
    "OnInterrupt",
    "check_config",
    "check_on_interrupt",
    "resume_loop",
    "resume_value",
    "still_paused",
    "thread_id",
]

OnInterrupt: TypeAlias = Literal["approve", "reject"] | Callable[[Any], Any]
MAX_RESUMES = 20  # a run still paused after this many answers is reported, not looped on
REJECTION = "hookproof: a contract check rejected this call at the human-in-the-loop review."


def check_on_interrupt(on_interrupt: object) -> OnInterrupt:
    if on_interrupt in ("approve", "reject") or callable(on_interrupt):
        return on_interrupt
    raise UsageError(
        f"hookproof: on_interrupt={on_interrupt!r} is not an answer a check can give. Use "
        "'approve' (the default), 'reject', or a function on_interrupt(value) -> resume value "
        "for interrupts of your own."
    )


def resume_value(value: Any, on_interrupt: OnInterrupt) -> Any:
    """The answer to one interrupt ``value``. A review that does not allow the asked-for
    decision for a call gets the other one (a reviewer may only reject some calls)."""
    if callable(on_interrupt):
        return on_interrupt(value)
    requests = value.get("action_requests") if isinstance(value, Mapping) else None
    if not isinstance(requests, list | tuple):
        return {"decisions": [_decision(on_interrupt)]}
    allowed = _allowed_decisions(value, len(requests))
    return {"decisions": [_decision(_choose(on_interrupt, kinds)) for kinds in allowed]}


def _allowed_decisions(value: Mapping[str, Any], count: int) -> list[Sequence[str] | None]:
    configs = value.get("review_configs")
    if not isinstance(configs, list | tuple) or len(configs) != count:
        return [None] * count
    return [
        config.get("allowed_decisions") if isinstance(config, Mapping) else None
        for config in configs
    ]


def _choose(wanted: str, allowed: Sequence[str] | None) -> str:
    if allowed is None or wanted in allowed:
        return wanted
    other = "reject" if wanted == "approve" else "approve"
    return other if other in allowed else wanted


def _decision(kind: str) -> dict[str, Any]:
    return {"type": "approve"} if kind == "approve" else {"type": "reject", "message": REJECTION}


def still_paused(value: Any, on_interrupt: OnInterrupt) -> str:
    """Why a run counts as stopped at an interrupt: it was answered MAX_RESUMES times."""
    answer = (
        "a function's answers"
        if callable(on_interrupt)
        else repr(resume_value(value, on_interrupt))
    )
    return (
        f"the run was still paused at an interrupt after {MAX_RESUMES} answers (last value "
        f"{safe_repr(value, 120)}, answered with {answer:.120}); answer it with "
        "on_interrupt=lambda value: ... if it expects another format"
    )


def thread_id(config: Mapping[str, Any] | None = None) -> str:
    """The run's thread: the one ``config["configurable"]["thread_id"]`` names, else one no
    other check run uses, in this process or any other (a checkpointer may outlive the
    process), so a check never resumes another run's checkpoint."""
    if not config:  # None or empty, as ``(config or {})`` read it
        return _fresh_thread_id()
    configurable = config.get("configurable") or {}
    given = configurable.get("thread_id") if isinstance(configurable, Mapping) else None
    return str(given) if given is not None else _fresh_thread_id()


class _ThreadIds:
    """Thread ids unique across processes without a random draw per run (a system call):
    a random prefix per process, drawn again in a forked child, then a counter."""

    def __init__(self) -> None:
        self.renew()
        if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
            os.register_at_fork(after_in_child=self.renew)

    def renew(self) -> None:
        self.prefix = f"hookproof-check-{uuid.uuid4().hex}-"
        self.numbers = itertools.count()

    def next(self) -> str:
        return f"{self.prefix}{next(self.numbers)}"


_THREAD_IDS = _ThreadIds()
_fresh_thread_id = _THREAD_IDS.next


def check_config(config: Mapping[str, Any] | None, where: str) -> None:
    """Agents of hookproof's own dialects take only a thread id from ``config``."""
    if config is None:
        return
    if not isinstance(config, Mapping):
        raise UsageError(
            f"hookproof: config must be a dict like LangGraph's run config, got "
            f"{type(config).__name__}."
        )
    unknown = sorted(set(config) - {"configurable"})
    configurable = config.get("configurable") or {}
    extra = sorted(set(configurable) - {"thread_id"}) if isinstance(configurable, Mapping) else []
    if unknown or extra:
        raise UsageError(
            f"hookproof: {where} takes only config={{'configurable': {{'thread_id': ...}}}}; "
            f"got keys {unknown + [f'configurable.{key}' for key in extra]}. The other keys of "
            "a LangGraph run config apply to LangChain and deepagents agents only."
        )


def resume_loop(
    start: Callable[[], Any],
    step: Callable[[Any], Any],
    pending: Callable[[Any], Any],
    on_interrupt: OnInterrupt,
    parts: list[Any],
) -> str | None:
    """Run ``start()``, then ``step(last)`` while ``pending(last)`` (the values of a paused
    run's interrupts) is not empty, at most MAX_RESUMES times. Every part is appended to
    ``parts`` as it comes (so a caller keeps them when a step raises); returns why the run
    is still paused, or None."""
    parts.append(start())
    values = pending(parts[-1])
    while values and len(parts) <= MAX_RESUMES:
        parts.append(step(parts[-1]))
        values = pending(parts[-1])
    return still_paused(values[0], on_interrupt) if values else None
