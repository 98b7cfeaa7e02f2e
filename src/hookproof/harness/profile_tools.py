"""The harness profile's tool exclusions and description overrides, on every model request
and every tool call."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from hookproof.messages import ToolMessage
from hookproof.runtime import AgentMiddleware, ModelRequest, ToolCallRequest
from hookproof.tools import Tool, ToolSchema

__all__ = ["HarnessProfileToolsMiddleware"]

Handler = Callable[[Any], Any]


def _describe(item: Tool | ToolSchema, text: str) -> Tool | ToolSchema:
    return (
        item.with_description(text) if isinstance(item, Tool) else item.override(description=text)
    )


class HarnessProfileToolsMiddleware(AgentMiddleware):
    """The profile's tool layer: overrides descriptions, removes excluded tools from every
    request, and refuses to execute an excluded tool even if a call reaches it."""

    name = "HarnessProfileToolExclusion"

    def __init__(self, excluded: Collection[str], overrides: Mapping[str, str]) -> None:
        self.excluded = frozenset(excluded)
        self.overrides = {key: value for key, value in overrides.items() if key != "task"}

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        tools = [
            _describe(item, self.overrides[item.name]) if item.name in self.overrides else item
            for item in request.tools
            if item.name not in self.excluded
        ]
        return handler(request.override(tools=tools))

    def wrap_tool_call(self, request: ToolCallRequest, handler: Handler) -> Any:
        call = request.tool_call
        if call.name not in self.excluded:
            return handler(request)
        text = f"Error: {call.name} is not available to this agent."
        return ToolMessage(content=text, tool_call_id=call.id or "", name=call.name, status="error")
