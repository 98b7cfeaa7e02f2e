"""Turning what users write — ("role", "text") tuples, {"role", "content"} dicts, agentic
messages — into hookproof messages, with an error that says what is wrong where."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from hookproof.errors import InvalidInputError, UsageError
from hookproof.messages._message import (
    AssistantMessage,
    Message,
    MessageT,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    text_message,
)
from hookproof.messages._problems import (
    LISTED_AT_MOST,
    is_not_content,
    not_content,
    problem,
    short,
)

__all__ = ["coerce_message", "coerce_messages"]


_ROLE_ALIASES: dict[str, type[Message]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "human": UserMessage,
    "assistant": AssistantMessage,
    "ai": AssistantMessage,
    "tool": ToolMessage,
}


def _message_class(role: object, where: str) -> type[Message]:
    cls = _ROLE_ALIASES.get(role) if isinstance(role, str) else None
    if cls is None:
        raise InvalidInputError(
            f"hookproof: {where} has role {short(role)}, which is not a message role. "
            f"Use one of {sorted(_ROLE_ALIASES)}."
        )
    return cls


def _validated(cls: type[MessageT], data: dict[Any, Any], where: str) -> MessageT:
    odd = [key for key in data if not isinstance(key, str)]
    if odd:
        raise InvalidInputError(
            f"hookproof: {where} has keys that are not strings: {short(odd)}. A message dict's "
            'keys are field names such as "role", "content", "id" and "name".'
        )
    try:
        return cls.model_validate(data)
    except ValidationError as error:
        raise _malformed(cls, data, error, where) from None


def _malformed(
    cls: type[Message], data: dict[Any, Any], error: ValidationError, where: str
) -> InvalidInputError:
    content = data.get("content")
    if is_not_content(content):
        problems = [f"content {not_content(content)}"]
    else:
        problems = [problem(item) for item in error.errors(include_url=False)[:LISTED_AT_MOST]]
    return InvalidInputError(
        f"hookproof: {where} is not a valid {cls.role} message: " + "; ".join(problems) + ". "
        "A message is a (role, text) tuple, a hookproof message or a dict such as "
        '{"role": "user", "content": "hi"} (content: a str or a list of content blocks).'
    )


_PLAIN = frozenset({tuple, dict, str})


def coerce_message(value: object, *, where: str = "a message") -> Message | RemoveMessage:
    """Turn a ("role", "text") tuple, a {"role", "content", ...} dict or a message into one."""
    if isinstance(value, Message | RemoveMessage):
        return value
    plain = type(value) in _PLAIN  # has no to_message: spares the failed attribute lookup
    convert = None if plain else getattr(value, "to_message", None)
    if callable(convert):  # agentic messages (hookproof.templates) convert themselves
        converted = convert()
        if isinstance(converted, Message):
            return converted
    if isinstance(value, tuple) and len(value) == 2:
        cls = _message_class(value[0], where)
        if isinstance(value[1], str) and cls is not ToolMessage:
            return text_message(cls, value[1])
        return _validated(cls, {"content": value[1]}, where)
    if isinstance(value, Mapping):
        data = dict(value)
        cls = _message_class(data.pop("role", None), where)
        return _validated(cls, data, where)
    raise UsageError(
        f"hookproof: {where} is a {type(value).__name__} ({short(value)}), which is not a "
        "message. Pass a hookproof message, a (role, text) tuple or a "
        '{"role": ..., "content": ...} dict.'
    )


def coerce_messages(values: Sequence[object], *, where: str) -> list[Message | RemoveMessage]:
    if not isinstance(values, list | tuple) and (
        isinstance(values, str | bytes | Mapping) or not isinstance(values, Sequence)
    ):
        raise UsageError(
            f"hookproof: {where} must be a list of messages, got {type(values).__name__}. "
            'Wrap it in a list: {"messages": [("user", "hi")]}.'
        )
    return [coerce_message(item, where=f"{where}[{index}]") for index, item in enumerate(values)]
