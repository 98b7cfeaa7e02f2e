"""The engine's unvalidated constructors build values indistinguishable from validated ones."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof.errors import ImmutableError
from hookproof.messages import (
    AssistantMessage,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
    construct,
    text_message,
)
from hookproof.requests import FinalRequest, ModelRequest, ToolCallRequest
from hookproof.tools import ToolSchema
from tests.helpers import add, lookup

CALL_ARGS = FrozenDict({"query": "x"})


def _pairs() -> list[tuple[Any, Any]]:
    call = construct(ToolCall, name="lookup", args=CALL_ARGS, id="call_0")
    return [
        (call, ToolCall(name="lookup", args={"query": "x"}, id="call_0")),
        (construct(TextBlock, text="hi"), TextBlock(text="hi")),
        (text_message(UserMessage, "hi"), UserMessage("hi")),
        (text_message(AssistantMessage, ""), AssistantMessage("")),
        (
            text_message(AssistantMessage, "", tool_calls=FrozenList((call,))),
            AssistantMessage(
                tool_calls=[{"name": "lookup", "args": {"query": "x"}, "id": "call_0"}]
            ),
        ),
        (
            text_message(
                ToolMessage, "found:x", tool_call_id="call_0", name="lookup", status="error"
            ),
            ToolMessage("found:x", tool_call_id="call_0", name="lookup", status="error"),
        ),
    ]


@pytest.mark.parametrize(("fast", "validated"), _pairs())
def test_constructed_values_equal_print_and_dump_like_validated_ones(
    fast: Any, validated: Any
) -> None:
    assert fast == validated
    assert repr(fast) == repr(validated)
    assert fast.model_dump_json() == validated.model_dump_json()
    assert list(fast.model_dump()) == list(validated.model_dump())  # field order too
    assert fast.model_fields_set == validated.model_fields_set


@pytest.mark.parametrize(("fast", "validated"), _pairs())
def test_constructed_values_stay_deeply_immutable(fast: Any, validated: Any) -> None:
    del validated
    with pytest.raises(Exception, match="frozen"):
        fast.id = "changed"
    for value in fast.__dict__.values():
        if isinstance(value, FrozenList | FrozenDict):
            with pytest.raises(ImmutableError):
                value.clear()


def test_constructed_message_override_validates_and_leaves_the_original() -> None:
    message = text_message(ToolMessage, "found:x", tool_call_id="call_0")
    changed = message.override(content="other")
    assert changed.text == "other"
    assert message == ToolMessage("found:x", tool_call_id="call_0")
    with pytest.raises(ValueError, match="status"):
        message.override(status="maybe")


def test_final_request_schemas_follow_the_request_tools() -> None:
    tools = FrozenList((lookup, add))
    first = FinalRequest.from_request(ModelRequest(model="m", tools=tools))
    again = FinalRequest.from_request(ModelRequest(model="m", tools=tools))
    other = FinalRequest.from_request(ModelRequest(model="m", tools=FrozenList((add,))))
    assert first.tool_names == again.tool_names == ["add", "lookup"]
    assert other.tool_names == ["add"]
    assert FinalRequest.from_request(ModelRequest(model="m", tools=tools)) == first


def test_final_request_schemas_of_a_plain_list_are_never_reused() -> None:
    tools: list[Any] = [lookup]
    request = ModelRequest(model="m", tools=tools)  # type: ignore[arg-type]
    assert FinalRequest.from_request(request).tool_names == ["lookup"]
    tools.append(ToolSchema(name="late"))
    assert FinalRequest.from_request(request).tool_names == ["late", "lookup"]


def test_override_of_every_field_matches_a_fresh_request() -> None:
    system = SystemMessage("be brief")
    request = ModelRequest.create(model="m", messages=[("user", "hi")])
    changed = request.override(system_message="be brief", tool_choice="auto", tools=[lookup])
    assert changed == ModelRequest.create(
        model="m",
        messages=[("user", "hi")],
        system_message=system,
        tool_choice="auto",
        tools=[lookup],
    )
    assert request.system_message is None and request.tools == []


def test_tool_call_request_override_keeps_the_other_fields() -> None:
    call = ToolCall(name="lookup", args={"query": "x"}, id="call_0")
    request = ToolCallRequest(tool_call=call, tool=lookup, state=FrozenDict({"k": 1}))
    changed = request.override(tool_call={"name": "lookup", "args": {"query": "y"}, "id": "c"})
    assert changed.tool is lookup and changed.state == {"k": 1}
    assert changed.tool_call.args == {"query": "y"}
    assert request.tool_call is call
