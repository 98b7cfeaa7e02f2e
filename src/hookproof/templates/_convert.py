"""The one converter from agentic messages to hookproof messages (used at the runtime's input)."""

from __future__ import annotations

import json
from typing import Any

from hookproof.errors import InvalidInputError
from hookproof.messages import (
    AssistantMessage,
    AudioBlock,
    FileBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolCallBlock,
    ToolMessage,
    ToolResultBlock,
    UserMessage,
    VideoBlock,
)
from hookproof.templates._blocks import (
    AgenticMessage,
    AssistantGenText,
    ContentBlock,
    FunctionToolCall,
    FunctionToolResult,
    MCPToolCall,
    MCPToolResult,
    Reasoning,
    ServerToolCall,
    ServerToolResult,
    UserInputAudio,
    UserInputFile,
    UserInputImage,
    UserInputText,
    UserInputVideo,
)

__all__ = ["to_message"]


def _media(payload: Any, cls: type, block: ContentBlock) -> Any:
    data: dict[str, Any] = {
        "url": payload.url or None,
        "base64": payload.base64_data or None,
        "mime_type": payload.mime_type or None,
        "cache_control": block.extra.get("cache_control"),
        "extras": {k: v for k, v in block.extra.items() if k != "cache_control"},
    }
    if cls is FileBlock:
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
    UserInputImage: ImageBlock,
    UserInputAudio: AudioBlock,
    UserInputVideo: VideoBlock,
    UserInputFile: FileBlock,
}


def _block(block: ContentBlock) -> Any:
    p = block.payload
    meta = {"cache_control": block.extra.get("cache_control")}
    extras = {k: v for k, v in block.extra.items() if k != "cache_control"}
    if isinstance(p, UserInputText | AssistantGenText):
        return TextBlock(text=p.text, extras=extras, **meta)
    if isinstance(p, Reasoning):
        return ReasoningBlock(reasoning=p.text, extras=extras, **meta)
    for kind, cls in _MEDIA.items():
        if isinstance(p, kind):
            return _media(p, cls, block)
    if isinstance(p, ServerToolCall | MCPToolCall):
        args = _arguments(p.arguments)
        return ToolCallBlock(
            id=p.call_id or None, name=p.name, args=args, extras={**extras, "kind": p.block_type}
        )
    if isinstance(p, ServerToolResult | MCPToolResult | FunctionToolResult):
        text = p.result if isinstance(p.result, str) else json.dumps(p.result, sort_keys=True)
        error = getattr(p, "error", "")
        return ToolResultBlock(
            tool_call_id=p.call_id,
            text=error or text,
            status="error" if error else "success",
            extras={**extras, "kind": p.block_type},
        )
    text = json.dumps(p.model_dump(mode="json"), sort_keys=True)
    return TextBlock(text=text, extras={**extras, "kind": p.block_type})


def _tool_message(message: AgenticMessage) -> Message:
    results = [
        b.payload for b in message.content_blocks if isinstance(b.payload, FunctionToolResult)
    ]
    if len(results) != 1:
        raise InvalidInputError(
            f"hookproof: an agentic tool message must hold exactly one function tool result "
            f"(found {len(results)}); split it into one tool message per call."
        )
    result = results[0]
    others = [
        _block(b) for b in message.content_blocks if not isinstance(b.payload, FunctionToolResult)
    ]
    return ToolMessage(
        content=[TextBlock(text=result.result), *others],
        tool_call_id=result.call_id,
        name=result.name or None,
    )


def to_message(message: AgenticMessage) -> Message:
    """system/user/assistant/tool agentic messages become the matching hookproof message;
    function tool calls become tool_calls, a function tool result becomes a ToolMessage."""
    if message.role == "tool":
        return _tool_message(message)
    calls = [b.payload for b in message.content_blocks if isinstance(b.payload, FunctionToolCall)]
    blocks = [
        _block(b) for b in message.content_blocks if not isinstance(b.payload, FunctionToolCall)
    ]
    if message.role == "system":
        return SystemMessage(content=blocks)
    if message.role == "user":
        return UserMessage(content=blocks)
    tool_calls = [
        ToolCall(name=c.name, args=_arguments(c.arguments), id=c.call_id or None) for c in calls
    ]
    return AssistantMessage(content=blocks, tool_calls=tool_calls)
