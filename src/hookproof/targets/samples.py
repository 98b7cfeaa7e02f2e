"""The reference runtime's sample requests and states, which middleware checks run hooks on.

The samples carry every kind of metadata a careless edit loses (ids, names, cache control,
additional_kwargs, response_metadata, extras), so a check sees any loss. Another framework's
``HookSampler`` (``hookproof.targets.sampler``) builds its own versions of them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from hookproof._support.frozen import FrozenDict, FrozenList, freeze
from hookproof.errors import UsageError
from hookproof.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.runtime import ModelRequest, Runtime, ToolCallRequest, ToolRuntime
from hookproof.tools import Tool, ToolSchema, tool

__all__ = [
    "sample_messages",
    "sample_metadata",
    "sample_request",
    "sample_state",
    "sample_system_message",
    "sample_tool_functions",
    "sample_tool_request",
]


def sample_search(query: str, limit: int = 5) -> str:
    """Search the sample knowledge base."""
    return f"results for {query}"


def sample_export(customer_id: str) -> str:
    """Export a sample report."""
    return f"report {customer_id}"


def sample_tool_functions() -> list[Callable[..., str]]:
    """The functions of the sample tools, which each framework makes its own tools of."""
    return [sample_search, sample_export]


_SEARCH, _EXPORT = (tool(function) for function in sample_tool_functions())


_METADATA: dict[str, dict[str, Any]] = {
    "system": {
        "id": "system-1",
        "name": "base-prompt",
        "additional_kwargs": {"tenant": "t-1", "tags": ["a", "b"]},
        "response_metadata": {"revision": 7},
    },
    "user": {"id": "u1", "name": "customer", "additional_kwargs": {"channel": "web"}},
    "assistant": {
        "id": "a1",
        "response_metadata": {"model": "sample-model", "finish_reason": "tool_calls"},
    },
    "tool": {
        "content": "results for refund",
        "tool_call_id": "c1",
        "name": "sample_search",
        "id": "t1",
        "additional_kwargs": {"source": "kb"},
    },
}


def sample_metadata(role: str) -> dict[str, Any]:
    """The metadata of the sample message of ``role`` ("system", "user", "assistant",
    "tool"), a fresh copy: what a careless edit loses, and what another framework's samples
    carry too."""
    return copy.deepcopy(_METADATA[role])


def sample_system_message() -> SystemMessage:
    """A system message with every kind of metadata a careless edit can lose."""
    return SystemMessage(
        content=[
            TextBlock(
                text="You are a careful assistant.", id="b0", cache_control={"type": "ephemeral"}
            ),
            ImageBlock(url="https://example.invalid/logo.png", mime_type="image/png", id="b1"),
            TextBlock(text="Cite your sources.", extras={"origin": "policy"}),
        ],
        **sample_metadata("system"),
    )


def sample_messages() -> list[Message]:
    """Messages of every role with the metadata a careless rebuild loses."""
    return [
        UserMessage(
            content=[
                TextBlock(text="Find the refund policy.", cache_control={"type": "ephemeral"}),
                TextBlock(text="My card ends in 4242.", id="u1-b1"),
            ],
            **sample_metadata("user"),
        ),
        AssistantMessage(
            content="",
            tool_calls=[ToolCall(name="sample_search", args={"query": "refund"}, id="c1")],
            **sample_metadata("assistant"),
        ),
        ToolMessage(**sample_metadata("tool")),
    ]


def sample_request(model: Any = "sample-model", context: Any = None) -> ModelRequest:
    """A rich ModelRequest: messages of every role, tools, settings, state and runtime."""
    messages = sample_messages()
    return ModelRequest.create(
        model=model,
        messages=messages,
        system_message=sample_system_message(),
        tools=[_SEARCH, _EXPORT],
        tool_choice="auto",
        state={"messages": messages, "notes": {"k": [1, 2]}},
        runtime=Runtime(context=context),
        model_settings={"temperature": 0.2, "stop": ["END"]},
    )


def sample_state() -> FrozenDict:
    """The state a node hook receives: the sample messages and one more key."""
    return FrozenDict({"messages": FrozenList(sample_messages()), "notes": freeze({"k": [1, 2]})})


def sample_tool_request(
    context: Any = None, tool: Tool | str | None = None, args: Mapping[str, Any] | None = None
) -> ToolCallRequest:
    """A ToolCallRequest for one call, its runtime carrying ``context``: by default of
    sample_search; else of ``tool`` (a hookproof Tool, or a name for a stand-in tool of that
    name) with ``args`` (none by default)."""
    chosen = _SEARCH if tool is None else _as_tool(tool)
    given = {"query": "refund"} if tool is None else dict(args or {})
    tool_call = ToolCall(name=chosen.name, args=given, id="c9")
    state = FrozenDict({"messages": FrozenList()})
    runtime: ToolRuntime[Any] = ToolRuntime(
        context=context, state=state, tool_call_id="c9", tool_call=tool_call
    )
    return ToolCallRequest(tool_call=tool_call, tool=chosen, state=state, runtime=runtime)


def _as_tool(value: Tool | str) -> Tool:
    """A hookproof Tool, or a stand-in Tool named ``value`` (its function is never run)."""
    if isinstance(value, Tool):
        return value
    if isinstance(value, str):
        return Tool(schema=ToolSchema(name=value, description=f"Stand-in for {value}."))
    raise UsageError(
        f"hookproof: tool= takes a hookproof Tool (made with hookproof.runtime.tool) or a tool "
        f"name, got {type(value).__name__} {value!r}. Pass the tool object your agent "
        "registers, or its name."
    )
