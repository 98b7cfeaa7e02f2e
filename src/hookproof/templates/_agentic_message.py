"""AgenticMessage, and the one converter from agentic messages to hookproof messages (used
at the runtime's input)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from hookproof import messages
from hookproof.errors import InvalidInputError
from hookproof.templates import _content_blocks as blocks
from hookproof.templates._content_blocks import ContentBlock

__all__ = ["AgenticMessage", "to_message"]

Role = Literal["system", "user", "assistant", "tool"]


class AgenticMessage(BaseModel):
    """A message made of typed content blocks. It is also a template: ``format`` renders
    its user-input blocks and copies every other block unchanged."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    role: Role
    content_blocks: tuple[ContentBlock, ...] = ()

    @property
    def text(self) -> str:
        """The text of its user-input and generated-text blocks, joined by newlines."""
        parts = [
            block.payload.text
            for block in self.content_blocks
            if isinstance(block.payload, blocks.UserInputText | blocks.AssistantGenText)
        ]
        return "\n".join(parts)

    def to_message(self) -> messages.Message:
        """The equivalent hookproof message (the runtime calls this at its input boundary)."""
        return to_message(self)


def _media(payload: Any, cls: type, block: ContentBlock) -> Any:
    data: dict[str, Any] = {
        "url": payload.url or None,
        "base64": payload.base64_data or None,
        "mime_type": payload.mime_type or None,
        "cache_control": block.extra.get("cache_control"),
        "extras": {k: v for k, v in block.extra.items() if k != "cache_control"},
    }
    if cls is messages.FileBlock:
        data["name"] = payload.name or None
    if getattr(payload, "detail", ""):
        data["extras"] = {**data["extras"], "detail": payload.detail}
    return cls(**data)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw else {}
    except (TypeError, ValueError):
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


_MEDIA = {
    blocks.UserInputImage: messages.ImageBlock,
    blocks.UserInputAudio: messages.AudioBlock,
    blocks.UserInputVideo: messages.VideoBlock,
    blocks.UserInputFile: messages.FileBlock,
}


def _block(block: ContentBlock) -> Any:
    p = block.payload
    meta = {"cache_control": block.extra.get("cache_control")}
    extras = {k: v for k, v in block.extra.items() if k != "cache_control"}
    if isinstance(p, blocks.UserInputText | blocks.AssistantGenText):
        return messages.TextBlock(text=p.text, extras=extras, **meta)
    if isinstance(p, blocks.Reasoning):
        return messages.ReasoningBlock(reasoning=p.text, extras=extras, **meta)
    for kind, cls in _MEDIA.items():
        if isinstance(p, kind):
            return _media(p, cls, block)
    if isinstance(p, blocks.ServerToolCall | blocks.MCPToolCall):
        args = _arguments(p.arguments)
        return messages.ToolCallBlock(
            id=p.call_id or None, name=p.name, args=args, extras={**extras, "kind": p.block_type}
        )
    if isinstance(p, blocks.ServerToolResult | blocks.MCPToolResult | blocks.FunctionToolResult):
        text = p.result if isinstance(p.result, str) else json.dumps(p.result, sort_keys=True)
        error = getattr(p, "error", "")
        return messages.ToolResultBlock(
            tool_call_id=p.call_id,
            text=error or text,
            status="error" if error else "success",
            extras={**extras, "kind": p.block_type},
        )
    text = json.dumps(p.model_dump(mode="json"), sort_keys=True)
    return messages.TextBlock(text=text, extras={**extras, "kind": p.block_type})


def _tool_message(message: AgenticMessage) -> messages.Message:
    results = [
        b.payload
        for b in message.content_blocks
        if isinstance(b.payload, blocks.FunctionToolResult)
    ]
    if len(results) != 1:
        raise InvalidInputError(
            f"hookproof: an agentic tool message must hold exactly one function tool result "
            f"(found {len(results)}); split it into one tool message per call."
        )
    result = results[0]
    others = [
        _block(b)
        for b in message.content_blocks
        if not isinstance(b.payload, blocks.FunctionToolResult)
    ]
    return messages.ToolMessage(
        content=[messages.TextBlock(text=result.result), *others],
        tool_call_id=result.call_id,
        name=result.name or None,
    )


def to_message(message: AgenticMessage) -> messages.Message:
    """system/user/assistant/tool agentic messages become the matching hookproof message;
    function tool calls become tool_calls, a function tool result becomes a ToolMessage."""
    if message.role == "tool":
        return _tool_message(message)
    payloads = [block.payload for block in message.content_blocks]
    calls = [payload for payload in payloads if isinstance(payload, blocks.FunctionToolCall)]
    content = [
        _block(block)
        for block in message.content_blocks
        if not isinstance(block.payload, blocks.FunctionToolCall)
    ]
    if message.role == "system":
        return messages.SystemMessage(content=content)
    if message.role == "user":
        return messages.UserMessage(content=content)
    tool_calls = [
        messages.ToolCall(name=call.name, args=_arguments(call.arguments), id=call.call_id or None)
        for call in calls
    ]
    return messages.AssistantMessage(content=content, tool_calls=tool_calls)
