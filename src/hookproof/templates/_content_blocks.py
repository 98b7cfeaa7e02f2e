"""The typed content blocks of agentic messages.

A ContentBlock holds one typed payload; ``new_content_block(payload)`` sets the block's type
from the payload, so the two can never disagree (a mismatch given by hand is an error).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from hookproof.errors import UsageError

__all__ = [
    "AssistantGenText",
    "ContentBlock",
    "FunctionToolCall",
    "FunctionToolResult",
    "MCPToolCall",
    "MCPToolResult",
    "Reasoning",
    "ServerToolCall",
    "ServerToolResult",
    "ToolSearchResult",
    "UserInputAudio",
    "UserInputFile",
    "UserInputImage",
    "UserInputText",
    "UserInputVideo",
    "new_content_block",
]


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    block_type: ClassVar[str]


class _Text(_Payload):
    text: str = ""


class _Media(_Payload):
    url: str = ""
    base64_data: str = ""
    mime_type: str = ""


class _ToolExchange(_Payload):
    """A tool call or its result: which call, and the tool's name."""

    call_id: str = ""
    name: str = ""


class UserInputText(_Text):
    block_type: ClassVar[str] = "user_input_text"


class UserInputImage(_Media):
    block_type: ClassVar[str] = "user_input_image"
    detail: str = ""


class UserInputAudio(_Media):
    block_type: ClassVar[str] = "user_input_audio"


class UserInputVideo(_Media):
    block_type: ClassVar[str] = "user_input_video"


class UserInputFile(_Media):
    block_type: ClassVar[str] = "user_input_file"
    name: str = ""


class AssistantGenText(_Text):
    block_type: ClassVar[str] = "assistant_gen_text"


class Reasoning(_Text):
    block_type: ClassVar[str] = "reasoning"


class FunctionToolCall(_ToolExchange):
    block_type: ClassVar[str] = "function_tool_call"
    arguments: str = ""


class FunctionToolResult(_ToolExchange):
    block_type: ClassVar[str] = "function_tool_result"
    result: str = ""


class ServerToolCall(_ToolExchange):
    block_type: ClassVar[str] = "server_tool_call"
    arguments: Any = None


class ServerToolResult(_ToolExchange):
    block_type: ClassVar[str] = "server_tool_result"
    result: Any = None


class MCPToolCall(_ToolExchange):
    block_type: ClassVar[str] = "mcp_tool_call"
    server_label: str = ""
    arguments: str = ""


class MCPToolResult(_ToolExchange):
    block_type: ClassVar[str] = "mcp_tool_result"
    server_label: str = ""
    result: str = ""
    error: str = ""


class ToolSearchResult(_Payload):
    block_type: ClassVar[str] = "tool_search_result"
    tools: tuple[str, ...] = ()


_PAYLOADS: dict[str, type[_Payload]] = {
    cls.block_type: cls
    for cls in (
        UserInputText,
        UserInputImage,
        UserInputAudio,
        UserInputVideo,
        UserInputFile,
        AssistantGenText,
        Reasoning,
        FunctionToolCall,
        FunctionToolResult,
        ServerToolCall,
        ServerToolResult,
        MCPToolCall,
        MCPToolResult,
        ToolSearchResult,
    )
}


class ContentBlock(BaseModel):
    """One content block: ``type`` names the payload's kind; ``extra`` is free metadata."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    type: str
    payload: _Payload
    extra: dict[str, Any] = {}

    @model_validator(mode="after")
    def _type_matches_payload(self) -> ContentBlock:
        if self.type != self.payload.block_type:
            raise ValueError(
                f"block type {self.type!r} disagrees with its {type(self.payload).__name__} "
                f"payload ({self.payload.block_type!r}); build blocks with new_content_block()"
            )
        return self


def new_content_block(payload: _Payload, **extra: Any) -> ContentBlock:
    """A block whose type is read from the payload."""
    if not isinstance(payload, _Payload):
        raise UsageError(
            f"hookproof: new_content_block takes a payload such as UserInputText(text=...), "
            f"not {type(payload).__name__}. Payload types: {sorted(_PAYLOADS)}."
        )
    return ContentBlock(type=payload.block_type, payload=payload, extra=extra)
