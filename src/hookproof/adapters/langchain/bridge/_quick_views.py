"""The locked LangChain view of a common hookproof message, built without LangChain's
validation.

Every model call of a bridged agent shows LangChain hooks its messages, and validating a
LangChain message costs more than all the rest of its view. For the common shapes (a user,
system or assistant message with text content, tool calls and metadata) LangChain's
validation keeps every value as given: the view is built from the same values directly, and
equals, dumps and prints as the validated one (``tests/adapters`` compares both on every
shape). Any other message returns None and is validated as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages import SystemMessage as LCSystemMessage

from hookproof._support.frozen import FrozenDict
from hookproof.adapters.langchain._convert import INVALID_TOOL_CALLS, USAGE_METADATA
from hookproof.adapters.langchain.bridge._locked import LockedList, lock
from hookproof.messages import AssistantMessage, SystemMessage, TextBlock, UserMessage

__all__ = ["quick_view"]

_KINDS: dict[type, type[BaseMessage]] = {
    UserMessage: HumanMessage,
    SystemMessage: LCSystemMessage,
    AssistantMessage: AIMessage,
}
# Keys of additional_kwargs that LangChain's validation or hookproof's conversion read.
_READ_KEYS = frozenset({INVALID_TOOL_CALLS, USAGE_METADATA, "tool_calls"})
_TEMPLATES: dict[type, dict[str, Any]] = {}


def quick_view(
    message: Any, locked: Callable[[type[BaseMessage]], type[BaseMessage]]
) -> BaseMessage | None:
    """The view of ``message`` as an instance of ``locked`` (the locked class of its
    LangChain kind, from ``locked(kind)``), or None when its shape needs validation."""
    kind = _KINDS.get(type(message))
    content = _text(message.content)
    extra = message.additional_kwargs
    if kind is None or content is None or not _READ_KEYS.isdisjoint(extra):
        return None
    values: dict[str, Any] = {
        "content": content,
        "id": message.id,
        "name": message.name,
        "response_metadata": lock(message.response_metadata),
    }
    if kind is AIMessage:
        values["invalid_tool_calls"] = LockedList()
        values["usage_metadata"] = None
        values["tool_calls"] = LockedList(
            FrozenDict({"name": c.name, "args": lock(c.args), "id": c.id, "type": "tool_call"})
            for c in message.tool_calls
        )
    values["additional_kwargs"] = lock(extra)
    return _built(locked(kind), values)


def _text(blocks: Any) -> str | None:
    if not blocks:
        return ""
    if len(blocks) != 1:
        return None
    block = blocks[0]
    plain = type(block) is TextBlock and block.id is None and block.cache_control is None
    return block.text if plain and not block.extras else None


def _built(cls: type[BaseMessage], values: dict[str, Any]) -> BaseMessage:
    """An instance of ``cls`` holding ``values``, as LangChain's constructor leaves one given
    them: every field in declaration order, the given ones set, no extra or private values."""
    template = _TEMPLATES.get(cls)
    if template is None:
        template = _TEMPLATES[cls] = {
            name: None if info.is_required() else info.get_default(call_default_factory=True)
            for name, info in cls.model_fields.items()
        }
    instance = cls.__new__(cls)
    object.__setattr__(instance, "__dict__", {**template, **values})
    object.__setattr__(instance, "__pydantic_fields_set__", set(values))
    object.__setattr__(instance, "__pydantic_extra__", {})
    object.__setattr__(instance, "__pydantic_private__", None)
    return instance
