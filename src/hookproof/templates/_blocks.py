"""Agentic messages and their typed content blocks.

A ContentBlock holds one typed payload; ``new_content_block(payload)`` sets the block's type
from the payload, so the two can never disagree (a mismatch given by hand is an error).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from hookproof.errors import InvalidInputError, UsageError

__all__ = [
    "AgenticMessage",
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


class UserInputText(_Payload):
    block_type: ClassVar[str] = "user_input_text"
    text: str = ""


class _Media(_Payload):
    url: str = ""
    base64_data: str = ""
    mime_type: str = ""


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


class AssistantGenText(_Payload):
    block_type: ClassVar[str] = "assistant_gen_text"
    text: str = ""


class Reasoning(_Payload):
    block_type: ClassVar[str] = "reasoning"
    text: str = ""


class FunctionToolCall(_Payload):
    block_type: ClassVar[str] = "function_tool_call"
    call_id: str = ""
    name: str = ""
    arguments: str = ""


class FunctionToolResult(_Payload):
    block_type: ClassVar[str] = "function_tool_result"
    call_id: str = ""
    name: str = ""
    result: str = ""


class ServerToolCall(_Payload):
    block_type: ClassVar[str] = "server_tool_call"
    call_id: str = ""
    name: str = ""
    arguments: Any = None


class ServerToolResult(_Payload):
    block_type: ClassVar[str] = "server_tool_result"
    call_id: str = ""
    name: str = ""
    result: Any = None


class MCPToolCall(_Payload):
    block_type: ClassVar[str] = "mcp_tool_call"
    server_label: str = ""
    call_id: str = ""
    name: str = ""
    arguments: str = ""


class MCPToolResult(_Payload):
    block_type: ClassVar[str] = "mcp_tool_result"
    server_label: str = ""
    call_id: str = ""
    name: str = ""
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
            if isinstance(block.payload, UserInputText | AssistantGenText)
        ]
        return "\n".join(parts)

    def to_message(self) -> Any:
        """The equivalent hookproof message (the runtime calls this at its input boundary)."""
        from hookproof.templates._convert import to_message

        return to_message(self)


def payload_type(name: str) -> type[_Payload]:
    try:
        return _PAYLOADS[name]
    except KeyError:
        raise InvalidInputError(
            f"hookproof: unknown content block type {name!r}; known: {sorted(_PAYLOADS)}."
        ) from None
