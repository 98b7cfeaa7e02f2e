"""Tool calls a provider could not parse, answered before the model sees them again.

A provider whose tool call arguments are malformed or truncated JSON hands back no tool call
but an invalid one (LangChain keeps them in ``AIMessage.invalid_tool_calls``; hookproof's
LangChain adapters keep them in the assistant message's ``additional_kwargs`` under that
key). Nothing runs them, so the run ends on that turn; on the next model call, LangChain's
create_agent answers each one that has an id and no ToolMessage yet with an error
ToolMessage right after its assistant message, since providers reject a history with an
unanswered call. The reference runtime does the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hookproof._support.frozen import FrozenList
from hookproof._support.history import History
from hookproof.messages import AssistantMessage, Message, ToolMessage, text_message

__all__ = ["INVALID_TOOL_CALLS", "answer_invalid_calls"]

INVALID_TOOL_CALLS = "invalid_tool_calls"


def answer_invalid_calls(
    messages: FrozenList[Message], settled: Sequence[Message] = ()
) -> FrozenList[Message]:
    """``messages`` with an error ToolMessage after each unanswered invalid call; the same
    object when there is none to answer. ``settled`` is an earlier history that had none to
    answer: when ``messages`` begins with it, only the messages after it are read (appending
    never takes an answer away), so a run's model calls read each message once."""
    history: Sequence[Message] = messages  # the engine's is a History (typed as a FrozenList)
    fresh: Sequence[Message] | None = None
    if type(history) is History:
        fresh = history.since(settled)
    if fresh is None:
        fresh = messages[len(settled) if _begins_with(messages, settled) else 0 :]
    for message in fresh:
        # Most messages carry no additional_kwargs: only those that do are read further.
        if message.additional_kwargs and _invalid_calls(message):
            break
    else:
        return messages
    answered = {item.tool_call_id for item in messages if isinstance(item, ToolMessage)}
    repaired: list[Message] = []
    for message in messages:
        repaired.append(message)
        for call in _invalid_calls(message):
            call_id = call.get("id")
            if call_id is None or call_id in answered:
                continue
            repaired.append(_error_answer(str(call_id), call.get("name") or "unknown"))
            answered.add(str(call_id))
    return messages if len(repaired) == len(messages) else FrozenList(repaired)


def _begins_with(messages: Sequence[Message], head: Sequence[Message]) -> bool:
    if type(messages) is History and messages.shares_prefix(head):
        return len(head) > 0  # a later version of the same shared history: O(1)
    # A C-level pass: the same message objects compare by identity before any field.
    return 0 < len(head) <= len(messages) and messages[: len(head)] == head


def _invalid_calls(message: Message) -> Sequence[Mapping[str, Any]]:
    if not isinstance(message, AssistantMessage):
        return ()
    found = message.additional_kwargs.get(INVALID_TOOL_CALLS)
    if not isinstance(found, Sequence) or isinstance(found, str):
        return ()
    return [call for call in found if isinstance(call, Mapping)]


def _error_answer(call_id: str, name: str) -> ToolMessage:
    # The words LangChain's create_agent sends, so the model sees the same request on both.
    text = (
        f"Tool call {name} with id {call_id} could not be executed - arguments were "
        "malformed or truncated."
    )
    return text_message(ToolMessage, text, tool_call_id=call_id, name=str(name), status="error")
