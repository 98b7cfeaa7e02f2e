"""LangChain messages, tools and bound arguments as hookproof messages and FinalRequests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import is_
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from hookproof._support.frozen import thaw
from hookproof.adapters.langchain._blocks import hp_block
from hookproof.adapters.langchain._conversion_memo import converted_all
from hookproof.adapters.langchain._settings import provider_settings
from hookproof.adapters.langchain._tool_memo import ToolMemo
from hookproof.errors import InvalidInputError
from hookproof.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.models import FinalRequest
from hookproof.tools import ToolSchema

__all__ = [
    "INVALID_TOOL_CALLS",
    "PLACEHOLDER_REQUEST",
    "USAGE_METADATA",
    "final_request",
    "portable_kwargs",
    "request_view",
    "schema_of_tool",
    "to_ai_message",
    "to_message",
]

_ROLES: dict[str, type[Message]] = {
    "system": SystemMessage,
    "human": UserMessage,
    "ai": AssistantMessage,
    "tool": ToolMessage,
}
INVALID_TOOL_CALLS = "invalid_tool_calls"
USAGE_METADATA = "usage_metadata"
_NOT_SETTINGS = frozenset(
    {"tools", "tool_choice", "run_manager", "ls_structured_output_format", "response_format"}
)


def to_message(message: BaseMessage) -> Message:
    cls = _ROLES.get(message.type)
    if cls is None:
        raise InvalidInputError(
            f"hookproof: cannot record a LangChain {type(message).__name__} (type "
            f"{message.type!r}); expected system, human, ai or tool messages."
        )
    content = message.content
    blocks = [
        hp_block(item)
        for item in (content if isinstance(content, list) else [content])
        if item != ""
    ]
    fields: dict[str, Any] = {
        "content": blocks,
        "id": message.id,
        "name": message.name,
        "additional_kwargs": dict(message.additional_kwargs),
        "response_metadata": dict(message.response_metadata),
    }
    if isinstance(message, AIMessage):
        fields["tool_calls"] = [
            ToolCall(name=c["name"], args=c.get("args", {}), id=c.get("id"))
            for c in message.tool_calls
        ]
        fields["additional_kwargs"] = {**fields["additional_kwargs"], **_ai_extras(message)}
    if message.type == "tool":
        fields["tool_call_id"] = str(getattr(message, "tool_call_id", ""))
        fields["status"] = getattr(message, "status", "success")
    return cls(**fields)


def _ai_extras(message: AIMessage) -> dict[str, Any]:
    """What an AIMessage holds beside hookproof's fields, kept in additional_kwargs under
    its LangChain name (the way back takes it out): the calls the provider could not parse,
    which stay visible, and the token usage, which summarization reads from history."""
    extras: dict[str, Any] = {}
    if message.invalid_tool_calls:
        extras[INVALID_TOOL_CALLS] = [dict(call) for call in message.invalid_tool_calls]
    if message.usage_metadata is not None:
        extras[USAGE_METADATA] = thaw(message.usage_metadata)
    return extras


def schema_of_tool(raw: Any) -> ToolSchema:
    """The portable schema of a LangChain tool or a provider-format tool dict."""
    return _SCHEMAS(raw)


def _converted(raw: Any) -> ToolSchema:
    spec = (
        raw
        if isinstance(raw, Mapping) and raw.get("type") == "function"
        else convert_to_openai_tool(raw)
    )
    function = spec["function"]
    return ToolSchema(
        name=function["name"],
        description=function.get("description", ""),
        parameters=function.get("parameters", {"type": "object", "properties": {}}),
    )


_SCHEMAS = ToolMemo(_converted)


def final_request(
    messages: Sequence[BaseMessage], kwargs: Mapping[str, Any], *, model: str, stop: Any = None
) -> FinalRequest:
    """The FinalRequest for one LangChain model call: its messages and its parameters (the
    model's invocation parameters and bound arguments; settings as ``provider_settings``
    keeps them)."""
    # A locked view of the bridge converts once: a long run sends its history every turn.
    converted = converted_all(messages, to_message)
    system, rest = _system_split(converted)
    params = {k: v for k, v in kwargs.items() if k not in _NOT_SETTINGS and k != "stop"}
    settings = provider_settings(params, model=model)
    stop = stop or kwargs.get("stop")  # the call's stop words, else the model's own
    if stop:
        settings["stop"] = list(stop)
    return FinalRequest(
        model=model,
        system_message=system,
        messages=rest,
        tools=tuple(schema_of_tool(item) for item in kwargs.get("tools", ()) or ()),
        tool_choice=kwargs.get("tool_choice"),
        response_format=kwargs.get("response_format", kwargs.get("ls_structured_output_format")),
        model_settings=settings,
    )


def _system_split(converted: list[Any]) -> tuple[SystemMessage | None, tuple[Any, ...]]:
    """The first system message, and the other messages in order. The loops over the
    history stay in C where they can: a long history is sent whole on every call."""
    system = _first_system(converted)
    if system is None:
        return None, tuple(converted)
    rest = converted[1:]
    if converted[0] is system and not any(map(is_, rest, repeat(system))):
        return system, tuple(rest)
    return system, tuple(m for m in converted if m is not system)


def _first_system(converted: list[Any]) -> SystemMessage | None:
    if converted and isinstance(converted[0], SystemMessage):
        return converted[0]
    if not any(map(isinstance, converted, repeat(SystemMessage))):
        return None
    return next(m for m in converted if isinstance(m, SystemMessage))


PLACEHOLDER_REQUEST = FinalRequest(model="unused")


@dataclass(frozen=True, slots=True)
class RequestView:
    """What provenance reads of a LangChain ModelRequest: its tools as portable schemas and
    its system message as a hookproof message."""

    tools: tuple[ToolSchema, ...]
    system_message: SystemMessage | None


def request_view(value: Any) -> Any:
    """A LangChain ModelRequest as a RequestView (a FinalRequest is read as it is)."""
    if isinstance(value, FinalRequest):
        return value
    system = value.system_message
    return RequestView(
        tools=tuple(schema_of_tool(item) for item in value.tools or ()),
        system_message=None if system is None else to_message(system),  # type: ignore[arg-type]
    )


def portable_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Bound arguments with the portable tool schemas in place of a provider's own format."""
    portable = {k: v for k, v in kwargs.items() if not k.startswith("_hookproof_")}
    if "_hookproof_tools" in kwargs:
        portable["tools"] = kwargs["_hookproof_tools"]
        portable.pop("tool_choice", None)
        if kwargs.get("_hookproof_tool_choice") is not None:
            portable["tool_choice"] = kwargs["_hookproof_tool_choice"]
        options = kwargs.get("_hookproof_tool_options") or {}
        portable.update({k: v for k, v in options.items() if k not in portable})
    return portable


def to_ai_message(reply: AssistantMessage) -> AIMessage:
    calls = [
        {"name": c.name, "args": thaw(c.args), "id": c.id, "type": "tool_call"}
        for c in reply.tool_calls
    ]
    return AIMessage(content=reply.text, tool_calls=calls, id=reply.id)
