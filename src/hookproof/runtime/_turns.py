"""A history's last turn as LangChain reads it: the last assistant message and the calls the
ToolMessages after it answer, and the check that a model response does not lose calls by
reusing an earlier message's id."""

from __future__ import annotations

from collections.abc import Sequence

from hookproof._engine import position_of
from hookproof.errors import InvalidInputError
from hookproof.messages import AssistantMessage, Message, ToolMessage

__all__ = ["check_no_call_lost", "last_turn"]


def check_no_call_lost(history: Sequence[Message], response: Sequence[Message]) -> None:
    """A response message with an earlier message's id replaces it in place (add_messages):
    the messages after that place then decide its calls (a ToolMessage there answers a call
    of the same id; a later assistant message leaves them behind), so some would never run.
    Refuse that instead of losing them."""
    for message in response:
        if not isinstance(message, AssistantMessage) or not message.tool_calls or not message.id:
            continue
        place = position_of(history, message.id)
        if place is None:
            continue
        last_ai, answered = last_turn([*history[:place], message, *history[place + 1 :]])
        calls = message.tool_calls
        if last_ai is not message:
            lost = [c.id or c.name for c in calls]
        else:
            lost = [c.id for c in calls if c.id is not None and c.id in answered]
        if lost:
            raise InvalidInputError(
                f"hookproof: the model's response has message id {message.id!r}, the id of "
                f"message [{place}] of the history, so it would replace that message in place, "
                f"and its tool calls {lost} would never run: the messages after that place "
                "already answer them or end that turn. Give each model response its own "
                "message id (or none)."
            )


def last_turn(messages: Sequence[Message]) -> tuple[AssistantMessage | None, set[str]]:
    """The last assistant message and the call ids the ToolMessages after it answer (read
    from the end, so a long history costs only its last turn)."""
    answered: set[str] = set()
    for item in reversed(messages):
        if isinstance(item, AssistantMessage):
            return item, answered
        if isinstance(item, ToolMessage):
            answered.add(item.tool_call_id)
    return None, answered
