"""The one converter from agentic messages to hookproof messages (used at the runtime's input)."""

from __future__ import annotations

import json
from typing import Any

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


def _media(payload: Any, cls: type) -> Any:
    data = {
        "url": payload.url or None,
        "base64": payload.base64_data or None,
        "mime_type": payload.mime_type or None,
    }
    if cls is FileBlock:
        data["name"] = payload.name or None
    return cls(**data)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw else {}
    except (TypeError, ValueError):
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


def _block(block: ContentBlock) -> Any:
    p = block.payload
    if isinstance(p, UserInputText | AssistantGenText):
        return TextBlock(text=p.text)
    if isinstance(p, Reasoning):
        return ReasoningBlock(reasoning=p.text)
    media = {
        UserInputImage: ImageBlock,
        UserInputAudio: AudioBlock,
        UserInputVideo: VideoBlock,
        UserInputFile: FileBlock,
    }
    for kind, cls in media.items():
        if isinstance(p, kind):
            return _media(p, cls)
    if isinstance(p, ServerToolCall | MCPToolCall):
        return ToolCallBlock(
            id=p.call_id or None,
            name=p.name,
            args=_arguments(p.arguments),
            extras={"kind": p.block_type},
        )
    if isinstance(p, ServerToolResult | MCPToolResult | FunctionToolResult):
        text = p.result if isinstance(p.result, str) else json.dumps(p.result, sort_keys=True)
        return ToolResultBlock(tool_call_id=p.call_id, text=text, extras={"kind": p.block_type})
    return TextBlock(
        text=json.dumps(p.model_dump(mode="json"), sort_keys=True), extras={"kind": p.block_type}
    )


def to_message(message: AgenticMessage) -> Message:
    """system/user/assistant/tool agentic messages become the matching hookproof message;
    function tool calls become tool_calls, a function tool result becomes a ToolMessage."""
    calls = [b.payload for b in message.content_blocks if isinstance(b.payload, FunctionToolCall)]
    blocks = [
        _block(b) for b in message.content_blocks if not isinstance(b.payload, FunctionToolCall)
    ]
    if message.role == "system":
        return SystemMessage(content=blocks)
    if message.role == "user":
        return UserMessage(content=blocks)
    if message.role == "assistant":
        tool_calls = [
            ToolCall(name=c.name, args=_arguments(c.arguments), id=c.call_id or None) for c in calls
        ]
        return AssistantMessage(content=blocks, tool_calls=tool_calls)
    result = next(
        (b.payload for b in message.content_blocks if isinstance(b.payload, FunctionToolResult)),
        None,
    )
    call_id = result.call_id if result is not None else ""
    texts = [
        b.payload.result
        for b in message.content_blocks
        if isinstance(b.payload, FunctionToolResult)
    ]
    return ToolMessage(
        content="\n".join(texts), tool_call_id=call_id, name=result.name if result else None
    )
