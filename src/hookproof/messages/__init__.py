"""Messages and content blocks: the immutable vocabulary every part of hookproof speaks.

A message has a role (system, user, assistant, tool), a tuple of typed content blocks and
metadata (id, name, additional_kwargs, response_metadata). Blocks carry their own id,
cache_control and extras. Nothing here can be changed in place: ``model_copy(update=...)``
and ``override(...)`` validate and return a new message, so metadata survives edits.
"""

from typing import TYPE_CHECKING

# construct and text_message build messages unvalidated on hookproof's hot paths: importable
# from here, not part of __all__.
from hookproof._support.frozen_model import construct as construct
from hookproof.compat import deprecated_aliases
from hookproof.messages._blocks import (
    AudioBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
)
from hookproof.messages._coerce import coerce_message, coerce_messages
from hookproof.messages._message import (
    AssistantMessage,
    Message,
    RemoveMessage,
    Role,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.messages._message import text_message as text_message

__all__ = [
    "AssistantMessage",
    "AudioBlock",
    "ContentBlock",
    "FileBlock",
    "ImageBlock",
    "Message",
    "ReasoningBlock",
    "RemoveMessage",
    "Role",
    "SystemMessage",
    "TextBlock",
    "ToolCall",
    "ToolCallBlock",
    "ToolMessage",
    "ToolResultBlock",
    "UserMessage",
    "VideoBlock",
    "coerce_message",
    "coerce_messages",
]

if not TYPE_CHECKING:  # the old names warn at run time; mypy reports them as missing
    __getattr__ = deprecated_aliases(__name__)
