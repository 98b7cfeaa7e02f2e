"""Following ``task`` into subagents: a context must not gain a tool, or skip a review,
through a subagent.

A deep agent's ``task`` tool hands work to subagents (the declared ones and the default
general-purpose one), which run with their own tools and middleware. The checks find the
subagents in the ``task`` tool's description (``- name: what it does`` lines, as the harness
and deepagents write them) and run a script that delegates to each: the main agent calls
``task`` for that subagent with a marked description, and the subagent, recognised by the
mark, makes the call under test.
"""

from __future__ import annotations

import re
from typing import Any

from hookproof.models import FinalRequest, call
from hookproof.targets import TargetRun

__all__ = ["MARK", "Delegating", "in_subagent", "subagent_requests", "subagents_of"]

MARK = "hookproof-check: act as the subagent"
_LISTED = re.compile(r"^\s*-\s*([\w.-]+):", re.M)


def subagents_of(run: TargetRun) -> list[str]:
    """The subagents the ``task`` tool offers in the run's first model call ([] without one)."""
    first = run.final_requests[0] if run.final_requests else None
    if first is None or "task" not in first.tool_names:
        return []
    return _LISTED.findall(first.tool("task").description)


def in_subagent(request: FinalRequest) -> bool:
    return any(message.role == "user" and MARK in message.text for message in request.messages)


class Delegating:
    """A script: the main agent delegates to ``subagent``, which plays ``turn`` once and
    then answers; everyone answers once a tool has answered them. Its repr is stable, so a
    check can cache runs by script."""

    def __init__(self, subagent: str, turn: Any) -> None:
        self.subagent, self.turn = subagent, turn

    def __call__(self, request: FinalRequest) -> Any:
        if any(message.role == "tool" for message in request.messages):
            return "done"
        if in_subagent(request):
            return self.turn
        task = {"description": f"{MARK} ({self.subagent})", "subagent_type": self.subagent}
        return call("task", task)

    def __repr__(self) -> str:
        return f"Delegating({self.subagent!r}, {self.turn!r})"


def subagent_requests(run: TargetRun) -> list[FinalRequest]:
    """The model calls the subagent made: every recorded call, the nested runs included."""
    recorded = [r for model in run.models.values() for r in model.requests] or list(
        run.final_requests
    )
    return [request for request in recorded if in_subagent(request)]
