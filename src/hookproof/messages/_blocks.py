"""Content blocks: text, media, reasoning, tool calls and results inside a message."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from hookproof._support.frozen import FrozenDict
from hookproof._support.frozen_model import FrozenMap, ImmutableModel

__all__ = [
    "AudioBlock",
    "ContentBlock",
    "FileBlock",
    "ImageBlock",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "VideoBlock",
]

_EMPTY = FrozenDict()


class _Block(ImmutableModel):
    id: str | None = None
    cache_control: FrozenMap | None = None
    extras: FrozenMap = _EMPTY


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str


class _MediaBlock(_Block):
    url: str | None = None
    base64: str | None = None
    file_id: str | None = None
    mime_type: str | None = None


class ImageBlock(_MediaBlock):
    type: Literal["image"] = "image"


class AudioBlock(_MediaBlock):
    type: Literal["audio"] = "audio"


class VideoBlock(_MediaBlock):
    type: Literal["video"] = "video"


class FileBlock(_MediaBlock):
    type: Literal["file"] = "file"
    name: str | None = None


class ReasoningBlock(_Block):
    type: Literal["reasoning"] = "reasoning"
    reasoning: str


class ToolCallBlock(_Block):
    """A tool call inside content; ``id`` is the call id."""

    type: Literal["tool_call"] = "tool_call"
    name: str
    args: FrozenMap = _EMPTY


class ToolResultBlock(_Block):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    text: str = ""
    status: Literal["success", "error"] = "success"


ContentBlock: TypeAlias = Annotated[
    TextBlock
    | ImageBlock
    | AudioBlock
    | VideoBlock
    | FileBlock
    | ReasoningBlock
    | ToolCallBlock
    | ToolResultBlock,
    Field(discriminator="type"),
]
