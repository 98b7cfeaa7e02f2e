"""Editing the system message without losing its blocks or metadata."""

from __future__ import annotations

from hookproof.messages import SystemMessage, TextBlock
from hookproof.runtime import ModelRequest


def with_section(request: ModelRequest, text: str) -> ModelRequest:
    """The request with ``text`` appended to the system message as a new text block."""
    block = TextBlock(text=text)
    current = request.system_message
    if current is None:
        return request.override(system_message=SystemMessage(content=[block]))
    updated = current.model_copy(update={"content": [*current.content, block]})
    return request.override(system_message=updated)
