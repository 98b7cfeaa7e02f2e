"""What one run of a check on hookproof's own dialects reads and makes: its input, the
boundaries it reached, a checkpointer when it may pause, and its trace, requests and models
put together across resumes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from hookproof.messages import coerce_messages
from hookproof.runtime import InMemoryCheckpointer
from hookproof.targets._base import DEFAULT_INPUT
from hookproof.trace import Trace, TraceEvent

__all__ = ["Reached", "called", "final_requests", "joined", "recorded", "resumable", "run_input"]


class Reached:
    """A probe that only notes each boundary a run reaches (kept when the run raises)."""

    def __init__(self) -> None:
        self.labels: list[str] = []

    def reached(self, label: str) -> None:
        self.labels.append(label)

    async def areached(self, label: str) -> None:
        self.labels.append(label)


def resumable(agent: Any) -> Any:
    """The agent with a checkpointer of its own when it has none, so an interrupt pauses the
    run instead of failing it and the check can answer it."""
    if agent.checkpointer is not None:
        return agent
    return agent.with_checkpointer(InMemoryCheckpointer())


def joined(traces: Sequence[Trace]) -> Trace:
    """One trace of a run and its resumes, numbered through."""
    if len(traces) == 1 and [e.seq for e in traces[0]] == list(range(len(traces[0]))):
        return traces[0]  # a run that never paused is numbered through already
    events = [event for trace in traces for event in trace]
    return Trace(
        tuple(
            TraceEvent(seq, e.kind, e.hook, e.phase, e.middleware, e.depth, e.data)
            for seq, e in enumerate(events)
        )
    )


def called(models: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of the models that received a request."""
    return tuple([name for name, model in models.items() if model.requests])


# DEFAULT_INPUT's messages, made hookproof messages once (immutable: every run may share them)
_DEFAULT_MESSAGES = tuple(coerce_messages(DEFAULT_INPUT["messages"], where="DEFAULT_INPUT"))


def run_input(input: Mapping[str, Any]) -> dict[str, Any]:
    """The run's input: the default one with its messages made once, not on every run."""
    if input is DEFAULT_INPUT:
        return {**input, "messages": _DEFAULT_MESSAGES}
    return dict(input)


def recorded(models: Mapping[str, Any]) -> tuple[Any, ...]:
    """Every request the models recorded, model by model."""
    return tuple(chain.from_iterable([model.requests for model in models.values()]))


def final_requests(parts: Sequence[Any]) -> tuple[Any, ...]:
    """The FinalRequests of a run and its resumes, in order."""
    if len(parts) == 1:
        return tuple(parts[0].final_requests)
    return tuple(chain.from_iterable([part.final_requests for part in parts]))
