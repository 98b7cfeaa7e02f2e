"""Patch dangling tool calls: before a run, every tool call an earlier turn left without a
result gets a cancelled answer, so the model never sees a call without its result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookproof.harness.prompts import CANCELLED_TOOL_CALL
from hookproof.messages import AssistantMessage, Message, RemoveMessage, ToolMessage
from hookproof.runtime import AgentMiddleware

__all__ = ["PatchToolCallsMiddleware"]


class PatchToolCallsMiddleware(AgentMiddleware):
    """Before a run, answer every tool call left without a result by an earlier turn."""

    def before_agent(self, state: Any, runtime: Any) -> Any:
        messages: Sequence[Message] = state["messages"]
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        patched: list[Message] = []
        for message in messages:
            patched.append(message)
            if isinstance(message, AssistantMessage):
                patched += [
                    _cancelled(call.name, call.id or "")
                    for call in message.tool_calls
                    if call.id not in answered
                ]
        if len(patched) == len(messages):
            return None
        return {"messages": [RemoveMessage(id=RemoveMessage.ALL), *patched]}


def _cancelled(name: str, call_id: str) -> ToolMessage:
    text = CANCELLED_TOOL_CALL.format(name=name, call_id=call_id)
    return ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")
