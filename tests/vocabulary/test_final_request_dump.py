"""A FinalRequest's dump keeps what each message is: its tool calls and call ids."""

from __future__ import annotations

from hookproof.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage
from hookproof.requests import FinalRequest


def test_model_dump_keeps_each_messages_own_fields() -> None:
    request = FinalRequest(
        model="m",
        messages=(
            UserMessage("hi"),
            AssistantMessage(tool_calls=[ToolCall(name="lookup", args={"q": "x"}, id="c1")]),
            ToolMessage("found", tool_call_id="c1", status="error"),
        ),
    )
    user, assistant, tool = request.model_dump()["messages"]
    assert "tool_calls" not in user
    assert list(assistant["tool_calls"]) == [{"name": "lookup", "args": {"q": "x"}, "id": "c1"}]
    assert (tool["tool_call_id"], tool["status"]) == ("c1", "error")
    assert '"tool_call_id":"c1"' in request.model_dump_json()
