"""Requests and responses that flow through wrap layers, and the FinalRequest a model receives.

ModelRequest and ToolCallRequest are deeply immutable: ``override(**changes)`` returns a new
request and the original stays equal to what it was; assignment or in-place list edits raise
ImmutableError with the fix in the message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, fields
from operator import attrgetter
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeVar, runtime_checkable

from pydantic import Field, SerializeAsAny
from typing_extensions import TypeVar as DefaultedTypeVar  # PEP 696 defaults before 3.13

from hookproof._frozen import FrozenDict, FrozenList, freeze
from hookproof.context import Runtime, ToolRuntime
from hookproof.errors import ImmutableError, InvalidInputError, UsageError, did_you_mean, safe_repr
from hookproof.messages import (
    AssistantMessage,
    FrozenMap,
    Message,
    SystemMessage,
    ToolCall,
    _Immutable,
    _set_private,
    coerce_message,
    construct,
)
from hookproof.provenance import Provenance
from hookproof.redaction import redact_text, redacted_repr
from hookproof.tools import Tool, ToolSchema, schema_of

__all__ = [
    "ChatModel",
    "Command",
    "ExtendedModelResponse",
    "FinalRequest",
    "ModelRequest",
    "ModelResponse",
    "ToolCallRequest",
    "model_name",
]

RequestT = TypeVar("RequestT")
# Type parameters as LangChain's (ModelRequest[MyContext], ModelResponse[MyOutput]); they
# only type the values, so subscripting costs nothing when a request is built or read. An
# unparameterised request's context is Any (LangChain's is None, which makes every
# ``request.runtime.context.field`` a type error until the hook names its context type).
ContextT = DefaultedTypeVar("ContextT", default=Any)
ResponseT = DefaultedTypeVar("ResponseT", default=Any)


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


def _refuse_assignment(self: object, name: str, _value: object) -> NoReturn:
    cls = type(self).__name__
    raise ImmutableError(
        f"hookproof: {cls}.{name} cannot be assigned: requests are shared by every layer, so "
        f"an in-place change would leak into other layers. Use "
        f"`new = request.override({name}=...)` and pass the new request on."
    )


def _refuse_deletion(self: object, name: str) -> NoReturn:
    _refuse_assignment(self, name, None)


def _immutable(cls: Any) -> Any:
    cls.__setattr__ = _refuse_assignment
    cls.__delattr__ = _refuse_deletion
    return cls


def _refuse_response_assignment(self: object, name: str, _value: object) -> NoReturn:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_response(cls: Any) -> Any:
    """A frozen slots dataclass's own __setattr__ names the class it had before slots were
    added, so ``ModelResponse[T](...)`` (which sets ``__orig_class__``) would fail with a
    TypeError; this one refuses every assignment with the usual FrozenInstanceError."""
    cls.__setattr__ = _refuse_response_assignment
    return cls


_FIELDS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {}


def _fields_of(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    """A request class's field names and a getter of all its values, computed once."""
    found = _FIELDS.get(cls)
    if found is None:
        names = tuple(item.name for item in fields(cls))
        found = _FIELDS[cls] = (names, attrgetter(*names))  # every request has several fields
    return found


def _replaced(request: RequestT, changes: Mapping[str, Any]) -> RequestT:
    """``dataclasses.replace`` without its per-call look at the fields (override is hot)."""
    names, values_of = _fields_of(type(request))
    return type(request)(**dict(zip(names, values_of(request), strict=True), **changes))


def _check_override_keys(cls: type, changes: Mapping[str, Any], also: tuple[str, ...] = ()) -> None:
    known = _fields_of(cls)[0]
    for key in changes:
        if key not in known:
            accepted = (*known, *also)
            raise UsageError(
                f"hookproof: {cls.__name__}.override() got unknown field {key!r}."
                f"{did_you_mean(key, accepted)} Fields: {', '.join(accepted)}."
            )


def _as_tool(value: object) -> Tool | ToolSchema:
    if isinstance(value, Tool | ToolSchema):
        return value
    if isinstance(value, Mapping):
        return ToolSchema.model_validate(value)
    raise UsageError(
        f"hookproof: request.tools may hold Tool or ToolSchema values, not "
        f"{type(value).__name__} ({safe_repr(value, 60)}). Build tools with @tool."
    )


def as_system_message(value: object, what: str = "system_message") -> SystemMessage | None:
    """A SystemMessage from a str, a SystemMessage or None; anything else is an error."""
    if value is None or isinstance(value, SystemMessage):
        return value
    if isinstance(value, str):
        return SystemMessage(content=value)
    raise UsageError(
        f"hookproof: {what} must be a str, a SystemMessage or None, not {type(value).__name__}."
    )


def _as_messages(values: Sequence[object]) -> FrozenList[Message]:
    result = [coerce_message(item, where="request.messages") for item in values]
    return FrozenList(item for item in result if isinstance(item, Message))


_MODEL_COERCE: dict[str, Callable[[Any], Any]] = {
    "messages": _as_messages,
    "tools": lambda values: FrozenList(_as_tool(item) for item in values),
    "system_message": as_system_message,
    "state": freeze,
    "model_settings": freeze,
    "response_format": freeze,
    "tool_choice": freeze,
}


_NO_MESSAGES: FrozenList[Message] = FrozenList()
_NO_TOOLS: FrozenList[Tool | ToolSchema] = FrozenList()
_EMPTY = FrozenDict()


_set_field = object.__setattr__


@_immutable
@redacted_repr
@dataclass(frozen=True, slots=True, kw_only=True, init=False)
class ModelRequest(Generic[ContextT]):
    """Everything a wrap_model_call layer may inspect or replace before the model is called.

    ``system_prompt="text"`` (on construction and in ``override``) is LangChain's shorthand
    for ``system_message=SystemMessage("text")``; giving both is an error.
    """

    model: Any
    messages: FrozenList[Message]
    system_message: SystemMessage | None
    tools: FrozenList[Tool | ToolSchema]
    tool_choice: Any
    response_format: Any
    state: FrozenDict
    runtime: Runtime[ContextT] | None
    model_settings: FrozenDict

    # Written out (not the dataclass's) for system_prompt; as fast: override builds through it.
    def __init__(
        self,
        *,
        model: Any,
        messages: FrozenList[Message] = _NO_MESSAGES,
        system_message: SystemMessage | None = None,
        system_prompt: str | None = None,
        tools: FrozenList[Tool | ToolSchema] = _NO_TOOLS,
        tool_choice: Any = None,
        response_format: Any = None,
        state: FrozenDict = _EMPTY,
        runtime: Runtime[ContextT] | None = None,
        model_settings: FrozenDict = _EMPTY,
    ) -> None:
        if system_prompt is not None:
            system_message = _prompt_message(system_prompt, system_message)
        _set_field(self, "model", model)
        _set_field(self, "messages", messages)
        _set_field(self, "system_message", system_message)
        _set_field(self, "tools", tools)
        _set_field(self, "tool_choice", tool_choice)
        _set_field(self, "response_format", response_format)
        _set_field(self, "state", state)
        _set_field(self, "runtime", runtime)
        _set_field(self, "model_settings", model_settings)

    @classmethod
    def create(cls, **values: Any) -> ModelRequest[Any]:
        """Build a request, coercing lists, dicts and strings to their immutable forms."""
        return cls(**{key: _MODEL_COERCE.get(key, _same)(value) for key, value in values.items()})

    def override(self, **changes: Any) -> ModelRequest[ContextT]:
        """A new request with ``changes``; this one is left exactly as it was."""
        if "system_prompt" in changes:
            _prompt_override(changes)
        _check_override_keys(ModelRequest, changes, _PROMPT_KEY)
        coerced = {key: _MODEL_COERCE.get(key, _same)(value) for key, value in changes.items()}
        return _replaced(self, coerced)

    @property
    def system_prompt(self) -> str | None:
        return None if self.system_message is None else self.system_message.text

    @property
    def tool_names(self) -> list[str]:
        return sorted(item.name for item in self.tools)


def _same(value: Any) -> Any:
    return value


_PROMPT_KEY = ("system_prompt",)  # accepted by override(), though not a field


def _both_system_error() -> InvalidInputError:
    return InvalidInputError(
        "hookproof: ModelRequest got both system_prompt and system_message; they are two "
        "ways to set the same system message, so one would silently win. Pass one of them: "
        "system_prompt='text' or system_message=SystemMessage('text')."
    )


def _prompt_message(prompt: object, message: SystemMessage | None) -> SystemMessage | None:
    """The system message a construction's ``system_prompt`` stands for."""
    if message is not None:
        raise _both_system_error()
    return as_system_message(prompt, "system_prompt")


def _prompt_override(changes: dict[str, Any]) -> None:
    """Turn an override's ``system_prompt`` into its ``system_message`` (None clears it)."""
    if "system_message" in changes:
        raise _both_system_error()
    changes["system_message"] = as_system_message(changes.pop("system_prompt"), "system_prompt")


@_immutable
@redacted_repr
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallRequest:
    """One tool call on its way to execution; ``tool`` is None when the name is unknown."""

    tool_call: ToolCall
    tool: Tool | None
    state: FrozenDict = _EMPTY
    runtime: ToolRuntime[Any] | None = None

    def override(self, **changes: Any) -> ToolCallRequest:
        _check_override_keys(ToolCallRequest, changes)
        call = changes.get("tool_call")
        if isinstance(call, Mapping) and not isinstance(call, ToolCall):  # {**call, ...}
            changes["tool_call"] = ToolCall.model_validate(dict(call))
        if "state" in changes:
            state = changes["state"] = freeze(changes["state"])
            runtime = changes.get("runtime", self.runtime)
            if isinstance(runtime, ToolRuntime):  # the tool sees the new state, as in LangGraph
                changes["runtime"] = runtime.with_state(state)
        return _replaced(self, changes)


class _NoResume:
    def __repr__(self) -> str:
        return "NO_RESUME"

    def __reduce__(self) -> str:  # copies and pickles are the one sentinel, so `is` holds
        return "NO_RESUME"


NO_RESUME: Any = _NoResume()


@redacted_repr
@dataclass(frozen=True, slots=True)
class Command:
    """A state update (and optionally a jump) returned by a hook or a tool; or, passed to
    ``invoke`` as the input, the answer that resumes a paused thread.

    ``goto`` may be "end" (finish the run after after_agent hooks), "model" or "tools".
    ``graph=Command.PARENT`` addresses the graph above this one, as in LangGraph; an agent
    run by hookproof has none, so returning it raises ParentCommandError.
    """

    update: Mapping[str, Any] | None = None
    goto: str | None = None
    resume: Any = NO_RESUME
    graph: str | None = None

    PARENT: ClassVar[str] = "__parent__"  # LangGraph's value, so bridged Commands keep it


@_frozen_response
@redacted_repr
@dataclass(frozen=True, slots=True)
class ModelResponse(Generic[ResponseT]):
    """What a model-call handler returns: the new messages (usually one assistant message)."""

    result: tuple[Message, ...]
    structured_response: ResponseT | None = None

    @property
    def message(self) -> AssistantMessage | None:
        for item in reversed(self.result):
            if isinstance(item, AssistantMessage):
                return item
        return None


@_frozen_response
@redacted_repr
@dataclass(frozen=True, slots=True)
class ExtendedModelResponse(Generic[ResponseT]):
    """A model response plus a Command, so a wrap_model_call can update state through reducers."""

    model_response: ModelResponse[ResponseT]
    command: Command | None = None


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


class FinalRequest(_Immutable):
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

    @classmethod
    def from_request(cls, request: ModelRequest, provenance: Any = None) -> FinalRequest:
        """The request's schemas and settings; ``provenance`` (a Provenance, or the engine's
        pending one) travels beside them, outside equality."""
        final = construct(
            cls,
            model=model_name(request.model),
            system_message=request.system_message,
            messages=request.messages,
            tools=_schemas(request.tools),
            tool_choice=request.tool_choice,
            response_format=request.response_format,
            model_settings=request.model_settings,
        )
        if provenance is not None:
            _set_private(final, {"_provenance": provenance})
        return final

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
        copy = construct(type(self), **self.__dict__)
        _set_private(copy, {"_provenance": provenance} if provenance is not None else None)
        return copy

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
