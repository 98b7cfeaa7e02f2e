"""Who sent a FinalRequest: the agent whose model call it was (``Sender``), and the selector
the recording models share (``sent_by``): "the requests of subagent researcher".

The main agent is depth 0; a subagent it runs from a tool (the harness's and deepagents'
``task``, or any tool that invokes another agent) is depth 1; a subagent of that subagent is
depth 2, and so on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol, TypeVar

from hookproof._secrets.installed import redact_installed as redact_text
from hookproof.errors import InvalidInputError, UsageError

__all__ = ["RUNNING_AGENT", "Sender", "sent_by"]


@dataclass(frozen=True, slots=True)
class Sender:
    """The agent that made a model call: its ``name`` (None when the framework gave it
    none: a LangChain ``create_agent`` without ``name=``) and its ``depth`` (0 for the
    main agent, 1 for a subagent it ran from a tool, 2 for a subagent of that one...)."""

    name: str | None
    depth: int

    @property
    def is_subagent(self) -> bool:
        return self.depth > 0

    def describe(self) -> str:
        """``main agent 'support'``, ``subagent 'researcher' (depth 1)``."""
        name = "(unnamed)" if self.name is None else repr(self.name)
        if not self.is_subagent:
            return f"main agent {name}"
        return f"subagent {name} (depth {self.depth})"


class _Sent(Protocol):
    """A FinalRequest, as the selector reads it."""

    @property
    def sender(self) -> Sender | None: ...


R = TypeVar("R", bound=_Sent)


RUNNING_AGENT: ContextVar[Sender | None] = ContextVar("hookproof_running_agent", default=None)
"""The agent of the reference-engine run under way (set by the engine while a run runs), so
a model the engine calls through another framework's client names the same sender."""


def sent_by(
    requests: Sequence[R], agent: str | None, depth: int | None, recorder: str
) -> tuple[R, ...]:
    """The ``requests`` sent by the agent named ``agent`` (any, when None) at ``depth``
    (any, when None), in call order; InvalidInputError saying who did send, when none was."""
    _check_selector(agent, depth)
    found = tuple(item for item in requests if _matches(item.sender, agent, depth))
    if not found:
        raise InvalidInputError(
            f"hookproof: {recorder} recorded no request from {_wanted(agent, depth)}. "
            f"{_senders(requests)} Check the agent's name (create_agent(name=...), a "
            "subagent's 'name') and that the run delegated to it."
        )
    return found


def _matches(sender: Sender | None, agent: str | None, depth: int | None) -> bool:
    if sender is None:
        return False
    return (agent is None or sender.name == agent) and (depth is None or sender.depth == depth)


def _check_selector(agent: object, depth: object) -> None:
    if agent is not None and not isinstance(agent, str):
        raise UsageError(
            f"hookproof: agent= takes an agent's name (a str), got {type(agent).__name__}. "
            'Example: recorder.first(agent="researcher").'
        )
    if depth is not None and (type(depth) is not int or depth < 0):
        raise UsageError(
            f"hookproof: depth= takes 0 (the main agent) or more (a subagent's nesting), got "
            f"{depth!r}. Example: recorder.first(depth=1), the first request of any subagent."
        )


def _wanted(agent: str | None, depth: int | None) -> str:
    named = "any agent" if agent is None else f"agent {agent!r}"
    return named if depth is None else f"{named} at depth {depth}"


def _senders(requests: Sequence[_Sent]) -> str:
    """``It recorded 3 requests: 2 from main agent 'support', 1 from ...``."""
    if not requests:
        return "It recorded no request at all: run the agent first."
    counts = Counter(
        "a caller it could not tell (a request made outside an agent run)"
        if item.sender is None
        else item.sender.describe()
        for item in requests
    )
    listed = ", ".join(f"{count} from {who}" for who, count in counts.items())
    return redact_text(f"It recorded {len(requests)} request(s): {listed}.")
