"""Provenance in the Eino dialect: what the handlers' state rewrites did to the tools and the
instruction before the model layers ran.

Eino's handlers change what the model sees mostly outside the model chain: before_agent
returns other tools or another instruction, and before/after_model_rewrite_state rewrite
``state.tool_infos`` and ``state.messages``. A rewrite made for one model call can shape the
next (messages persist), so the run notes each change, (owner, before, after), as views the
provenance reads like requests; the engine puts them ahead of the model layers' own notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.messages import Message, SystemMessage
from hookproof.provenance import Provenance, ResolvedWhenCopied, compute

__all__ = ["AgentProvenance", "RequestShape", "note_agent_change", "note_state_change", "shape"]


@dataclass(frozen=True, slots=True)
class RequestShape:
    """The two parts of a request provenance follows: the tools and the system message."""

    tools: Sequence[Any]
    system_message: SystemMessage | None


def shape(tools: Sequence[Any] | None, messages: Sequence[Message]) -> RequestShape:
    first = messages[0] if messages else None
    system = first if isinstance(first, SystemMessage) else None
    return RequestShape(tuple(tools or ()), system)


def note_state_change(run: Any, owner: str, before: Any, after: Any) -> None:
    """A state rewrite that changed the tool infos or the system message."""
    if after is before:
        return
    old = shape(before.tool_infos, before.messages)
    new = shape(after.tool_infos, after.messages)
    if old != new:
        run.provenance_edits.append((owner, old, new))


def note_agent_change(run: Any, owner: str, before: Any, after: Any) -> None:
    """before_agent returned other tools or another instruction."""
    if after.tools is not before.tools or after.instruction != before.instruction:
        run.agent_changers.append(owner)


class AgentProvenance(ResolvedWhenCopied):
    """The provenance of every model call that receives the agent's own tools and
    instruction with no change on the way: a function of the agent alone, so one value per
    agent, computed on first use (most FinalRequests are never rendered). A copy or a pickle
    holds the result, as for the engine's pending provenance."""

    __slots__ = ("_base", "_result")

    def __init__(self, base: RequestShape) -> None:
        self._base = base
        self._result: Provenance | None = None

    def resolve(self) -> Provenance:
        result = self._result
        if result is None:  # two threads may both compute it: the same value
            result = self._result = compute(self._base, (), self._base, {})
        return result
