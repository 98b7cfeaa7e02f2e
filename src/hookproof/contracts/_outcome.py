"""What a run made of the call a check scripted: a crash, a refusal as an unknown tool, a
rejected review, or a call that was never put to the agent at all."""

from __future__ import annotations

from collections.abc import Sequence

from hookproof.contracts._report import attempted_calls
from hookproof.messages import ToolMessage
from hookproof.targets import Target, TargetRun
from hookproof.targets.interrupts import REJECTION
from hookproof.tools import ToolSchema

__all__ = [
    "crash",
    "never_tried",
    "rejected",
    "rejection",
    "shown_tools",
    "tiers_arg",
    "unknown",
    "untried",
]


def tiers_arg(tiers: Sequence[str] | None) -> str:
    """The ``tiers=`` part of a replay line ("" without tiers)."""
    return f", tiers={tuple(tiers)!r}" if tiers else ""


def crash(run: TargetRun) -> str:
    error = run.error
    return f"{type(error).__name__}: {error}" if error is not None else ""


def unknown(target: Target, text: str) -> bool:
    """Whether ``text`` (a tool answer or an error) is the target's "no such tool"."""
    return any(marker in text for marker in target.unknown_tool_markers)


def never_tried(run: TargetRun, name: str) -> str | None:
    """Why the scripted call to ``name`` was never put to the agent's tool step, or None
    when it was (it was answered, or the run went on past it without pausing)."""
    if run.paused is not None:
        return f"{name}: the call was never answered: {run.paused}"
    if not run.final_requests:
        return f"{name}: the model was never called, so the call was never made"
    if name not in [call.name for call in attempted_calls(run)]:
        return f"{name}: the model's call to it never reached the run's history"
    return None


def untried(run: TargetRun, name: str) -> str:
    """Why the call to ``name`` got no answer, for the untested list."""
    return never_tried(run, name) or f"{name}: the run ended without answering the call"


def rejected(answer: ToolMessage | None) -> bool:
    return answer is not None and REJECTION in answer.text


def rejection(name: str) -> str:
    return (
        f"{name}: the call was answered by rejecting the human review (on_interrupt="
        "'reject'), so what the agent does with an approved call was not tried"
    )


def shown_tools(run: TargetRun) -> dict[str, ToolSchema]:
    """The tools the model was shown on the run's first call, by name."""
    first = run.final_requests[0] if run.final_requests else None
    return {tool.name: tool for tool in first.tools} if first is not None else {}
