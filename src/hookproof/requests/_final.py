"""The model's side: ChatModel (what the reference runtime calls) and FinalRequest (exactly
what the innermost model received, after every layer)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import Field, SerializeAsAny, SerializerFunctionWrapHandler, model_serializer

from hookproof._secrets.installed import redact_installed as redact_text
from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof._support.frozen_model import (
    FrozenMap,
    ImmutableModel,
    construct,
    construct_whole,
    set_private,
)
from hookproof._support.history import History
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage, Message, SystemMessage
from hookproof.provenance import Provenance
from hookproof.requests._requests import ModelRequest
from hookproof.requests._sender import Sender
from hookproof.tools import Tool, ToolSchema, schema_of

__all__ = ["ChatModel", "FinalRequest", "model_name"]


@runtime_checkable
class ChatModel(Protocol):
    """What the reference runtime calls: ``invoke(FinalRequest) -> AssistantMessage``.

    ``ainvoke`` is used under ``agent.ainvoke`` when present. Truthiness is never consulted,
    so a model whose ``__bool__`` is False is still a model.
    """

    def invoke(self, request: FinalRequest) -> AssistantMessage: ...


def model_name(model: object) -> str:
    """A model's identity as recorded in traces and FinalRequests."""
    name = getattr(model, "name", None)
    return name if isinstance(name, str) and name else type(model).__name__


# An agent hands the same tool list to every model call: its schemas are kept for the next.
_last_schemas: tuple[object, FrozenList[ToolSchema]] = (None, FrozenList())


def _schemas(tools: FrozenList[Tool | ToolSchema]) -> FrozenList[ToolSchema]:
    global _last_schemas
    seen, schemas = _last_schemas
    if seen is tools:
        return schemas
    schemas = FrozenList(schema_of(item) for item in tools)
    if isinstance(tools, FrozenList):  # cannot change, so the same object has the same schemas
        _last_schemas = (tools, schemas)
    return schemas


class FinalRequest(ImmutableModel):
    """Exactly what the innermost model received, after every layer.

    ``tools`` hold schemas only (name, description, JSON Schema); ``tool_names`` is sorted.
    """

    model: str
    system_message: SystemMessage | None = None
    # SerializeAsAny: model_dump keeps each message's own fields (tool calls, call ids)
    messages: tuple[SerializeAsAny[Message], ...] = ()
    tools: tuple[ToolSchema, ...] = ()
    tool_choice: Any = None
    response_format: Any = None
    model_settings: FrozenMap = Field(default_factory=FrozenDict)

    # The engine's requests share their history's storage (a History): dumped as the tuple
    # of its messages, exactly as a validated request dumps. No return annotation: one
    # would replace the request's JSON Schema in serialization mode.
    @model_serializer(mode="wrap")
    def _dump_history_as_tuple(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        if isinstance(self.messages, History):
            as_validated = {**self.__dict__, "messages": tuple(self.messages)}
            return handler(construct(type(self), **as_validated))
        return handler(self)

    @classmethod
    def from_request(
        cls, request: ModelRequest, provenance: Any = None, sender: Sender | None = None
    ) -> FinalRequest:
        """The request's schemas and settings; ``provenance`` (a Provenance, or the engine's
        pending one) and ``sender`` travel beside them, outside equality."""
        tools = request.tools
        seen, schemas = _last_schemas  # _schemas' answer for the agent's own list, inline
        name = getattr(request.model, "name", None)  # model_name, inline: every model call
        fields = {  # every field, in declaration order
            "model": name if isinstance(name, str) and name else type(request.model).__name__,
            "system_message": request.system_message,
            "messages": request.messages,
            "tools": schemas if seen is tools else _schemas(tools),
            "tool_choice": request.tool_choice,
            "response_format": request.response_format,
            "model_settings": request.model_settings,
        }
        private = (
            None
            if provenance is None and sender is None
            else {"_provenance": provenance, "_sender": sender}
        )
        if cls is not FinalRequest:  # a subclass may declare more fields, with defaults
            final = construct(cls, **fields)
            set_private(final, private)
            return final
        return construct_whole(cls, fields, private)

    # Provenance says how the request came to be, not what the model received: two requests
    # with the same fields are equal whatever their provenance.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, FinalRequest):
            return self.__dict__ == other.__dict__
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def with_provenance(self, provenance: Any) -> FinalRequest:
        """This request carrying ``provenance`` (a Provenance, or None for none)."""
        return self._with_private("_provenance", provenance)

    def with_sender(self, sender: Sender | None) -> FinalRequest:
        """This request sent by ``sender`` (a Sender, or None for not recorded)."""
        if sender is not None and not isinstance(sender, Sender):
            raise UsageError(
                f"hookproof: with_sender takes a Sender (or None), got {type(sender).__name__}. "
                'Example: final.with_sender(Sender("researcher", depth=1)).'
            )
        return self._with_private("_sender", sender)

    def _with_private(self, key: str, value: Any) -> FinalRequest:
        copy = construct(type(self), **self.__dict__)
        kept = {**(self.__pydantic_private__ or {}), key: value}
        set_private(copy, kept if any(item is not None for item in kept.values()) else None)
        return copy

    @property
    def sender(self) -> Sender | None:
        """The agent that made this model call (name and depth: 0 the main agent, 1 a
        subagent it ran from a tool...); None when not recorded (a request built by hand, or
        a model called outside an agent run)."""
        found = (self.__pydantic_private__ or {}).get("_sender")
        return found if isinstance(found, Sender) else None

    @property
    def provenance(self) -> Provenance | None:
        """Which middleware or harness layer added, changed or removed each tool and wrote
        each system-prompt line (see hookproof.provenance); None when not recorded (a
        request built by hand, or by a model outside hookproof's engine)."""
        private = self.__pydantic_private__ or {}
        found = private.get("_provenance")
        if found is None or isinstance(found, Provenance):
            return found
        resolved: Provenance = found.resolve()
        private["_provenance"] = resolved
        return resolved

    @property
    def tool_names(self) -> list[str]:
        return sorted(item.name for item in self.tools)

    @property
    def system_text(self) -> str:
        return "" if self.system_message is None else self.system_message.text

    # repr() and str() reach logs and pytest's failure output: an API key in the settings or
    # a message's metadata must not. Equality and model_dump keep the real values.
    def __repr__(self) -> str:
        return redact_text(super().__repr__())

    def __str__(self) -> str:
        return redact_text(super().__str__())

    def tool(self, name: str) -> ToolSchema:
        """The schema of the tool called ``name``; KeyError listing the names if absent."""
        for item in self.tools:
            if item.name == name:
                return item
        raise KeyError(f"no tool {name!r} in this request; tools: {self.tool_names}")

    def summary(self, last: int = 4) -> str:
        """A few lines for error messages: the last messages and the tool names, redacted
        (before each text is cut short, so no part of a secret remains)."""
        lines = [f"model={self.model!r} tools={self.tool_names}"]
        for message in self.messages[-last:]:
            calls = getattr(message, "tool_calls", ())
            shown = redact_text(message.text)[:70] or ", ".join(f"call {c.name}" for c in calls)
            lines.append(f"  {message.role}: {shown!r}")
        return redact_text("\n".join(lines))
