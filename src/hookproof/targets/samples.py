"""Sample requests, states and hook callers that middleware checks run hooks on.

The samples carry every kind of metadata a careless edit loses (ids, names, cache control,
additional_kwargs, response_metadata, extras), so a check sees any loss. A framework's target
builds its own versions of them (``Target.sample_model_request``, ``Target.node_samples``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof._frozen import FrozenDict, FrozenList, freeze
from hookproof.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    RemoveMessage,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.runtime import ModelRequest, Runtime, ToolCallRequest, ToolRuntime
from hookproof.tools import tool

__all__ = [
    "NodeSamples",
    "PassedOn",
    "node_call",
    "sample_messages",
    "sample_request",
    "sample_state",
    "sample_system_message",
    "sample_tool_request",
    "sync_call",
    "written_messages",
]


@tool
def sample_search(query: str, limit: int = 5) -> str:
    """Search the sample knowledge base."""
    return f"results for {query}"


@tool
def sample_export(customer_id: str) -> str:
    """Export a sample report."""
    return f"report {customer_id}"


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
        id="system-1",
        name="base-prompt",
        additional_kwargs={"tenant": "t-1", "tags": ["a", "b"]},
        response_metadata={"revision": 7},
    )


def sample_messages() -> list[Message]:
    """Messages of every role with the metadata a careless rebuild loses."""
    return [
        UserMessage(
            content=[
                TextBlock(text="Find the refund policy.", cache_control={"type": "ephemeral"}),
                TextBlock(text="My card ends in 4242.", id="u1-b1"),
            ],
            id="u1",
            name="customer",
            additional_kwargs={"channel": "web"},
        ),
        AssistantMessage(
            content="",
            tool_calls=[ToolCall(name="sample_search", args={"query": "refund"}, id="c1")],
            id="a1",
            response_metadata={"model": "sample-model", "finish_reason": "tool_calls"},
        ),
        ToolMessage(
            content="results for refund",
            tool_call_id="c1",
            name="sample_search",
            id="t1",
            additional_kwargs={"source": "kb"},
        ),
    ]


def sample_request(model: Any = "sample-model", context: Any = None) -> ModelRequest:
    """A rich ModelRequest: messages of every role, tools, settings, state and runtime."""
    messages = sample_messages()
    return ModelRequest.create(
        model=model,
        messages=messages,
        system_message=sample_system_message(),
        tools=[sample_search, sample_export],
        tool_choice="auto",
        state={"messages": messages, "notes": {"k": [1, 2]}},
        runtime=Runtime(context=context),
        model_settings={"temperature": 0.2, "stop": ["END"]},
    )


def sample_state() -> FrozenDict:
    """The state a node hook receives: the sample messages and one more key."""
    return FrozenDict({"messages": FrozenList(sample_messages()), "notes": freeze({"k": [1, 2]})})


def sample_tool_request(context: Any = None) -> ToolCallRequest:
    """A ToolCallRequest for one sample_search call, its runtime carrying ``context``."""
    tool_call = ToolCall(name="sample_search", args={"query": "refund"}, id="c9")
    state = FrozenDict({"messages": FrozenList()})
    runtime: ToolRuntime[Any] = ToolRuntime(
        context=context, state=state, tool_call_id="c9", tool_call=tool_call
    )
    return ToolCallRequest(tool_call=tool_call, tool=sample_search, state=state, runtime=runtime)


def sync_call(async_hook: Callable[..., Any]) -> Callable[[Any, Callable[..., Any]], Any]:
    """An async wrap hook as a plain call: it runs on its own loop with a sync handler."""

    def run(request: Any, handler: Callable[..., Any]) -> Any:
        async def async_handler(changed: Any) -> Any:
            return handler(changed)

        return asyncio.run(async_hook(request, async_handler))

    return run


def node_call(sync: Any, async_: Any) -> Callable[[Any, Any], Any] | None:
    """A node hook as a plain call ``(state, runtime)``; an async-only one runs on its loop."""
    if callable(sync):
        return sync  # type: ignore[no-any-return]
    if callable(async_):
        return lambda state, runtime: asyncio.run(async_(state, runtime))
    return None


def written_messages(outcome: Any) -> list[Any] | None:
    """The messages a node hook's outcome writes (a dict, a Command whose update is a dict
    or a list of (key, value) pairs; one message or a list), or None."""
    update = outcome if isinstance(outcome, Mapping) else getattr(outcome, "update", None)
    if isinstance(update, list | tuple):
        update = {pair[0]: pair[1] for pair in update if isinstance(pair, tuple) and len(pair) == 2}
    written = update.get("messages") if isinstance(update, Mapping) else None
    if written is None:
        return None
    return list(written) if isinstance(written, list | tuple) else [written]


@dataclass(frozen=True)
class NodeSamples:
    """What node hooks are run on: the hook lookup, a sample state and runtime, and how to
    read the messages of a state update (as hookproof messages)."""

    hook: Callable[[object, str], Callable[[Any, Any], Any] | None]
    state: Callable[[], Any]
    runtime: Callable[[], Any]
    messages: Callable[[Sequence[Any]], list[Message]]
    replaces_all: Callable[[Sequence[Any]], bool]
    written: Callable[[Any, Any], list[Any] | None] = lambda outcome, _given: written_messages(
        outcome
    )
    state_messages: Callable[[Any], Sequence[Any]] = lambda state: state.get("messages", ())


def hookproof_messages(items: Sequence[Any]) -> list[Message]:
    return [item for item in items if isinstance(item, Message)]


def replaces_all(items: Sequence[Any]) -> bool:
    """Whether a state update removes every message before writing its own."""
    return any(isinstance(item, RemoveMessage) and item.id == RemoveMessage.ALL for item in items)


@dataclass(frozen=True)
class PassedOn:
    """What a wrap_model_call received and passed on to its handler, as hookproof messages."""

    system_before: SystemMessage
    system_after: SystemMessage | None
    messages_before: Sequence[Message]
    messages_after: Sequence[Message]
