"""Messages, content blocks, metadata and tool specs."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.context import ToolRuntime
from hookproof.errors import ImmutableError, UsageError
from hookproof.messages import (
    AssistantMessage,
    AudioBlock,
    FileBlock,
    ImageBlock,
    ReasoningBlock,
    SystemMessage,
    TextBlock,
    ToolCallBlock,
    ToolMessage,
    ToolResultBlock,
    UserMessage,
    VideoBlock,
    coerce_message,
)
from hookproof.tools import Tool, tool


def _system() -> SystemMessage:
    return SystemMessage(
        [TextBlock(text="base", id="b1", cache_control={"type": "ephemeral"})],
        id="sys",
        name="prompt",
        additional_kwargs={"k": 1},
        response_metadata={"r": 2},
    )


def test_roles_and_text() -> None:
    assert [m.role for m in (SystemMessage("a"), UserMessage("b"), AssistantMessage("c"))] == [
        "system",
        "user",
        "assistant",
    ]
    tool_message = ToolMessage("r", tool_call_id="c1", name="lookup", status="error")
    assert (tool_message.role, tool_message.tool_call_id, tool_message.status) == (
        "tool",
        "c1",
        "error",
    )
    assert SystemMessage(["one", ReasoningBlock(reasoning="hidden"), "two"]).text == "one\ntwo"


def test_every_block_kind_validates_from_dicts() -> None:
    message = UserMessage(
        [
            {"type": "text", "text": "t"},
            {"type": "image", "url": "https://x.invalid/a.png", "mime_type": "image/png"},
            {"type": "audio", "base64": "AAA=", "mime_type": "audio/wav"},
            {"type": "video", "file_id": "f1"},
            {"type": "file", "url": "u", "name": "report.pdf"},
            {"type": "reasoning", "reasoning": "r"},
            {"type": "tool_call", "id": "c1", "name": "lookup", "args": {"q": 1}},
            {"type": "tool_result", "tool_call_id": "c1", "text": "ok"},
        ]
    )
    kinds = [ImageBlock, AudioBlock, VideoBlock, FileBlock, ReasoningBlock, ToolCallBlock]
    assert [type(b) for b in message.content[1:7]] == kinds
    assert isinstance(message.content[7], ToolResultBlock)


def test_unknown_block_type_is_rejected() -> None:
    with pytest.raises(ValueError, match="hologram"):
        UserMessage([{"type": "hologram"}])


def test_model_copy_keeps_metadata_and_validates_new_content() -> None:
    original = _system()
    updated = original.model_copy(
        update={"content": [*original.content, {"type": "text", "text": "scope"}]}
    )
    assert (updated.id, updated.name) == ("sys", "prompt")
    assert updated.additional_kwargs == {"k": 1} and updated.response_metadata == {"r": 2}
    assert updated.content[0].cache_control == {"type": "ephemeral"}
    assert isinstance(updated.content[1], TextBlock)
    assert original.text == "base"


def test_metadata_is_deeply_immutable() -> None:
    with pytest.raises(ImmutableError):
        _system().content[0].cache_control["type"] = "persistent"  # type: ignore[index]


@pytest.mark.parametrize(
    ("value", "role", "text"),
    [
        (("user", "hi"), "user", "hi"),
        (("human", "hi"), "user", "hi"),
        (("ai", "yo"), "assistant", "yo"),
        ({"role": "system", "content": "s"}, "system", "s"),
        ({"role": "tool", "content": "r", "tool_call_id": "c"}, "tool", "r"),
    ],
)
def test_coerce_message(value: Any, role: str, text: str) -> None:
    message = coerce_message(value)
    assert (message.role, message.text) == (role, text)  # type: ignore[union-attr]


def test_tool_schema_comes_from_pydantic_and_hides_the_runtime() -> None:
    @tool("lookup_customer")
    def lookup(customer_id: str, runtime: ToolRuntime[dict[str, str]], limit: int = 3) -> str:
        """Look up a customer."""
        return f"{customer_id}:{limit}:{runtime.tool_call_id}"

    assert isinstance(lookup, Tool)
    assert (lookup.name, lookup.description) == ("lookup_customer", "Look up a customer.")
    assert lookup.parameters == {
        "type": "object",
        "properties": {
            "customer_id": {"title": "Customer Id", "type": "string"},
            "limit": {"default": 3, "title": "Limit", "type": "integer"},
        },
        "required": ["customer_id"],
    }
    runtime: ToolRuntime[Any] = ToolRuntime(state={}, tool_call_id="c7")
    assert lookup.run({"customer_id": "a"}, runtime) == "a:3:c7"


def test_tool_without_description_or_with_varargs_is_rejected() -> None:
    def undocumented(x: int) -> int:
        return x

    with pytest.raises(UsageError, match="no description"):
        tool(undocumented)

    def star(*args: int) -> int:
        """Doc."""
        return 0

    with pytest.raises(UsageError, match=r"\*args"):
        tool(star)


def test_with_description_keeps_the_executor() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    renamed = ping.with_description("Ping, overridden.")
    assert renamed.description == "Ping, overridden." and ping.description == "Ping."
    assert renamed.run({}, ToolRuntime(state={})) == "pong"
